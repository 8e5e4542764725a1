// What one validating admission webhook costs a write: creates of 1 KiB ConfigMaps against two memory-backend
// gateways, one with a ValidatingWebhookConfiguration (created through the API) calling a webhook on loopback that
// answers allowed, and one without, loaded at the same time in rounds (paired-cost.ts). The webhook is an HTTPS
// server in this process with a CA of its own, which the configuration's caBundle names; the gateway's client keeps
// its connections alive, so the figure is the cost of one AdmissionReview round trip, not of a TLS handshake. It
// counts the reviews it answers: a ratio is only printed when the gateway did call it. The issue's target: creates
// through the webhook at 50% or more of creates without.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { issueServerCert, makeCA } from '../test/helpers/pki.js';
import { CONFIGMAPS, labelledConfigMapJson, measureCreateCost, setupClient } from './admission-setup.js';
import { trackCloser } from './cleanup.js';
import type { Target } from './load.js';
import { FULL_COST_SETTINGS, type CostSettings } from './metrics-cost.js';
import { formatPairedCost, type PairedCost } from './paired-cost.js';

export const WEBHOOK_COST_TARGET = 0.5;
const LABEL: [string, string] = ['through a webhook', 'without'];
const TITLE = 'validating webhook cost';

const describe = (s: CostSettings) =>
  `memory backend, creates of 1 KiB ConfigMaps, 16 clients, one validating webhook on loopback answering allowed ` +
  `(HTTPS, keep-alive), ${s.rounds} rounds of ${s.sliceMs / 1000} s, both gateways loaded at once`;

export interface WebhookCost {
  cost: PairedCost;
  /** The reviews the webhook answered, warm-up and probes included. */
  calls: number;
}

interface AllowingWebhook {
  url: string;
  caPem: string;
  calls(): number;
  close(): Promise<void>;
}

/** An HTTPS webhook on loopback answering every AdmissionReview allowed, echoing its uid as upstream requires. */
async function startAllowingWebhook(): Promise<AllowingWebhook> {
  const ca = await makeCA('bench-webhook-ca');
  const serving = await issueServerCert(ca, { ips: ['127.0.0.1'] });
  let calls = 0;
  const server = https.createServer(
    { cert: serving.certPem, key: serving.keyPem, keepAliveTimeout: 60_000 },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        calls++;
        let review: { apiVersion?: string; request?: { uid?: string } } = {};
        try {
          review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof review;
        } catch {
          // An unreadable review is still answered: the gateway's failure handling is not what is measured.
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            apiVersion: review.apiVersion ?? 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: review.request?.uid ?? '', allowed: true },
          }),
        );
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const untrack = trackCloser(close);
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/validate`,
    caPem: ca.certPem,
    calls: () => calls,
    async close() {
      untrack();
      await close();
    },
  };
}

/** Configures the webhook through the API, and waits (a few seconds at most) until a dry-run create reaches it. */
async function configureWebhook(target: Target, webhook: AllowingWebhook): Promise<void> {
  const client = setupClient(target);
  try {
    await client.post('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'bench-allow' },
      webhooks: [
        {
          name: 'allow.bench.platform.io',
          clientConfig: { url: webhook.url, caBundle: Buffer.from(webhook.caPem).toString('base64') },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          timeoutSeconds: 10,
        },
      ],
    });
    const probe = { method: 'POST', path: `${CONFIGMAPS}?dryRun=All`, body: labelledConfigMapJson('probe') };
    // A gateway without webhook dispatch never calls it: the run goes on, and the figure says so.
    await client.until(probe, () => webhook.calls() > 0, 5_000);
  } finally {
    client.close();
  }
}

export async function measureWebhookCost(
  say: (line: string) => void,
  settings = FULL_COST_SETTINGS,
): Promise<WebhookCost> {
  const webhook = await startAllowingWebhook();
  try {
    const configure = (target: Target) => configureWebhook(target, webhook);
    const cost = await measureCreateCost({ configure, settings, say, label: LABEL });
    return { cost, calls: webhook.calls() };
  } finally {
    await webhook.close();
  }
}

export function formatWebhookCost(result: WebhookCost, settings = FULL_COST_SETTINGS): string[] {
  if (result.calls === 0) return [`${TITLE}: not measured: the webhook was not called`];
  return [
    ...formatPairedCost(TITLE, LABEL, result.cost, WEBHOOK_COST_TARGET, describe(settings)),
    `  the webhook answered ${result.calls} reviews`,
  ];
}
