// The compactor keeps the history window. It picks the cut C = the newest row written before the window, then in
// one transaction deletes every row superseded by a row of the same key at or below C, and every tombstone at or
// below C, and records C as the compacted revision. The state at C stays whole (the newest row per key at or
// below C survives, or was a tombstone, which reads as absent anyway), and every row above C survives, so reads at
// C and watches from C work while anything below answers Expired, on every replica alike.
//
// The newest row of the whole log is never deleted: max(revision) is the store's current revision. Replicas may
// all run it: a transaction-scoped try-lock lets one at a time do the work and the others skip.
import { StorageError } from '../storage.js';
import { toStorageError } from './errors.js';
import { COMPACT_LOCK } from './schema.js';
import type { Sessions } from './transaction.js';

export interface CompactorOptions {
  sessions: Sessions;
  historyWindowMs: number;
  now: () => number;
  log: (line: string) => void;
  /** Called after a pass of this instance committed a new compaction mark, so the read cache follows at once. */
  compacted?: (mark: bigint) => void;
}

export interface Compactor {
  /** Compacts now unless a pass ran within the window (by this clock); concurrent callers share one pass. */
  maybeCompact(): Promise<void>;
  /** Runs one pass; resolves when it is done (or skipped because another replica holds the lock). */
  compact(): Promise<void>;
  close(): void;
}

export function createCompactor(opts: CompactorOptions): Compactor {
  const { sessions } = opts;
  let lastRun = opts.now();
  let running: Promise<void> | undefined;
  let closed = false;

  /** One pass; the new compaction mark once committed, or undefined when there was nothing to do. */
  async function pass(): Promise<bigint | undefined> {
    const cutoff = opts.now() - opts.historyWindowMs;
    return sessions.transaction(async (tx) => {
      const [{ locked }] = await tx<
        { locked: boolean }[]
      >`SELECT pg_try_advisory_xact_lock(${COMPACT_LOCK.toString()}::bigint) AS locked`;
      if (!locked) return undefined;
      const [state] = await tx<{ old: bigint; cut: bigint | null; top: bigint | null }[]>`
        SELECT (SELECT revision FROM gatehouse_compaction WHERE id = 1) AS old,
               (SELECT revision FROM gatehouse_log WHERE written_at < ${cutoff.toString()}::bigint
                ORDER BY written_at DESC, revision DESC LIMIT 1) AS cut,
               (SELECT max(revision) FROM gatehouse_log) AS top`;
      if (state.cut === null || state.cut <= state.old) return undefined;
      const cut = state.cut.toString();
      // Rows superseded within (old, C]; rows superseded at or below the old cut went in earlier passes.
      const superseded = await tx`
        DELETE FROM gatehouse_log l USING gatehouse_log y
        WHERE y.revision > ${state.old.toString()}::bigint AND y.revision <= ${cut}::bigint
          AND l.key = y.key AND l.revision < y.revision`;
      const tombstones = await tx`
        DELETE FROM gatehouse_log WHERE deleted AND revision <= ${cut}::bigint AND revision < ${(state.top ?? 0n).toString()}::bigint`;
      await tx`UPDATE gatehouse_compaction SET revision = ${cut}::bigint WHERE id = 1 AND revision < ${cut}::bigint`;
      if (superseded.count + tombstones.count > 0) {
        opts.log(
          `postgres storage: compacted to revision ${cut}: ${superseded.count} superseded rows, ${tombstones.count} tombstones`,
        );
      }
      return state.cut;
    });
  }

  function compact(): Promise<void> {
    if (closed) return Promise.resolve();
    running ??= (async () => {
      lastRun = opts.now();
      try {
        const mark = await pass();
        if (mark !== undefined) opts.compacted?.(mark);
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  // Frequent enough that the window is kept to about a tenth of its length, rare enough to cost nothing.
  const interval = Math.min(60_000, Math.max(1_000, Math.floor(opts.historyWindowMs / 10)));
  const timer = setInterval(() => {
    compact().catch((e: unknown) => {
      const error = toStorageError(e);
      if (!(error instanceof StorageError && error.code === 'Unavailable'))
        opts.log(`error: postgres storage: compaction failed: ${(e as Error).message}`);
    });
  }, interval);
  timer.unref();

  return {
    async maybeCompact() {
      if (running) return running;
      if (opts.now() - lastRun >= opts.historyWindowMs) return compact();
    },
    compact,
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
