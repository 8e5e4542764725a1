// The shape of a controller that reconciles a whole collection at once: an informer keeps every object of one resource
// by name, and any change schedules a pass over all of them. Passes run one at a time (a change during a pass asks for
// one more after it), and a pass that failed somewhere runs again after retryMs, so a write lost to a conflict or an
// outage is retried without waiting for the next change.
import type { KObject } from '../../api/meta/types.js';
import type { ResourceStore } from '../registry/store.js';
import { startInformer } from './informer.js';
import type { Controller } from './namespace-lifecycle.js';

/**
 * One pass over the collection by name; resolves false when some write failed and the pass should run again.
 * `stopped()` turns true when the controller is stopping: a long pass checks it between writes.
 */
export type ReconcilePass = (objects: ReadonlyMap<string, KObject>, stopped: () => boolean) => Promise<boolean>;

export interface CachedReconciler extends Controller {
  /** Resolves once the first pass has ended, whether or not every write in it succeeded. */
  readonly firstPass: Promise<void>;
  /** Asks for a pass although the collection did not change: what the pass reads beside it did. */
  requeue(): void;
}

export function startCachedReconciler(
  store: ResourceStore,
  pass: ReconcilePass,
  opts: { log: (line: string) => void; retryMs: number },
): CachedReconciler {
  const objects = new Map<string, KObject>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let passActive = false;
  let again = false;
  let listed = false;
  let markFirstPass!: () => void;
  const firstPass = new Promise<void>((resolve) => (markFirstPass = resolve));

  function schedule(delayMs = 0): void {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (passActive) {
        again = true;
        return;
      }
      running = runPass();
    }, delayMs);
  }

  async function runPass(): Promise<void> {
    passActive = true;
    let ok: boolean;
    try {
      ok = await pass(objects, () => stopped);
    } finally {
      passActive = false;
    }
    markFirstPass();
    if (again || !ok) {
      again = false;
      schedule(ok ? 0 : opts.retryMs);
    }
  }

  const informer = startInformer(
    store,
    {
      replace(list) {
        listed = true;
        objects.clear();
        for (const o of list) objects.set(o.metadata.name ?? '', o);
        schedule();
      },
      put(obj) {
        objects.set(obj.metadata.name ?? '', obj);
        schedule();
      },
      removed(obj) {
        objects.delete(obj.metadata.name ?? '');
        schedule();
      },
    },
    opts,
  );

  return {
    firstPass,
    // Before the first list a pass would take the collection for empty.
    requeue: () => {
      if (listed) schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await informer.stop();
      await running;
    },
  };
}
