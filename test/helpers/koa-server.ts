// Serves a Koa app over real HTTP on 127.0.0.1 and a free port, for middleware tests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Context, Next } from 'koa';
import { isStatusError } from '../../api/meta/errors.js';

export interface TestResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json(): any;
}

export interface TestServer {
  url: string;
  request(method: string, path: string, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

/** Renders StatusError as the Status JSON the real status filter produces, for tests that mount filters alone. */
export async function renderStatusErrors(ctx: Context, next: Next): Promise<void> {
  try {
    await next();
  } catch (e) {
    if (!isStatusError(e)) throw e;
    ctx.status = e.code;
    ctx.body = e.toStatus();
  }
}

export async function serveKoa(app: Koa): Promise<TestServer> {
  const handle = app.callback();
  // Koa's handler answers its own failures (ctx.onerror), so the promise it returns is not the server's to await.
  const server = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    request(method, path, headers = {}) {
      return new Promise((resolve, reject) => {
        const req = http.request(`${url}${path}`, { method, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body,
              text: body.toString('utf8'),
              json: () => JSON.parse(body.toString('utf8')),
            });
          });
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
