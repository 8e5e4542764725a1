// Size-based rotation of the audit log, as kube-apiserver's (lumberjack): a write that would take the file past
// maxSize moves it aside as `<name>-<UTC time>.<ext>` and starts a new one; backups beyond maxBackups (newest kept)
// or older than maxAge days are removed, and with compress each backup is gzipped. The rename keeps the old stream's
// file descriptor, so lines already queued on it still land in the backup they belong to.
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  statSync,
  type WriteStream,
} from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';

export interface RotationSettings {
  /** Bytes; 0: never rotate. */
  maxSizeBytes: number;
  /** 0: keep every backup (as far as maxAge allows). */
  maxBackups: number;
  /** Days; 0: no age limit. */
  maxAgeDays: number;
  compress: boolean;
}

export interface RotatingFile {
  write(text: string, done: (err?: Error | null) => void): void;
  close(): Promise<void>;
}

/** lumberjack's backup time format, 2006-01-02T15-04-05.000, in UTC. */
function backupName(file: string, now: Date): string {
  const ext = path.extname(file);
  const stamp = now.toISOString().replace(/:/g, '-').replace('Z', '');
  return path.join(path.dirname(file), `${path.basename(file, ext)}-${stamp}${ext}`);
}

export function openRotatingFile(
  file: string,
  settings: RotationSettings,
  onError: (err: Error) => void,
): RotatingFile {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const open = (): WriteStream => {
    // Audit events carry user names and request details: readable by the owner only, as upstream's 0600.
    const s = createWriteStream(file, { flags: 'a', mode: 0o600 });
    // Each write's callback reports its failure; the stream's own event would otherwise end the process.
    s.on('error', () => {});
    return s;
  };
  let stream = open();
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    // A new file.
  }
  let housekeeping: Promise<void> = Promise.resolve();
  // Backups whose old stream still writes: housekeeping leaves them to the run that follows their closing.
  const stillWritten = new Set<string>();
  let lastBackupMs = 0;

  const ext = path.extname(file);
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const backup = new RegExp(
    `^${escape(path.basename(file, ext))}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}${escape(ext)}(\\.gz)?$`,
  );
  const tidy = async (): Promise<void> => {
    const dir = path.dirname(file);
    const names = (await readdir(dir)).filter((n) => backup.test(n) && !stillWritten.has(n));
    if (settings.compress) {
      for (const name of names.filter((n) => !n.endsWith('.gz'))) {
        const from = path.join(dir, name);
        await pipeline(createReadStream(from), createGzip(), createWriteStream(`${from}.gz`, { mode: 0o600 }));
        await rm(from);
      }
    }
    // The names sort by time: newest first.
    const backups = (await readdir(dir))
      .filter((n) => backup.test(n) && !stillWritten.has(n))
      .sort()
      .reverse();
    const cutoff = Date.now() - settings.maxAgeDays * 86_400_000;
    for (const [i, name] of backups.entries()) {
      const tooMany = settings.maxBackups > 0 && i >= settings.maxBackups;
      const tooOld = settings.maxAgeDays > 0 && (await stat(path.join(dir, name))).mtimeMs < cutoff;
      if (tooMany || tooOld) await rm(path.join(dir, name), { force: true });
    }
  };

  const rotate = (): void => {
    const old = stream;
    // Two rotations in one millisecond (or a backup left by an earlier run) must not share a name.
    let ms = Math.max(Date.now(), lastBackupMs + 1);
    while (existsSync(backupName(file, new Date(ms))) || existsSync(`${backupName(file, new Date(ms))}.gz`)) ms++;
    lastBackupMs = ms;
    const target = backupName(file, new Date(ms));
    renameSync(file, target);
    stillWritten.add(path.basename(target));
    stream = open();
    size = 0;
    const closed = new Promise<void>((resolve) => {
      old.once('close', () => {
        stillWritten.delete(path.basename(target));
        resolve();
      });
      old.end();
    });
    housekeeping = housekeeping.then(() => closed.then(tidy)).catch((e: Error) => onError(e));
  };

  return {
    write(text, done) {
      const bytes = Buffer.byteLength(text);
      if (settings.maxSizeBytes > 0 && size > 0 && size + bytes > settings.maxSizeBytes) {
        try {
          rotate();
        } catch (e) {
          onError(e as Error);
        }
      }
      size += bytes;
      if (stream.destroyed || stream.writableEnded) return done(new Error(`the audit log ${file} is closed`));
      stream.write(text, done);
    },
    async close() {
      const last = stream;
      await new Promise<void>((resolve) => {
        if (last.destroyed) return resolve();
        last.once('close', () => resolve());
        last.end();
      });
      await housekeeping;
    },
  };
}
