// The zero-setup default backend: the memory MVCC backend as the live state, made durable by an append-only log in
// the data dir (see the README for why this and not an embedded PostgreSQL). Every commit appends one record; the
// memory backend reveals a write to readers, watchers and its writer only once the record is fsynced (group commit,
// log-file.ts), so nothing a crash loses was ever seen and no revision is handed out twice.
//
// On start the log is replayed with the original revisions and write times: objects, resource versions and the
// history window survive a restart, and a watch from a revision written before it continues. A torn last record
// (crash mid-append) fails its checksum and is dropped; the log is rewritten as a snapshot whenever it has doubled,
// which keeps start-up time and size proportional to the live state plus the history window.
import { readFile, readdir, realpath, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { KObject } from '../../api/meta/types.js';
import { createMemoryStorage, type MemoryStorage } from '../memory/memory-storage.js';
import type { RevisionHistory } from '../memory/revision-history.js';
import type { Storage } from '../storage.js';
import { lockDataDir } from './data-dir-lock.js';
import { openLogWriter, writeSnapshotFile, type LogWriter } from './log-file.js';
import { corrupt, decodeHeader, decodeRecord, frame, scanFrames, snapshotFrames, writeRecord } from './record-codec.js';
import { makeDirectory } from '../make-directory.js';

export interface EmbeddedStorageOptions {
  /** Directory holding the log and the lock; created when missing. */
  dataDir: string;
  /** How long writes stay readable at their revision and replayable to watchers. Default 5 minutes. */
  historyWindowMs?: number;
  /** Clock for the history window and the recorded write times. */
  now?: () => number;
  bookmarkIntervalMs?: number;
  notOlderThanWaitMs?: number;
  watchBufferLimit?: number;
  /** The log is rewritten as a snapshot once it exceeds max(this, 2 x the last snapshot). Default 8 MiB. */
  rewriteMinBytes?: number;
  /** Where start-up and rewrite notes and warnings go. Default stderr. */
  log?: (line: string) => void;
}

export const LOG_FILE = 'storage.log';
export const LOCK_FILE = 'storage.lock';

/** The store a fresh data dir starts with: the memory backend's initial revision, nothing in it. */
const EMPTY = { compacted: 1n, base: [], entries: [] };

interface Loaded {
  /** The compaction mark of the snapshot the file starts with. */
  compacted: bigint;
  validBytes: number;
  tornBytes: number;
  records: number;
  seed: (history: Pick<RevisionHistory, 'restore' | 'replay'>) => void;
}

async function load(path: string): Promise<Loaded> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    await writeSnapshotFile(path, snapshotFrames(EMPTY));
    data = await readFile(path);
  }
  const { payloads, validBytes } = scanFrames(data);
  const header = decodeHeader(payloads[0]);
  // The snapshot part was written whole and renamed into place, so damage there is not a torn append.
  if (payloads.length < 1 + header.records)
    throw corrupt(`the snapshot holds ${payloads.length - 1} of its ${header.records} records`);
  return {
    compacted: header.compacted,
    validBytes,
    tornBytes: data.length - validBytes,
    records: payloads.length - 1,
    seed(history) {
      const base: { key: string; object: KObject }[] = [];
      let restored = false;
      for (let i = 1; i < payloads.length; i++) {
        const record = decodeRecord(payloads[i], i);
        if (record.type === 'BASE') {
          if (restored || i > header.records)
            throw corrupt(`base object ${record.key} (record ${i}) outside the snapshot`);
          base.push(record);
          continue;
        }
        if (!restored) {
          history.restore(header.compacted, base);
          restored = true;
        }
        const entry = history.replay(record);
        if (entry.type !== record.type) throw corrupt(`record ${i} is ${record.type} but replays as ${entry.type}`);
      }
      if (!restored) history.restore(header.compacted, base);
    },
  };
}

export async function createEmbeddedStorage(opts: EmbeddedStorageOptions): Promise<Storage> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const rewriteMinBytes = opts.rewriteMinBytes ?? 8 << 20;
  await makeDirectory(opts.dataDir, 0o700);
  // The canonical path, so two spellings of one dir in one process still meet at the same lock.
  const dataDir = await realpath(opts.dataDir);
  const path = join(dataDir, LOG_FILE);
  const lock = await lockDataDir(join(dataDir, LOCK_FILE), `the embedded storage in ${dataDir}`);
  let writer: LogWriter | undefined;
  try {
    // A temp file is a rewrite a crash interrupted before its rename; the log itself is still whole.
    await rm(`${path}.tmp`, { force: true });
    const started = performance.now();
    const loaded = await load(path);
    const memory: MemoryStorage = createMemoryStorage({
      historyWindowMs: opts.historyWindowMs,
      now: opts.now,
      bookmarkIntervalMs: opts.bookmarkIntervalMs,
      notOlderThanWaitMs: opts.notOlderThanWaitMs,
      watchBufferLimit: opts.watchBufferLimit,
      seed: loaded.seed,
      persist: (entry) => writer!.append(entry.revision, frame(writeRecord(entry))),
    });
    const revision = await memory.currentRevision();
    if (loaded.tornBytes > 0) {
      // After a crash these are writes never acknowledged; without one, the file was damaged and this loses data.
      log(
        `warning: embedded storage: dropped ${loaded.tornBytes} bytes after the last intact record of ${path} (a write torn by a crash)`,
      );
    }
    // Records a snapshot would keep now; the rest is history that left the window, possibly while the server was
    // down. Scaling the file by that ratio estimates the snapshot's size without writing it.
    const { base, entries } = memory.snapshot(revision);
    const needed = base.length + entries.length;
    writer = await openLogWriter({
      path,
      validBytes: loaded.validBytes,
      revision,
      snapshot: (upTo) => snapshotFrames(memory.snapshot(upTo)),
      rewriteMinBytes,
      snapshotBytes: Math.ceil((loaded.validBytes * needed) / Math.max(loaded.records, 1)),
      compacted: () => memory.compactedNow(),
      snapshotCompacted: loaded.compacted,
      log,
    });
    log(
      `embedded storage: loaded ${loaded.records} records (${loaded.validBytes} bytes) from ${path} at revision ${revision} in ${(performance.now() - started).toFixed(0)} ms`,
    );
    if (writer.due()) await writer.rewrite();
    const durable = writer;
    return {
      ...memory,
      storageStats: async () => ({ sizeBytes: await directoryBytes(dataDir) }),
      async close() {
        await memory.close();
        try {
          await durable.close();
        } catch (e) {
          log(
            `warning: embedded storage: the log failed earlier, writes after the failure were not acknowledged: ${(e as Error).message}`,
          );
        } finally {
          await lock.release();
        }
      },
    };
  } catch (e) {
    await writer?.close().catch(() => undefined);
    await lock.release();
    throw e;
  }
}

/**
 * The bytes of the data directory's files: the log, and a rewrite's temp file while one runs (both are on disk then).
 * A file removed between the listing and its stat (the rename that ends a rewrite) counts as nothing.
 */
async function directoryBytes(dir: string): Promise<number> {
  const names = await readdir(dir);
  const sizes = await Promise.all(
    names.map((name) =>
      stat(join(dir, name)).then(
        (s) => (s.isFile() ? s.size : 0),
        () => 0,
      ),
    ),
  );
  return sizes.reduce((a, b) => a + b, 0);
}
