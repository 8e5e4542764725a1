// Bounds every request except long-running ones (watches) by --request-timeout: a request stuck on an unavailable
// backend answers 504 instead of hanging the client. The handler may still finish in the background; its late
// result is dropped, as upstream's timeout filter drops it.
import type { Context, Next } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { requestInfoOf } from './request-info.js';

export function createTimeoutFilter(timeoutMs: number) {
  return async function timeoutFilter(ctx: Context, next: Next): Promise<void> {
    if (timeoutMs <= 0 || requestInfoOf(ctx).verb === 'watch') return next();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(errors.timeout('the server was unable to return a response in the time allotted, but may still be processing the request')), timeoutMs);
    });
    const work = next();
    // The handler's own failure after the deadline has nobody left to hear it.
    work.catch(() => undefined);
    try {
      await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
