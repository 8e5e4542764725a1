// A real HTTPS authorization webhook for tests: its own CA and a serving certificate for 127.0.0.1, a client
// configuration file (kubeconfig format) pointing at it, and a per-test `behave` function that decides each answer:
// a SubjectAccessReview status, an HTTP error, garbage, a hang (until the client gives up) or a crash (the socket
// closed mid-request). Every received review is recorded, so caches and skipping are checked by counting calls.
import 'reflect-metadata';
import https from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { makeCA, type CertificateAuthority } from './pki.js';

export type WebhookBehaviour =
  | { status: Record<string, unknown>; apiVersion?: string }
  | { httpStatus: number; body?: string }
  | 'garbage'
  | 'hang'
  | 'crash';

export interface ReceivedReview {
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface TestWebhook {
  url: string;
  /** The client configuration file (kubeconfig) for --authorization-webhook-config-file or connectionInfo. */
  kubeconfigPath: string;
  /** Reviews received, in order. */
  received: ReceivedReview[];
  behave: (review: any) => WebhookBehaviour;
  close(): Promise<void>;
}

type X509KeyPair = x509.X509CertificateCreateSelfSignedParams['keys'];

async function servingCert(ca: CertificateAuthority): Promise<{ certPem: string; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as unknown as X509KeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '01' + Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex'),
    subject: [{ CN: ['webhook'] }],
    issuer: ca.cert.subjectName,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: '127.0.0.1' }]),
    ],
  });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: cert.toString('pem'), keyPem: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}

let sharedCa: Promise<CertificateAuthority> | undefined;

export interface TestWebhookOptions {
  /** A bearer token the kubeconfig carries. */
  token?: string;
  /** Require a client certificate signed by this CA (mutual TLS); `client` is what the kubeconfig presents. */
  clientCa?: CertificateAuthority;
  client?: { certPem: string; keyPem: string };
}

export async function startTestWebhook(
  behave: TestWebhook['behave'],
  opts: TestWebhookOptions = {},
): Promise<TestWebhook> {
  const ca = await (sharedCa ??= makeCA('webhook-test-ca'));
  const { certPem, keyPem } = await servingCert(ca);
  const received: ReceivedReview[] = [];
  const hanging = new Set<ServerResponse>();
  const hook: TestWebhook = { url: '', kubeconfigPath: '', received, behave, close: async () => {} };
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
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
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
