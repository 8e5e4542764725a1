// A minimal aggregated API server for the aggregation tests: real HTTPS with its own CA (test/helpers/pki.ts) and a
// serving certificate for `<service>.<namespace>.svc`, answering the discovery document of one group-version. Its
// `mode` decides each answer: the document, a hang (until the client gives up), a 500, or bytes that are no HTTP.
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { issueServerCert, makeCA, type CertificateAuthority } from './pki.js';

export type UpstreamMode = 'ok' | 'hang' | '500' | 'garbage';

export interface UpstreamAPIServer {
  /** `https://127.0.0.1:<port>`: what an endpoints-file entry points at. */
  url: string;
  ca: CertificateAuthority;
  /** The CA as an APIService's caBundle (base64 PEM). */
  caBundle: string;
  mode: UpstreamMode;
  /** Paths requested, in order. */
  requests: string[];
  /** Resolves at the next request received (before it is answered): a test then knows a check is under way. */
  nextRequest(): Promise<string>;
  close(): Promise<void>;
}

export async function startUpstreamAPIServer(opts: {
  group: string;
  version: string;
  service: { namespace: string; name: string };
  /** Answers a request itself, in mode 'ok', when it returns true (test/helpers/upstream-aggregated.ts). */
  handle?: (req: IncomingMessage, res: ServerResponse) => boolean;
}): Promise<UpstreamAPIServer> {
  const ca = await makeCA(`upstream-${opts.service.name}-ca`);
  const serving = await issueServerCert(ca, {
    dns: [`${opts.service.name}.${opts.service.namespace}.svc`],
    ips: ['127.0.0.1'],
  });
  const hanging = new Set<ServerResponse>();
  let waiters: ((path: string) => void)[] = [];
  const discovery = `/apis/${opts.group}/${opts.version}`;
  const upstream: UpstreamAPIServer = {
    url: '',
    ca,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    mode: 'ok',
    requests: [],
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    close: async () => {},
  };
  const server = https.createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const path = req.url ?? '';
    upstream.requests.push(path);
    const notify = waiters;
    waiters = [];
    for (const w of notify) w(path);
    switch (upstream.mode) {
      case 'hang':
        hanging.add(res);
        return;
      case '500':
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"kind":"Status","status":"Failure","code":500}');
        return;
      case 'garbage':
        // Bytes straight onto the TLS stream, outside any HTTP framing.
        req.socket.end('\u0000\u0001not an HTTP response at all\r\n\r\n');
        return;
      case 'ok':
        break;
    }
    if (opts.handle?.(req, res)) return;
    if (req.method !== 'GET' || path !== discovery) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"kind":"Status","status":"Failure","code":404}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${opts.group}/${opts.version}`,
        resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get'] }],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return upstream;
}
