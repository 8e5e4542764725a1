// One HTTPS POST of a JSON body with the webhook's TLS and bearer settings, bounded by an AbortSignal. Resolves with
// the status code and body text of any answer; rejects when no complete answer arrives (refused, reset, aborted).
import http from 'node:http';
import https from 'node:https';
import type { WebhookClientConfig } from './client-config.js';

/** Answers bigger than this are not reviews: the call fails rather than buffering without bound. */
const MAX_RESPONSE_BYTES = 1 << 20;

export interface JsonResponse {
  status: number;
  text: string;
}

export interface JsonPoster {
  post(body: unknown, signal: AbortSignal): Promise<JsonResponse>;
  /** The same with the body already encoded (the audit webhook joins events it encoded once). */
  postText(json: string, signal: AbortSignal): Promise<JsonResponse>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

export function createJsonPoster(config: WebhookClientConfig): JsonPoster {
  const secure = config.server.protocol === 'https:';
  const agent = secure
    ? new https.Agent({
        keepAlive: true,
        ca: config.ca,
        cert: config.cert,
        key: config.key,
        rejectUnauthorized: !config.insecureSkipTlsVerify,
        minVersion: 'TLSv1.2',
      })
    : new http.Agent({ keepAlive: true });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (config.token) headers.authorization = `Bearer ${config.token}`;
  const postText = (json: string, signal: AbortSignal): Promise<JsonResponse> => {
    const payload = Buffer.from(json);
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const request = (secure ? https.request : http.request)(
        config.server,
        {
          method: 'POST',
          agent,
          headers: { ...headers, 'content-length': String(payload.length) },
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) request.destroy(new Error(`answer larger than ${MAX_RESPONSE_BYTES} bytes`));
            else chunks.push(c);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
          res.on('aborted', () => reject(new Error('the connection closed before the answer was complete')));
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  };
  return {
    post: (body, signal) => postText(JSON.stringify(body), signal),
    postText,
    close: () => agent.destroy(),
  };
}
