// Bounds every request except long-running ones (watches) by --request-timeout: a request stuck on an unavailable
// backend answers 504 instead of hanging the client. The handler may still finish in the background; its late
// result is dropped, as upstream's timeout filter drops it.
import type { Context, Next } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { requestInfoOf } from './request-info.js';

export function createTimeoutFilter(timeoutMs: number) {
  return function timeoutFilter(ctx: Context, next: Next): Promise<void> {
    if (timeoutMs <= 0 || requestInfoOf(ctx).verb === 'watch') return next();
    // One promise settled by whichever comes first (cheaper per request than racing two): once the deadline
    // rejected it, the handler's own late result or failure has nobody left to hear it and settles nothing.
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(errors.timeout('the server was unable to return a response in the time allotted, but may still be processing the request')), timeoutMs);
      next().then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  };
}
