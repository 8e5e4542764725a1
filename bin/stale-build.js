// A checkout whose sources moved on after the last `make build` would otherwise run yesterday's server without a word:
// dist/ is only rebuilt by `make build` (or npm's prepare), never by starting. Comparing modification times is enough
// for that and costs a few milliseconds for a few hundred files, so every start can afford it; content hashes would not.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The folders dist/ is compiled from that make up the server (test/ and bench/ do not change what runs). */
export const SERVER_SOURCE_DIRS = ['api', 'backends', 'gateway', 'policies'];

/**
 * The first server source under `root` modified after `builtAtMs`, or undefined. Test files are built into dist/ too
 * but never run by the server, so editing one leaves the build current.
 */
export function sourceNewerThan(root, builtAtMs) {
  for (const dir of SERVER_SOURCE_DIRS) {
    let entries;
    try {
      entries = readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true });
    } catch {
      // An installed package may ship dist/ without its sources: nothing to compare.
      continue;
    }
    for (const entry of entries) {
      if (
        !entry.isFile() ||
        !entry.name.endsWith('.ts') ||
        entry.name.endsWith('.test.ts') ||
        entry.name.endsWith('.d.ts')
      )
        continue;
      const file = path.join(entry.parentPath ?? entry.path, entry.name);
      if (statSync(file).mtimeMs > builtAtMs) return file;
    }
  }
  return undefined;
}

/** One warning line when the compiled `entry` (a file under root/dist) is older than a server source, else undefined. */
export function staleBuildWarning(root, entry) {
  const builtAtMs = statSync(entry).mtimeMs;
  const newer = sourceNewerThan(root, builtAtMs);
  if (newer === undefined) return undefined;
  return `warning: dist/ is older than ${path.relative(root, newer)}, so this runs an outdated build; run \`make build\``;
}
