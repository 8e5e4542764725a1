// Bounds every request except long-running ones (upstream's check: watches, and the streaming subresources a remote
// APIService may serve, exec, attach, portforward, log, proxy) by --request-timeout: a request stuck on an
// unavailable backend answers 504 instead of hanging the client. The handler may still finish in the background; its
// late result is dropped, as upstream's timeout filter drops it.
//
// One limit for every request means arrival order is deadline order: the open requests sit in a Set (which iterates
// in insertion order) and one timer, armed for the oldest, sweeps out the expired ones, cheaper than a timer created
// and cleared for every request.
import type { Context, Next } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { requestInfoOf } from '../request/request-info.js';
import { isLongRunning } from './max-in-flight.js';
import { realClock, type Clock } from '../server/clock.js';

interface OpenRequest {
  readonly ctx: Context;
  readonly deadline: number;
  readonly reject: (e: unknown) => void;
}

/**
 * `onTimeout` hears of each request the filter answered 504 (the request metrics count it as a termination), at the
 * moment it does, so that nothing has to wrap the filter to tell its 504 from a handler's.
 */
export function createTimeoutFilter(
  timeoutMs: number,
  clock: Clock = realClock,
  onTimeout?: (ctx: Context, code: number) => void,
) {
  const open = new Set<OpenRequest>();
  /** Cancels the armed sweep; undefined when none is armed. */
  let sweeper: (() => void) | undefined;

  function arm(): void {
    const oldest = open.values().next();
    if (oldest.done) {
      sweeper = undefined;
      return;
    }
    // Unreferenced (the clock's timers are): the open requests' own sockets keep the process alive, an idle server's
    // sweeper must not.
    sweeper = clock.setTimeout(sweep, Math.max(0, oldest.value.deadline - clock.monotonic()));
  }

  function sweep(): void {
    const now = clock.monotonic();
    for (const request of open) {
      if (request.deadline > now) break;
      open.delete(request);
      const timeout = errors.timeout(
        'the server was unable to return a response in the time allotted, but may still be processing the request',
      );
      onTimeout?.(request.ctx, timeout.code);
      request.reject(timeout);
    }
    arm();
  }

  return function timeoutFilter(ctx: Context, next: Next): Promise<void> {
    if (timeoutMs <= 0 || isLongRunning(requestInfoOf(ctx))) return next();
    // One promise settled by whichever comes first: once the sweep rejected it, the handler's own late result or
    // failure has nobody left to hear it and settles nothing.
    return new Promise<void>((resolve, reject) => {
      const request: OpenRequest = { ctx, deadline: clock.monotonic() + timeoutMs, reject };
      open.add(request);
      if (!sweeper) arm();
      next().then(
        () => {
          open.delete(request);
          resolve();
        },
        (e: unknown) => {
          open.delete(request);
          reject(e);
        },
      );
    });
  };
}
