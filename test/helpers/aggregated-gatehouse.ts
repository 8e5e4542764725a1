// A Gatehouse in front of a test upstream (test/helpers/upstream-apiserver.ts), as the proxy tests need it: RBAC with
// the token users of test/helpers/rbac.ts, the upstream reached through --aggregator-endpoints-file, a front-proxy CA
// whose client certificate (--proxy-client-cert-file) the upstream verifies, and the request-header flags that
// certificate stands for. The availability controller is off unless asked for: the tests set the Available condition
// themselves, so that a 503 or a pass never depends on when a check ran.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from './gatehouse.js';
import { issueClientCert, makeCA, type CertificateAuthority } from './pki.js';
import { tokenOf, USERS } from './rbac.js';
import { startUpstreamAPIServer, type UpstreamAPIServer } from './upstream-apiserver.js';
import type { Clock } from '../../gateway/server/clock.js';

export const GROUP = 'wardle.example.io';
export const VERSION = 'v1alpha1';
export const GV = `/apis/${GROUP}/${VERSION}`;
export const SERVICE = { namespace: 'wardle', name: 'api' };
export const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
export const PROXY_CLIENT_CN = 'front-proxy-client';

/** A port nothing listens on any more: connections to it are refused. */
export function closedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface AggregatedGatehouse {
  gh: TestGatehouse;
  upstream: UpstreamAPIServer;
  frontProxyCa: CertificateAuthority;
  dir: string;
  endpointsFile: string;
  /** Creates (or replaces) the APIService of `group`/`version` for `service`, and sets its Available condition. */
  register(opts: {
    group: string;
    version: string;
    service: { namespace: string; name: string };
    caBundle?: string;
    available?: boolean;
  }): Promise<void>;
  setAvailable(name: string, available: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startAggregatedGatehouse(
  opts: { clock?: Clock; extraArgs?: string[]; availabilityController?: boolean; extraEndpoints?: object[] } = {},
): Promise<AggregatedGatehouse> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gh-proxy-'));
  const frontProxyCa = await makeCA('front-proxy-ca');
  const client = await issueClientCert(frontProxyCa, { cn: PROXY_CLIENT_CN });
  const files = {
    tokens: path.join(dir, 'tokens.csv'),
    frontProxyCa: path.join(dir, 'front-proxy-ca.crt'),
    cert: path.join(dir, 'proxy-client.crt'),
    key: path.join(dir, 'proxy-client.key'),
    endpoints: path.join(dir, 'endpoints.yaml'),
  };
  const upstream = await startUpstreamAPIServer({
    group: GROUP,
    version: VERSION,
    service: SERVICE,
    clientCa: frontProxyCa.certPem,
  });
  await writeFile(
    files.tokens,
    Object.entries(USERS)
      .map(([user, groups]) => `${tokenOf(user)},${user},${user}-uid,"${groups.join(',')}"`)
      .join('\n'),
  );
  await writeFile(files.frontProxyCa, frontProxyCa.certPem);
  await writeFile(files.cert, client.certPem);
  await writeFile(files.key, client.keyPem);
  await writeFile(
    files.endpoints,
    JSON.stringify([{ ...SERVICE, port: 443, url: upstream.url }, ...(opts.extraEndpoints ?? [])]),
  );
  const controllers = opts.availabilityController
    ? '--controllers=*,-serviceaccount,-root-ca-cert-publisher'
    : '--controllers=*,-serviceaccount,-root-ca-cert-publisher,-apiservice-availability-controller';
  const gh = await startTestGatehouse(
    [
      '--storage-backend=memory',
      controllers,
      '--authorization-mode=RBAC',
      `--token-auth-file=${files.tokens}`,
      `--aggregator-endpoints-file=${files.endpoints}`,
      `--proxy-client-cert-file=${files.cert}`,
      `--proxy-client-key-file=${files.key}`,
      `--requestheader-client-ca-file=${files.frontProxyCa}`,
      `--requestheader-allowed-names=${PROXY_CLIENT_CN}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      ...(opts.extraArgs ?? []),
    ],
    { clock: opts.clock },
  );

  const setAvailable = async (name: string, available: boolean): Promise<void> => {
    const condition = available
      ? { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' }
      : { type: 'Available', status: 'False', reason: 'FailedDiscoveryCheck', message: 'set by the test' };
    const res = await gh.request('PATCH', `${APISERVICES}/${name}/status`, {
      body: {
        status: {
          conditions: [{ ...condition, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }],
        },
      },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(res.status, res.body).to.equal(200);
  };

  return {
    gh,
    upstream,
    frontProxyCa,
    dir,
    endpointsFile: files.endpoints,
    setAvailable,
    async register(r) {
      const name = `${r.version}.${r.group}`;
      await gh.request('DELETE', `${APISERVICES}/${name}`);
      const res = await gh.request('POST', APISERVICES, {
        body: {
          apiVersion: 'apiregistration.platform.io/v1',
          kind: 'APIService',
          metadata: { name },
          spec: {
            group: r.group,
            version: r.version,
            service: r.service,
            caBundle: r.caBundle ?? upstream.caBundle,
            groupPriorityMinimum: 1000,
            versionPriority: 15,
          },
        },
      });
      expect(res.status, res.body).to.equal(201);
      if (r.available !== false) await setAvailable(name, true);
    },
    async close() {
      await gh?.close();
      await upstream?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
