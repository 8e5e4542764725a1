// The webhook backend (--audit-webhook-config-file, kubeconfig format): events are POSTed as an EventList through
// the authorization webhook's client. A failed delivery (no answer, or an answer that is not 2xx) is retried with
// exponential backoff when it may pass on a second try (no answer, 429, 5xx); a 4xx is final.
import { loadWebhookClientConfig } from '../../policies/webhook/client-config.js';
import { backoffDelay, DEFAULT_RETRY_BACKOFF, pause, type RetryBackoff } from '../../policies/webhook/backoff.js';
import { createJsonPoster } from '../../policies/webhook/post-json.js';
import type { BatchSender } from './buffered.js';

export interface WebhookSenderOptions {
  configFile: string;
  /** The wait before the first retry; each next one longer by upstream's webhook backoff, up to RETRIES. */
  initialBackoffMs: number;
  /** The EventList's apiVersion, the events' own (--audit-webhook-version). */
  version: string;
  /** One POST's bound. */
  timeoutMs?: number;
}

const RETRIES = 4;

class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retriable: boolean,
  ) {
    super(message);
  }
}

export function createWebhookSender(opts: WebhookSenderOptions): BatchSender {
  const poster = createJsonPoster(loadWebhookClientConfig(opts.configFile));
  const closing = new AbortController();
  const timeoutMs = opts.timeoutMs ?? 30_000;

  const postOnce = async (body: string): Promise<void> => {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    let status: number;
    try {
      status = (await poster.postText(body, AbortSignal.any([closing.signal, timeout.signal]))).status;
    } catch (e) {
      throw new DeliveryError(`the audit webhook did not answer: ${(e as Error).message}`, !closing.signal.aborted);
    } finally {
      clearTimeout(timer);
    }
    if (status >= 200 && status < 300) return;
    throw new DeliveryError(`the audit webhook answered ${status}`, status === 429 || status >= 500);
  };
  const backoff: RetryBackoff = { ...DEFAULT_RETRY_BACKOFF, initialMs: opts.initialBackoffMs, steps: RETRIES + 1 };

  return {
    name: 'webhook',
    async send(lines) {
      const body = `{"kind":"EventList","apiVersion":"${opts.version}","metadata":{},"items":[${lines.join(',')}]}`;
      for (let attempt = 1; ; attempt++) {
        try {
          return await postOnce(body);
        } catch (e) {
          if (!(e instanceof DeliveryError) || !e.retriable || attempt >= backoff.steps || closing.signal.aborted)
            throw e;
        }
        await pause(backoffDelay(backoff, attempt), closing.signal);
      }
    },
    close() {
      closing.abort();
      poster.close();
      return Promise.resolve();
    },
  };
}
