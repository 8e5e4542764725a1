// A bare TLS front for aggregation-probe.ts's baseline: every request passed to one upstream over kept TLS
// connections (keep-alive agent, no Nagle delay), with nothing else of a server around it: no authentication, no
// filters, no header rewriting. `http-proxy` passes it through http-proxy, as the aggregator's proxy does; `pipe`
// through a hand-written https.request piped both ways, to tell what http-proxy adds from what any Node hop adds.
// Usage: bare-proxy.ts <http-proxy|pipe> <upstream URL> <upstream CA file> <cert dir>
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import httpProxy from 'http-proxy';
import { loadOrCreateCertificates } from '../gateway/server/certs.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function httpProxyHandler(upstream: URL, ca: string, agent: https.Agent): Handler {
  // http-proxy takes the CA from the target, not from `ssl`.
  const target = { protocol: 'https:', host: upstream.hostname, port: upstream.port, ca } as httpProxy.ProxyTarget;
  const proxy = httpProxy.createProxyServer({ target, agent, secure: true });
  // A streamed answer's headers go out at once, as the aggregator's proxy sends them.
  proxy.on('proxyRes', (proxyRes, _req, res) => {
    if (proxyRes.headers['content-length'] === undefined) queueMicrotask(() => res.flushHeaders());
  });
  return (req, res) =>
    proxy.web(req, res, {}, (err) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(err.message);
    });
}

function pipeHandler(upstream: URL, ca: string, agent: https.Agent): Handler {
  return (req, res) => {
    const out = https.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
        ca,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (answer.headers['content-length'] === undefined) res.flushHeaders();
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => out.destroy());
    req.pipe(out);
  };
}

async function main(): Promise<void> {
  const [mode, upstreamUrl, caFile, certDir] = process.argv.slice(2);
  if (!certDir || (mode !== 'http-proxy' && mode !== 'pipe'))
    throw new Error('usage: bare-proxy.ts <http-proxy|pipe> <upstream URL> <upstream CA file> <cert dir>');
  const upstream = new URL(upstreamUrl);
  const ca = readFileSync(caFile, 'utf8');
  const agent = new https.Agent({ keepAlive: true, noDelay: true });
  const certs = await loadOrCreateCertificates({ certDir, bindAddress: '127.0.0.1' });
  const handler = (mode === 'pipe' ? pipeHandler : httpProxyHandler)(upstream, ca, agent);
  const server = https.createServer(
    { cert: certs.certPem, key: certs.keyPem, minVersion: 'TLSv1.2', noDelay: true },
    handler,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`bare proxy (${mode}) on https://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    agent.destroy();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((e: Error) => {
  process.stderr.write(`Error: ${e.message}\n`);
  process.exit(1);
});
