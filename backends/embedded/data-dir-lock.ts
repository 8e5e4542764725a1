// One process per data dir: two writers appending to the same log would interleave records and corrupt it. The lock
// is a file created exclusively (O_EXCL) holding the owner's pid and start time. A lock whose owner is gone — a
// crash, kill -9 — is stale and taken over. The start time tells a reused pid apart from the real owner, which
// matters in containers, where every incarnation of the server is pid 1.
//
// Known limit: two processes taking over the same stale lock at the same instant may both succeed (each removes
// the stale file, then one of them removes the other's fresh lock). Starting twice on a dir whose owner just died is
// an operator error this does not fully guard against; a live owner is always respected.
import { open, readFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';

export interface DataDirLock {
  /** Removes the lock file if it is still ours. */
  release(): Promise<void>;
}

interface Owner {
  pid: number;
  /** Start time of the process in clock ticks since boot (Linux); absent where /proc is not available. */
  started?: string;
}

/** Locks held by this process, so a second open in the same process is refused as well. */
const held = new Set<string>();

function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime); the command name (field 2) may hold spaces, so count from its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function alive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const started = startTime(owner.pid);
  return owner.started === undefined || started === undefined || started === owner.started;
}

function parseOwner(text: string): Owner | undefined {
  try {
    const owner = JSON.parse(text) as Owner;
    return Number.isSafeInteger(owner.pid) && owner.pid > 0 ? owner : undefined;
  } catch {
    return undefined;
  }
}

async function tryCreate(path: string, me: Owner): Promise<boolean> {
  try {
    const fh = await open(path, 'wx', 0o600);
    try {
      await fh.writeFile(JSON.stringify(me));
      await fh.sync();
    } finally {
      await fh.close();
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** Takes the lock at `path` or throws an error naming the process that holds it. */
export async function lockDataDir(path: string, what: string): Promise<DataDirLock> {
  if (held.has(path)) throw new Error(`${what} is already open in this process (lock ${path})`);
  const me: Owner = { pid: process.pid, started: startTime(process.pid) };
  for (let attempt = 0; ; attempt++) {
    if (await tryCreate(path, me)) break;
    const text = await readFile(path, 'utf8').catch(() => '');
    const owner = parseOwner(text);
    // Our own pid in a lock this process does not hold comes from an earlier incarnation with the same pid.
    const foreign = owner !== undefined && owner.pid !== process.pid;
    if (foreign && alive(owner)) {
      throw new Error(
        `${what} is in use by process ${owner.pid} (lock ${path}); stop it first, or use another data dir`,
      );
    }
    // An empty or half-written lock may belong to an owner still writing it; give it a moment before judging it.
    if (owner === undefined && attempt === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    if (attempt > 3) throw new Error(`${what}: cannot take over the stale lock ${path}`);
    await rm(path, { force: true });
  }
  held.add(path);
  return {
    async release() {
      if (!held.delete(path)) return;
      const owner = parseOwner(await readFile(path, 'utf8').catch(() => ''));
      if (owner?.pid === me.pid && owner.started === me.started) await rm(path, { force: true });
    },
  };
}
