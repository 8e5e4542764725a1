// `mkdir -p` that always returns. Node's recursive mkdir (v20 here) never settles when a missing level's parent
// exists but refuses it with ENOENT, as /proc and /sys do: it takes the ENOENT to mean a missing parent, finds the
// parent there, and retries forever, so a --data-dir under such a path hung the server at start-up without a word.
// Here the missing levels are made one at a time, top down, and such a level fails at once with its own error.
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

function codeOf(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

/** Creates `dir` and its missing parents (new levels get `mode`); an existing directory is left as it is. */
export async function makeDirectory(dir: string, mode = 0o777): Promise<void> {
  const missing: string[] = [];
  // Up to the first level that exists (the root always does); a dangling link counts as missing here.
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    const found = await stat(at).catch((e: unknown) => {
      if (codeOf(e) === 'ENOENT') return undefined;
      throw e;
    });
    if (!found) {
      missing.push(at);
      continue;
    }
    if (!found.isDirectory())
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}' (${at} is not a directory)`), {
        code: 'ENOTDIR',
      });
    break;
  }
  for (const level of missing.reverse()) {
    try {
      await mkdir(level, { mode });
    } catch (e) {
      if (codeOf(e) !== 'EEXIST') throw e;
      // Made meanwhile by someone else, or a link pointing nowhere, which stat then still cannot follow.
      const isDirectory = await stat(level).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!isDirectory)
        throw Object.assign(
          new Error(
            `ENOENT: cannot create '${dir}': ${level} exists but is not a directory (a symbolic link whose target is missing?)`,
          ),
          { code: 'ENOENT' },
        );
    }
  }
}
