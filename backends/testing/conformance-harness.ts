// Shared plumbing for the storage conformance suite: fresh stores per test, a fake clock for the history window,
// watch helpers with deadlines (a missing event fails fast instead of hanging until mocha's timeout).
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { StorageError, type Storage, type StorageErrorCode, type StorageEvent, type WatchOptions } from '../storage.js';

export interface ConformanceStorageOptions {
  /** Writes older than this leave the history: reads at their revisions and watches from them answer Expired. */
  historyWindowMs: number;
  /** Interval of progress BOOKMARK events to idle watchers with progressNotify. */
  bookmarkIntervalMs: number;
  /** How long a read at a future revision waits before TooLargeRevision. */
  notOlderThanWaitMs: number;
  /** The clock the backend must measure the history window with (unless the suite runs with clock 'real'). */
  now: () => number;
}

export type MakeStorage = (opts: ConformanceStorageOptions) => Promise<Storage>;
export type CleanupStorage = (storage: Storage) => Promise<void>;

export interface ConformanceOptions {
  /**
   * 'injected' (default): the backend measures the history window with `now`, and the suite moves that clock.
   * 'real': the backend uses its own clock, and the suite waits the (50 ms) window out.
   */
  clock?: 'injected' | 'real';
}

export interface ExpiringStorage {
  storage: Storage;
  /** Pushes every write made so far out of the history window; the backend's next call must observe that. */
  expire: () => Promise<void>;
}

export interface TestWatch {
  /** The next event; fails when none arrives within `ms` or the watch ends. */
  next(ms?: number): Promise<StorageEvent>;
  /** The next `n` events. */
  take(n: number, ms?: number): Promise<StorageEvent[]>;
  /** The raw next step, for asserting that the watch ends or throws. */
  step(ms?: number): Promise<IteratorResult<StorageEvent>>;
  abort(): void;
}

export interface Harness {
  /** A fresh store whose history window never passes during a test. */
  storage(): Promise<Storage>;
  /** A fresh store with a 50 ms window and a way to push history out of it. */
  expiring(): Promise<ExpiringStorage>;
  watch(storage: Storage, key: string, opts: WatchOptions): TestWatch;
  teardown(): Promise<void>;
}

export const DEADLINE_MS = 2_000;
export const WAIT_MS = 50;
const SHORT_WINDOW_MS = 50;

/**
 * Attempts a mutation of an object a backend returned. Returned objects may be shared and deep-frozen (storage.ts):
 * writing through them must either throw (a TypeError, as strict-mode code gets from a frozen object) or touch only
 * a private copy; the caller then checks that stored state is unchanged.
 */
export function tryMutate(mutate: () => void): void {
  try {
    mutate();
  } catch (e) {
    expect(e).to.be.instanceOf(TypeError);
  }
}

export function key(ns: string, name: string): string {
  return `/registry/configmaps/${ns}/${name}`;
}

export const PREFIX = '/registry/configmaps/';

export function configMap(
  name: string,
  data: Record<string, string> = {},
  labels: Record<string, string> = {},
  ns = 'ns1',
): KObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, labels },
    data,
  };
}

export function rv(obj: KObject | undefined): bigint {
  const value = obj?.metadata.resourceVersion;
  expect(value, 'metadata.resourceVersion')
    .to.be.a('string')
    .that.matches(/^[1-9]\d*$/);
  return BigInt(value!);
}

export function dataOf(obj: KObject | undefined): Record<string, string> {
  return (obj?.data ?? {}) as Record<string, string>;
}

export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Awaits a rejection with the given StorageError code and returns the error for further checks. */
export async function expectCode(promise: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  let outcome: unknown;
  try {
    outcome = await within(promise, DEADLINE_MS, `StorageError ${code}`);
  } catch (e) {
    expect(e, `expected StorageError ${code}, got ${String(e)}`).to.be.instanceOf(StorageError);
    expect((e as StorageError).code).to.equal(code);
    return e as StorageError;
  }
  expect.fail(
    `expected StorageError ${code}, resolved with ${JSON.stringify(outcome, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`,
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function createHarness(
  makeStorage: MakeStorage,
  cleanup: CleanupStorage | undefined,
  options: ConformanceOptions,
): Harness {
  const stores: Storage[] = [];
  const controllers: AbortController[] = [];
  const realClock = options.clock === 'real';

  async function make(historyWindowMs: number, now: () => number): Promise<Storage> {
    const storage = await makeStorage({ historyWindowMs, bookmarkIntervalMs: 20, notOlderThanWaitMs: WAIT_MS, now });
    stores.push(storage);
    return storage;
  }

  return {
    storage: () => make(60 * 60_000, Date.now),

    async expiring() {
      let offset = 0;
      const storage = await make(SHORT_WINDOW_MS, () => Date.now() + offset);
      return {
        storage,
        async expire() {
          if (realClock) await sleep(SHORT_WINDOW_MS * 3);
          else offset += SHORT_WINDOW_MS * 10;
        },
      };
    },

    watch(storage, watchKey, opts) {
      const controller = new AbortController();
      controllers.push(controller);
      const iterator = storage.watch(watchKey, opts, controller.signal)[Symbol.asyncIterator]();
      const step = (ms = DEADLINE_MS): Promise<IteratorResult<StorageEvent>> =>
        within(iterator.next(), ms, `a watch event on ${watchKey}`);
      const next = async (ms?: number): Promise<StorageEvent> => {
        const result = await step(ms);
        if (result.done) expect.fail(`watch on ${watchKey} ended while an event was expected`);
        return result.value;
      };
      return {
        step,
        next,
        async take(n, ms) {
          const events: StorageEvent[] = [];
          while (events.length < n) events.push(await next(ms));
          return events;
        },
        abort: () => controller.abort(),
      };
    },

    async teardown() {
      for (const c of controllers.splice(0)) c.abort();
      for (const s of stores.splice(0)) {
        await s.close();
        await cleanup?.(s);
      }
    },
  };
}
