// Open watches by resource and namespace, counted as the priority and fairness filter admits them: the mutating
// work estimator asks how many watchers a write will notify (upstream keeps the same count in its filter, its
// WatchTracker). A write in a namespace reaches that namespace's watches and the ones across all namespaces.
import type { RequestInfo } from '../request/request-info.js';

export class WatchCount {
  private readonly counts = new Map<string, number>();

  private static key(info: RequestInfo, namespace: string): string {
    return `${info.apiGroup}/${info.resource}/${namespace}`;
  }

  /** Counts the watch as open; the returned function counts it closed (once, whatever calls it again). */
  opened(info: RequestInfo): () => void {
    const key = WatchCount.key(info, info.namespace);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left === 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
  }

  /** The watches a write to this request's resource and namespace is sent to. */
  watchers(info: RequestInfo): number {
    const all = this.counts.get(WatchCount.key(info, '')) ?? 0;
    return info.namespace === '' ? all : all + (this.counts.get(WatchCount.key(info, info.namespace)) ?? 0);
  }
}
