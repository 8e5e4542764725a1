// A real HTTPS webhook for tests (authorization or admission): its own CA and a serving certificate for 127.0.0.1
// (and the DNS names asked for), a client configuration file (kubeconfig format) pointing at it, and a per-test
// `behave` function that decides each answer: a SubjectAccessReview status, any JSON answer, raw bytes, an HTTP error,
// garbage, a hang (until the client gives up), a crash (the socket closed mid-request) or an answer cut off mid-body.
// Every received review is recorded, so caches and skipping are checked by counting calls.
import 'reflect-metadata';
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { issueServerCert, makeCA, type CertificateAuthority } from './pki.js';

export type WebhookBehaviour =
  | { status: Record<string, unknown>; apiVersion?: string }
  /** The answer as it is, JSON-encoded, with 200. */
  | { answer: unknown }
  | { raw: string | Buffer }
  | { httpStatus: number; body?: string }
  | 'garbage'
  | 'hang'
  | 'crash'
  | 'truncate';

export interface ReceivedReview {
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface TestWebhook {
  url: string;
  /** The CA that signed the serving certificate, base64 of its PEM: a webhook configuration's caBundle. */
  caBundle: string;
  /** The client configuration file (kubeconfig) for --authorization-webhook-config-file or connectionInfo. */
  kubeconfigPath: string;
  /** Reviews received, in order. */
  received: ReceivedReview[];
  behave: (review: any) => WebhookBehaviour;
  close(): Promise<void>;
}

let sharedCa: Promise<CertificateAuthority> | undefined;

export interface TestWebhookOptions {
  /** A bearer token the kubeconfig carries. */
  token?: string;
  /** Require a client certificate signed by this CA (mutual TLS); `client` is what the kubeconfig presents. */
  clientCa?: CertificateAuthority;
  client?: { certPem: string; keyPem: string };
  /** DNS names the serving certificate carries beside 127.0.0.1 (`<service>.<namespace>.svc`). */
  dnsNames?: string[];
  /** The path of `url` (default /authorize). */
  path?: string;
}

export async function startTestWebhook(
  behave: TestWebhook['behave'],
  opts: TestWebhookOptions = {},
): Promise<TestWebhook> {
  const ca = await (sharedCa ??= makeCA('webhook-test-ca'));
  const { certPem, keyPem } = await issueServerCert(ca, { ips: ['127.0.0.1'], dns: opts.dnsNames });
  const received: ReceivedReview[] = [];
  const hanging = new Set<ServerResponse>();
  const hook: TestWebhook = {
    url: '',
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    kubeconfigPath: '',
    received,
    behave,
    close: async () => {},
  };
  const mtls = opts.clientCa ? { ca: opts.clientCa.certPem, requestCert: true, rejectUnauthorized: true } : {};
  const server = https.createServer({ cert: certPem, key: keyPem, ...mtls }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      received.push({ body, headers: req.headers });
      const behaviour = hook.behave(body);
      if (behaviour === 'hang') return void hanging.add(res);
      if (behaviour === 'crash') return void req.socket.destroy();
      if (behaviour === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"this is": not json');
      }
      if (behaviour === 'truncate') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"apiVersion":');
        return void setImmediate(() => req.socket.destroy());
      }
      if ('answer' in behaviour) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify(behaviour.answer));
      }
      if ('raw' in behaviour) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(behaviour.raw);
      }
      if ('httpStatus' in behaviour) {
        res.writeHead(behaviour.httpStatus, { 'content-type': 'application/json' });
        return void res.end(behaviour.body ?? '{}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: behaviour.apiVersion ?? body?.apiVersion,
          kind: 'SubjectAccessReview',
          status: behaviour.status,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}${opts.path ?? '/authorize'}`;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-webhook-'));
  hook.kubeconfigPath = path.join(dir, 'webhook.kubeconfig');
  const b64 = (pem: string) => Buffer.from(pem).toString('base64');
  const userLines = [
    ...(opts.token ? [`    token: ${opts.token}`] : []),
    ...(opts.client
      ? [`    client-certificate-data: ${b64(opts.client.certPem)}`, `    client-key-data: ${b64(opts.client.keyPem)}`]
      : []),
  ];
  const user = userLines.length > 0 ? `\n${userLines.join('\n')}` : ' {}';
  await writeFile(
    hook.kubeconfigPath,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: webhook',
      '  cluster:',
      `    server: ${hook.url}`,
      `    certificate-authority-data: ${Buffer.from(ca.certPem).toString('base64')}`,
      'users:',
      '- name: gatehouse',
      `  user:${user}`,
      'contexts:',
      '- name: webhook',
      '  context:',
      '    cluster: webhook',
      '    user: gatehouse',
      'current-context: webhook',
      '',
    ].join('\n'),
  );
  hook.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  };
  return hook;
}

/** One authorizers[] entry of an AuthorizationConfiguration for this webhook. */
export function webhookEntry(
  name: string,
  hook: TestWebhook,
  webhook: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: 'Webhook',
    name,
    webhook: {
      timeout: '3s',
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'NoOpinion',
      connectionInfo: { type: 'PlatformConfigFile', platformConfigFile: hook.kubeconfigPath },
      ...webhook,
    },
  };
}
