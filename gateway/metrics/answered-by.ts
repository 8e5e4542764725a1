// Which component made a request's answer, for the request metrics' `component` label. kube-aggregator's proxy
// handler records the answers it makes itself (a 503 for an unavailable or unreachable APIService) under
// component="aggregator", apart from what the server behind the APIService answered. Kept apart from
// request-metrics.ts so that the proxy can mark a request without importing the metrics filter.
import type { Context } from 'koa';

export type AnsweringComponent = 'apiserver' | 'aggregator';

const ANSWERED_BY = Symbol('answered-by');

interface AnsweredByState {
  [ANSWERED_BY]?: AnsweringComponent;
}

/** The aggregator answers this request itself rather than proxying it (set before the answer is written). */
export function markAnsweredByAggregator(ctx: Context): void {
  (ctx.state as AnsweredByState)[ANSWERED_BY] = 'aggregator';
}

export function answeredBy(ctx: Context): AnsweringComponent {
  return (ctx.state as AnsweredByState)[ANSWERED_BY] ?? 'apiserver';
}
