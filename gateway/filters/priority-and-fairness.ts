// API Priority and Fairness in the filter chain, where the simple in-flight limiter runs when it is off: after
// impersonation (the identity that counts is the one the request acts as) and before authorization (a flood waits
// or is refused before it costs authorizer calls). Every request is classified and every answer, refusals
// included, names the FlowSchema and priority level that classified it; long-running requests other than watches
// then go straight on, and a watch holds its seats only until its initial events are sent.
import type { Context, Next } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { requestInfoOf, requestQuery } from '../request/request-info.js';
import { userOf } from '../request/user.js';
import { setWatchInitializedSignal } from '../request/watch-initialization.js';
import { FlowRejection, type Dispatcher, type WhenGone } from '../flowcontrol/dispatcher.js';
import { estimateWork, type EstimatorSources } from '../flowcontrol/work-estimate.js';
import type { WatchCount } from '../flowcontrol/watch-count.js';
import { isLongRunning, TOO_MANY_REQUESTS_MESSAGE } from './max-in-flight.js';

export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';

export interface PriorityAndFairness {
  dispatcher: Dispatcher;
  /** Objects stored per resource, for the list estimates. */
  objectCount: EstimatorSources['objectCount'];
  watches: WatchCount;
  /** --request-timeout: a request waits in its queue at most a quarter of it (upstream's bound), and at most 1 min. */
  requestTimeoutMs: number;
}

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

// upstream's wait bound without a request deadline, and its hard limit.
const DEFAULT_WAIT_LIMIT_MS = 15_000;
const MAX_WAIT_LIMIT_MS = 60_000;

export function queueWaitLimitMs(requestTimeoutMs: number): number {
  return Math.min(MAX_WAIT_LIMIT_MS, requestTimeoutMs > 0 ? requestTimeoutMs / 4 : DEFAULT_WAIT_LIMIT_MS);
}

/** `onInFlight` hears the executing requests, read-only and mutating, as upstream's filter reports them too. */
export function createPriorityAndFairnessFilter(
  apf: PriorityAndFairness,
  onInFlight?: (readOnly: number, mutating: number) => void,
) {
  const executing = { readOnly: 0, mutating: 0 };
  const { dispatcher, watches } = apf;
  const sources: EstimatorSources = { objectCount: apf.objectCount, watchCount: (info) => watches.watchers(info) };
  const waitLimitMs = queueWaitLimitMs(apf.requestTimeoutMs);
  return async function priorityAndFairnessFilter(ctx: Context, next: Next): Promise<void> {
    const info = requestInfoOf(ctx);
    const user = userOf(ctx);
    const c = dispatcher.classify(user, info);
    ctx.set(FLOW_SCHEMA_UID_HEADER, c.schema.metadata.uid ?? '');
    ctx.set(PRIORITY_LEVEL_UID_HEADER, c.level.object.metadata.uid ?? '');
    const isWatch = info.isResourceRequest && info.verb === 'watch';
    if (isLongRunning(info) && !isWatch) return next();

    const estimate = estimateWork(info, requestQuery(ctx), sources, dispatcher.maxSeats(c.level));
    // A client that goes away while its request waits frees its place in the queue.
    const whenGone: WhenGone = (cancel) => {
      const onClose = (): void => {
        if (!ctx.res.writableEnded) cancel();
      };
      ctx.res.once('close', onClose);
      return () => ctx.res.off('close', onClose);
    };
    let grant;
    try {
      grant = await dispatcher.admit(
        c,
        estimate,
        { waitLimitMs, whenGone, user: user.name, verb: info.verb, path: info.path },
        estimate.finalSeats > 0 ? watches.watchers(info) : undefined,
      );
    } catch (e) {
      if (e instanceof FlowRejection) throw errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1);
      throw e;
    }
    if (!isWatch) {
      const kind = READ_ONLY_VERBS.has(info.verb) ? 'readOnly' : 'mutating';
      executing[kind]++;
      onInFlight?.(executing.readOnly, executing.mutating);
      try {
        await next();
      } finally {
        grant.finish();
        executing[kind]--;
        onInFlight?.(executing.readOnly, executing.mutating);
      }
      return;
    }
    // The watch handler answers with a stream it keeps writing after it returns: the seats go back once the initial
    // events are out, or when the stream ends first.
    const closed = watches.opened(info);
    const finish = (): void => grant.finish();
    setWatchInitializedSignal(ctx, finish);
    ctx.res.once('close', () => {
      closed();
      finish();
    });
    try {
      await next();
    } catch (e) {
      finish();
      throw e;
    }
    if (ctx.respond !== false) finish();
  };
}
