// The embedded backend's append-only log file with group commit and atomic rewrites.
//
// Group commit: records queue while a write + fdatasync is in flight and go to disk together in the next one, so N
// concurrent writers share one fsync instead of paying N. A record's promise resolves only after the fsync that
// covers it, and records reach the file in the order they were appended (revision order).
//
// Rewrite: when the file has grown past twice its last snapshot (and a floor) and writes have left the history
// window since that snapshot (before, a snapshot would copy the file), it is replaced by a fresh snapshot
// (base state + history window) written to a temp file, fsynced and renamed over the log, then the directory is
// fsynced. A crash at any point leaves either the old file or the new one, each complete up to the last
// acknowledged write. Appends arriving meanwhile wait (a latency blip the size of the snapshot) and land in the new
// file. A rewrite writes at most the file's size, at most twice the bytes appended since the previous rewrite, so
// rewriting at most triples the bytes written.
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { joinedChunks } from '../byte-chunks.js';

export interface LogWriterOptions {
  path: string;
  /** Bytes of intact frames in the file; anything after them (a torn tail) is cut off before appending. */
  validBytes: number;
  /** Newest revision the file holds. */
  revision: bigint;
  /** Frames of a snapshot holding everything up to `upTo` (the newest revision written); taken synchronously. */
  snapshot: (upTo: bigint) => Iterable<Buffer>;
  /** The file is rewritten once it exceeds max(this, 2 x the last snapshot). */
  rewriteMinBytes: number;
  /** Size a snapshot of the current state would have: the baseline for the first rewrite. */
  snapshotBytes: number;
  /** The store's compaction mark now (the base a snapshot would start from). */
  compacted: () => bigint;
  /** The compaction mark of the snapshot the file starts with. */
  snapshotCompacted: bigint;
  log: (line: string) => void;
}

export interface LogWriter {
  /** Queues a record for `revision`; resolves once it and every record before it are fsynced. */
  append(revision: bigint, frame: Buffer): Promise<void>;
  /** Current file size in bytes. */
  size(): number;
  /** Whether the file has grown enough since the last snapshot to be rewritten. */
  due(): boolean;
  /** Rewrites the file as a snapshot now (after the records already queued); a failure before the rename is only logged. */
  rewrite(): Promise<void>;
  /** Writes and fsyncs everything queued, then closes the file; later appends fail. */
  close(): Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Batch {
  frames: Buffer[];
  revision: bigint;
  waiters: Waiter[];
}

/** Buffered snapshot bytes per write call while rewriting: large enough to be cheap, small enough to yield often. */
const REWRITE_CHUNK_BYTES = 1 << 20;

async function writeFully(fh: FileHandle, data: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await fh.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
}

/** Makes a rename or a new file's directory entry durable; without it a crash may bring back the old name. */
export async function syncDirectory(path: string): Promise<void> {
  const dir = await open(path, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** Writes a snapshot to `${path}.tmp` and fsyncs it; returns its size. On failure the temp file is removed. */
async function writeTemp(path: string, frames: Iterable<Buffer>): Promise<number> {
  const temp = `${path}.tmp`;
  const out = await open(temp, 'w', 0o600);
  let size = 0;
  try {
    for (const chunk of joinedChunks(frames, REWRITE_CHUNK_BYTES)) {
      await writeFully(out, chunk, size);
      size += chunk.length;
    }
    await out.datasync();
  } catch (e) {
    await out.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw e;
  }
  await out.close();
  return size;
}

/** Moves the fsynced temp file over `path` and makes the rename durable. */
async function install(path: string): Promise<void> {
  await rename(`${path}.tmp`, path);
  await syncDirectory(dirname(path));
}

/** Writes a complete snapshot to `path` atomically (temp file, fsync, rename, directory fsync). */
export async function writeSnapshotFile(path: string, frames: Iterable<Buffer>): Promise<number> {
  const size = await writeTemp(path, frames);
  await install(path);
  return size;
}

export async function openLogWriter(opts: LogWriterOptions): Promise<LogWriter> {
  let fh = await open(opts.path, 'r+');
  let position = opts.validBytes;
  if ((await fh.stat()).size !== position) {
    // A torn tail from a crash: cut it off so new records do not follow garbage, and make the cut durable.
    await fh.truncate(position);
    await fh.datasync();
  }
  let written = opts.revision;
  let snapshotBytes = opts.snapshotBytes;
  let snapshotCompacted = opts.snapshotCompacted;
  let queue: Batch = { frames: [], revision: written, waiters: [] };
  let rewriteWaiters: Waiter[] = [];
  // Set while the write loop runs; `running` is its promise, which close() waits for.
  let active = false;
  let running: Promise<void> | undefined;
  let failure: Error | undefined;
  let closed = false;

  async function writeBatch(batch: Batch): Promise<void> {
    const data = batch.frames.length === 1 ? batch.frames[0] : Buffer.concat(batch.frames);
    await writeFully(fh, data, position);
    await fh.datasync();
    position += data.length;
    written = batch.revision;
  }

  /** Replaces the file with a snapshot; a failure before the rename is only logged, as the old log still stands. */
  async function rewrite(): Promise<void> {
    const started = performance.now();
    const before = position;
    // The mark the snapshot is taken at (opts.snapshot compacts first and then reads it synchronously).
    const compacted = opts.compacted();
    try {
      snapshotBytes = await writeTemp(opts.path, opts.snapshot(written));
      snapshotCompacted = compacted;
    } catch (e) {
      // The temp file is gone and the log untouched: keep appending to it and retry after it grows again.
      snapshotBytes = position;
      opts.log(
        `warning: embedded storage: rewriting ${opts.path} failed, the log keeps growing: ${(e as Error).message}`,
      );
      return;
    }
    // From the rename on, a failure is fatal: the handle would point at a file that is no longer the log.
    await install(opts.path);
    const old = fh;
    fh = await open(opts.path, 'r+');
    position = snapshotBytes;
    await old.close();
    opts.log(
      `embedded storage: rewrote ${opts.path} from ${before} to ${snapshotBytes} bytes in ${(performance.now() - started).toFixed(0)} ms`,
    );
  }

  // A snapshot holds the base at the compaction mark and every write after it. While the mark stands where the last
  // snapshot's did, a new one would hold the same base and the same writes as the file: a copy, reclaiming nothing.
  // So a file that outgrew twice its snapshot is rewritten once writes have left the history window, not before:
  // otherwise a burst of writes within one window (an import) would re-encode the whole store at every doubling.
  function due(): boolean {
    return position > Math.max(opts.rewriteMinBytes, 2 * snapshotBytes) && opts.compacted() > snapshotCompacted;
  }

  /** One step of the loop: the waiters it settles, and the work that settles them. */
  async function step(waiters: Waiter[], work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (e) {
      for (const w of waiters) w.reject(e as Error);
      throw e;
    }
    for (const w of waiters) w.resolve();
  }

  async function run(): Promise<void> {
    try {
      for (;;) {
        if (rewriteWaiters.length > 0) {
          const waiters = rewriteWaiters;
          rewriteWaiters = [];
          await step(waiters, rewrite);
        } else if (queue.waiters.length > 0) {
          const batch = queue;
          queue = { frames: [], revision: written, waiters: [] };
          await step(batch.waiters, () => writeBatch(batch));
          // Rewrite between batches rather than starve: the records queued meanwhile follow in the new file.
          if (due() && !closed) await rewrite();
          // Let the writers just acknowledged run on to their next record, so they share the next fsync instead of
          // splitting into two half-full groups.
          await new Promise((resolve) => setImmediate(resolve));
        } else {
          return;
        }
      }
    } catch (e) {
      // After a failed write or fsync the file's content is unknown (the kernel may have dropped the dirty pages),
      // so nothing more is acknowledged: the store must be reopened, which replays what really is on disk.
      failure ??= e as Error;
      for (const w of [...queue.waiters, ...rewriteWaiters]) w.reject(failure);
      queue = { frames: [], revision: written, waiters: [] };
      rewriteWaiters = [];
    } finally {
      active = false;
    }
  }

  function enqueue(into: (w: Waiter) => void): Promise<void> {
    if (failure) return Promise.reject(failure);
    if (closed) return Promise.reject(new Error('the log file is closed'));
    const done = new Promise<void>((resolve, reject) => into({ resolve, reject }));
    if (!active) {
      active = true;
      running = run();
    }
    return done;
  }

  return {
    append(revision, data) {
      return enqueue((w) => {
        queue.frames.push(data);
        queue.revision = revision;
        queue.waiters.push(w);
      });
    },
    size: () => position,
    due,
    rewrite() {
      return enqueue((w) => rewriteWaiters.push(w));
    },
    async close() {
      if (closed) return;
      closed = true;
      while (active) await running;
      await fh.close();
      if (failure) throw failure;
    },
  };
}
