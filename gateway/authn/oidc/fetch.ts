// A minimal fetch over node:https that trusts a given CA bundle (--oidc-ca-file, issuer.certificateAuthority). Node
// 20's global fetch cannot take a per-request CA, so discovery documents and key sets are fetched through this one
// (jose accepts it through its customFetch symbol). HTTPS only, no redirects followed, bodies capped, every request
// bounded by the caller's AbortSignal.
import https from 'node:https';

export type HttpsFetch = (
  url: string,
  init: { headers?: Headers | Record<string, string>; signal?: AbortSignal; method?: string },
) => Promise<Response>;

/** Larger than any real discovery document or key set; protects memory from a misbehaving endpoint. */
export const MAX_BODY_BYTES = 1 << 20;

/** `caPems` undefined trusts Node's default roots, as Go's system pool. */
export function createHttpsFetch(caPems?: string[]): HttpsFetch {
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      if (target.protocol !== 'https:') {
        reject(new Error(`refusing to fetch ${target.origin}${target.pathname}: only https is allowed`));
        return;
      }
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, key) => {
        headers[key] = value;
      });
      const req = https.request(
        target,
        {
          method: init.method ?? 'GET',
          headers,
          ca: caPems,
          agent: false,
          signal: init.signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) {
              res.destroy(
                new Error(`response from ${target.origin}${target.pathname} exceeds ${MAX_BODY_BYTES} bytes`),
              );
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('end', () => {
            const responseHeaders = new Headers();
            for (const [key, value] of Object.entries(res.headers)) {
              if (typeof value === 'string') responseHeaders.set(key, value);
              else if (Array.isArray(value)) for (const v of value) responseHeaders.append(key, v);
            }
            const status = res.statusCode ?? 500;
            // Response refuses a body for these statuses.
            const body = [101, 204, 205, 304].includes(status) ? null : Buffer.concat(chunks);
            resolve(new Response(body, { status, statusText: res.statusMessage, headers: responseHeaders }));
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
}
