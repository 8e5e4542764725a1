// Files a server re-reads while it runs (the aggregator's endpoints table, the front-proxy client certificate):
// watched through their directories, since editors and ConfigMap mounts replace a file by rename, which a watch on the
// file itself would not survive, and re-read on a period besides, for file systems whose events do not arrive. The
// caller reads and compares the content; this only says when to look.
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

const POLL_MS = 60_000;
// A write arrives as several events (truncate, then data): the files are read once they have settled, so a file
// caught half-written is not taken for a bad one.
const SETTLE_MS = 100;

export interface WatchedFiles {
  close(): void;
}

export function watchFiles(
  files: readonly string[],
  onChange: () => void,
  opts: { log: (line: string) => void; pollMs?: number },
): WatchedFiles {
  let settleTimer: NodeJS.Timeout | undefined;
  const changed = (): void => {
    clearTimeout(settleTimer);
    settleTimer = setTimeout(onChange, SETTLE_MS);
    settleTimer.unref();
  };
  const byDirectory = new Map<string, Set<string>>();
  for (const file of files) {
    const dir = path.dirname(file);
    byDirectory.set(dir, (byDirectory.get(dir) ?? new Set()).add(path.basename(file)));
  }
  const watchers: FSWatcher[] = [];
  const watchFailed = (e: Error): void =>
    opts.log(`warning: watching ${files.join(', ')} failed, relying on the periodic re-read: ${e.message}`);
  for (const [dir, names] of byDirectory) {
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        // A ConfigMap mount swaps its `..data` link: every file in it changes at once.
        if (name === null || names.has(String(name)) || String(name).startsWith('..')) changed();
      });
      watcher.on('error', watchFailed);
      watchers.push(watcher);
    } catch (e) {
      watchFailed(e as Error);
    }
  }
  const poll = setInterval(onChange, opts.pollMs ?? POLL_MS);
  poll.unref();
  return {
    close() {
      for (const watcher of watchers) watcher.close();
      clearTimeout(settleTimer);
      clearInterval(poll);
    },
  };
}
