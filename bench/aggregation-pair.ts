// The two servers of the aggregation scenario: an upstream Gatehouse on the memory backend, and a front Gatehouse
// that proxies events.k8s.io/v1 to it through a remote APIService. The upstream is a Gatehouse, not a minimal server,
// because a proxy's share of a request is only honest against an upstream that does a real server's work
// (authentication by request headers, authorization, storage, encoding); a trivial upstream would make any proxy
// look slow. The front switches events.k8s.io/v1 off (--runtime-config) so that no Local APIService owns it.
import https from 'node:https';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { caBundle, issueClientCert, issueServerCert, makeCA } from '../test/helpers/pki.js';
import { trackDir } from './cleanup.js';
import { describeFailure, type Target } from './load.js';
import { startGateway, type Gateway } from './processes.js';

export const GROUP_VERSION = '/apis/events.k8s.io/v1';
const SERVICE = { namespace: 'bench', name: 'api' };
const PROXY_CLIENT_CN = 'front-proxy-client';
const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';

export interface AggregationPair {
  front: Gateway;
  upstream: Gateway;
  /** The front, as clients reach the remote group-version. */
  viaFront: Target;
  /** The upstream, reached directly with its own admin token. */
  direct: Target;
  stop(): Promise<void>;
}

export function eventJson(namespace: string, name: string): string {
  return JSON.stringify({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace },
    eventTime: '2026-01-01T00:00:00.123456Z',
    reportingController: 'example.com/bench',
    reportingInstance: 'bench-1',
    action: 'Benching',
    reason: 'Benched',
    regarding: { kind: 'ConfigMap', namespace, name: 'cm1', apiVersion: 'v1' },
    note: 'x'.repeat(900),
    type: 'Normal',
  });
}

/** One setup request; a merge patch needs its own content type, which the load generator never sends. */
function once(target: Target, method: string, p: string, body: string, expect: number[], type = 'application/json') {
  return new Promise<void>((resolve, reject) => {
    const req = https.request(
      new URL(p, target.url),
      {
        method,
        ca: target.ca,
        headers: { authorization: `Bearer ${target.token}`, 'content-type': type, accept: 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () =>
          expect.includes(res.statusCode ?? 0)
            ? resolve()
            : reject(new Error(`${method} ${p}: ${describeFailure(res.statusCode ?? 0, text)}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function startAggregationPair(): Promise<AggregationPair> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-bench-agg-'));
  const removeDir = trackDir(dir);
  const servingCa = await makeCA('bench-upstream-ca');
  const serving = await issueServerCert(servingCa, {
    dns: [`${SERVICE.name}.${SERVICE.namespace}.svc`],
    ips: ['127.0.0.1'],
  });
  const frontProxyCa = await makeCA('bench-front-proxy-ca');
  const client = await issueClientCert(frontProxyCa, { cn: PROXY_CLIENT_CN });
  const file = (name: string) => path.join(dir, name);
  await writeFile(file('serving.crt'), serving.certPem);
  await writeFile(file('serving.key'), serving.keyPem);
  await writeFile(file('front-proxy-ca.crt'), frontProxyCa.certPem);
  await writeFile(file('proxy-client.crt'), client.certPem);
  await writeFile(file('proxy-client.key'), client.keyPem);
  const gateways: Gateway[] = [];
  const stop = async () => {
    for (const g of gateways) {
      await g.stop();
      g.removeDataDir();
    }
    removeDir();
  };
  try {
    const up = await startGateway(
      [
        '--storage-backend=memory',
        `--tls-cert-file=${file('serving.crt')}`,
        `--tls-private-key-file=${file('serving.key')}`,
        `--requestheader-client-ca-file=${file('front-proxy-ca.crt')}`,
        `--requestheader-allowed-names=${PROXY_CLIENT_CN}`,
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      ],
      undefined,
      caBundle(servingCa),
    );
    if (!up.ok) throw new Error(`upstream: ${up.reason}`);
    gateways.push(up.gateway);
    await writeFile(file('endpoints.json'), JSON.stringify([{ ...SERVICE, port: 443, url: up.gateway.url }]));
    const front = await startGateway([
      '--storage-backend=memory',
      '--runtime-config=events.k8s.io/v1=false,events.platform.io/v1=false',
      '--controllers=*,-apiservice-availability-controller',
      `--aggregator-endpoints-file=${file('endpoints.json')}`,
      `--proxy-client-cert-file=${file('proxy-client.crt')}`,
      `--proxy-client-key-file=${file('proxy-client.key')}`,
    ]);
    if (!front.ok) throw new Error(`front: ${front.reason}`);
    gateways.push(front.gateway);
    const viaFront: Target = { url: front.gateway.url, ca: front.gateway.ca, token: front.gateway.token };
    const direct: Target = { url: up.gateway.url, ca: up.gateway.ca, token: up.gateway.token };
    const name = 'v1.events.k8s.io';
    const apiService = JSON.stringify({
      apiVersion: 'apiregistration.platform.io/v1',
      kind: 'APIService',
      metadata: { name },
      spec: {
        group: 'events.k8s.io',
        version: 'v1',
        service: SERVICE,
        caBundle: Buffer.from(servingCa.certPem).toString('base64'),
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    });
    await once(viaFront, 'POST', APISERVICES, apiService, [201]);
    // The availability controller is off, so that no check races the first requests: the status is set here.
    const status = JSON.stringify({
      status: {
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'Passed',
            message: 'set by the bench',
            lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          },
        ],
      },
    });
    await once(viaFront, 'PATCH', `${APISERVICES}/${name}/status`, status, [200], 'application/merge-patch+json');
    await once(
      direct,
      'POST',
      '/api/v1/namespaces',
      '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"bench"}}',
      [201],
    );
    return { front: front.gateway, upstream: up.gateway, viaFront, direct, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
