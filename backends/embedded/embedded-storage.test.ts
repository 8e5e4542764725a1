import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KObject } from '../../api/meta/types.js';
import { createMemoryStorage } from '../memory/memory-storage.js';
import { isStorageError, type Storage, type StorageEvent } from '../storage.js';
import { describeStorageConformance } from '../testing/conformance.js';
import { createEmbeddedStorage, LOCK_FILE, LOG_FILE, type EmbeddedStorageOptions } from './embedded-storage.js';

const dirs = new Map<Storage, string>();

describeStorageConformance(
  'embedded',
  async (opts) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'gatehouse-embedded-'));
    const storage = await createEmbeddedStorage({ ...opts, dataDir, log: () => undefined });
    dirs.set(storage, dataDir);
    return storage;
  },
  async (storage) => {
    await rm(dirs.get(storage)!, { recursive: true, force: true });
    dirs.delete(storage);
  },
);

function cm(name: string, data: Record<string, string> = {}): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns1', uid: `uid-${name}` }, data };
}

const key = (name: string): string => `/registry/configmaps/ns1/${name}`;
const rv = (obj: KObject): bigint => BigInt(obj.metadata.resourceVersion!);

async function take(storage: Storage, prefix: string, revision: bigint, n: number): Promise<StorageEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 2_000);
  const events: StorageEvent[] = [];
  try {
    for await (const e of storage.watch(prefix, { revision, recursive: true }, controller.signal)) {
      events.push(e);
      if (events.length === n) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return events;
}

describe('embedded storage', () => {
  let dataDir: string;
  const open: Storage[] = [];
  const logs: string[] = [];

  async function reopen(extra: Partial<EmbeddedStorageOptions> = {}): Promise<Storage> {
    const storage = await createEmbeddedStorage({ dataDir, log: (l) => logs.push(l), ...extra });
    open.push(storage);
    return storage;
  }

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'gatehouse-embedded-'));
    logs.length = 0;
  });

  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps objects and revisions across a restart, and continues the revision counter', async () => {
    let s = await reopen();
    await s.create(key('a'), cm('a', { v: '1' }));
    const b = await s.create(key('b'), cm('b'));
    const a2 = await s.guaranteedUpdate(key('a'), (cur) => ({ ...cur, data: { v: '2' } }));
    await s.delete(key('b'));
    const c = await s.create(key('c'), cm('c'));
    const list = await s.getList(key(''));
    const current = await s.currentRevision();
    await s.close();

    s = await reopen();
    expect(await s.currentRevision()).to.equal(current);
    expect(await s.getList(key(''))).to.deep.equal(list);
    expect(await s.get(key('a'))).to.deep.equal(a2);
    expect(await s.get(key('c'))).to.deep.equal(c);
    expect(await s.get(key('b'), { read: { match: 'exact', revision: rv(b) } })).to.deep.equal(b);
    const d = await s.create(key('d'), cm('d'));
    expect(rv(d)).to.equal(current + 1n);
  });

  it('counts as received the writes after a restart, not the log it was filled from, and one fill', async () => {
    let s = await reopen();
    await s.create(key('a'), cm('a'));
    await s.create(key('b'), cm('b'));
    expect(s.watchCacheStats?.().eventsReceived).to.deep.equal(new Map([['/registry/configmaps/ns1/', 2]]));
    const current = await s.currentRevision();
    await s.close();

    s = await reopen();
    expect(s.watchCacheStats?.()).to.deep.include({ revision: current, initializations: 1 });
    expect(s.watchCacheStats?.().eventsReceived).to.deep.equal(new Map());
    await s.delete(key('a'));
    expect(s.watchCacheStats?.()).to.deep.include({ revision: current + 1n });
    expect(s.watchCacheStats?.().eventsReceived).to.deep.equal(new Map([['/registry/configmaps/ns1/', 1]]));
  });

  it('serves a watch from a revision written before the restart, then the live events', async () => {
    let s = await reopen();
    const a1 = await s.create(key('a'), cm('a', { v: '1' }));
    const a2 = await s.guaranteedUpdate(key('a'), (cur) => ({ ...cur, data: { v: '2' } }));
    const b = await s.create(key('b'), cm('b'));
    await s.close();

    s = await reopen();
    const watching = take(s, key(''), rv(a1), 3);
    const gone = await s.delete(key('b'));
    const [modified, added, deleted] = await watching;
    expect(modified).to.deep.include({ type: 'MODIFIED', revision: rv(a2), object: a2, prevObject: a1 });
    expect(added).to.deep.include({ type: 'ADDED', revision: rv(b), object: b });
    expect(deleted).to.deep.include({ type: 'DELETED', revision: rv(gone), object: gone, prevObject: b });
  });

  it('drops a torn last record cleanly and appends after the intact ones', async () => {
    let s = await reopen();
    const a = await s.create(key('a'), cm('a'));
    await s.create(key('b'), cm('b', { big: 'x'.repeat(2_000) }));
    await s.close();
    const path = join(dataDir, LOG_FILE);
    await truncate(path, (await stat(path)).size - 5);
    // A rewrite a crash cut short leaves its temp file; the log itself is whole and wins.
    await writeFile(`${path}.tmp`, 'half a snapshot');

    s = await reopen();
    expect(logs.join('\n')).to.match(/dropped \d+ bytes after the last intact record/);
    expect(await s.currentRevision()).to.equal(rv(a));
    expect(await s.getList(key(''))).to.deep.equal({ items: [a], revision: rv(a) });
    const b = await s.create(key('b'), cm('b', { v: 'again' }));
    expect(rv(b)).to.equal(rv(a) + 1n);
    await s.close();

    s = await reopen();
    expect((await s.getList(key(''))).items).to.deep.equal([a, b]);
  });

  it('refuses to start from a log whose snapshot is damaged, rather than guess', async () => {
    const s = await reopen({ rewriteMinBytes: 0 });
    for (const name of ['a', 'b', 'c']) await s.create(key(name), cm(name));
    await s.close();
    open.length = 0;
    const path = join(dataDir, LOG_FILE);
    const data = await readFile(path);
    data[40] ^= 0xff;
    await writeFile(path, data);
    const attempt = (): Promise<string> =>
      createEmbeddedStorage({ dataDir, log: () => undefined }).then(
        () => 'opened',
        (e: Error) => e.message,
      );
    expect(await attempt()).to.match(/corrupt/);
    // The failed open released its lock: the second attempt fails the same way, not as "already open".
    expect(await attempt()).to.match(/corrupt/);
  });

  it('refuses a second opener of the same data dir while the first holds it, and takes over a stale lock', async () => {
    const first = await reopen();
    const second = await createEmbeddedStorage({ dataDir, log: () => undefined }).then(
      () => 'opened',
      (e: Error) => e.message,
    );
    expect(second).to.match(/already open in this process/);
    await first.close();

    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      await writeFile(join(dataDir, LOCK_FILE), JSON.stringify({ pid: sleeper.pid }));
      const refused = await createEmbeddedStorage({ dataDir, log: () => undefined }).then(
        () => 'opened',
        (e: Error) => e.message,
      );
      expect(refused).to.contain(`in use by process ${sleeper.pid}`);
    } finally {
      sleeper.kill('SIGKILL');
      await new Promise((resolve) => sleeper.once('exit', resolve));
    }
    // The sleeper is dead now: its lock is stale.
    const taken = await reopen();
    await taken.create(key('a'), cm('a'));
    expect(JSON.parse(await readFile(join(dataDir, LOCK_FILE), 'utf8')).pid).to.equal(process.pid);
  });

  it('keeps the log bounded by rewriting it under many updates of one key, and reopens from the snapshot', async () => {
    let now = 1_000_000;
    const options = { historyWindowMs: 1_000, now: () => now, rewriteMinBytes: 64 << 10 };
    let s = await reopen(options);
    const payload = 'x'.repeat(1_000);
    await s.create(key('hot'), cm('hot', { n: '0', payload }));
    let last: KObject | undefined;
    for (let n = 1; n <= 2_000; n++) {
      now += 10;
      last = await s.guaranteedUpdate(key('hot'), (cur) => ({ ...cur, data: { n: String(n), payload } }));
    }
    // 2,000 writes of ~1.2 KiB (2.4 MiB); the window holds the last 100 of them.
    const size = (await stat(join(dataDir, LOG_FILE))).size;
    expect(size).to.be.below(400 << 10);
    expect(logs.some((l) => /rewrote/.test(l))).to.equal(true);
    const compacted = await s.compactedRevision();
    await s.close();

    s = await reopen(options);
    expect(await s.get(key('hot'))).to.deep.equal(last);
    expect(await s.compactedRevision()).to.equal(compacted);
    const events = await take(s, key(''), compacted, 3);
    expect(events.map((e) => e.revision)).to.deep.equal([compacted + 1n, compacted + 2n, compacted + 3n]);
  });

  it('does not rewrite a log whose writes are all inside the history window, and rewrites it once they left', async () => {
    let now = 1_000_000;
    const options = { historyWindowMs: 60_000, now: () => now, rewriteMinBytes: 64 << 10 };
    let s = await reopen(options);
    const payload = 'x'.repeat(1_000);
    for (let n = 0; n < 300; n++) {
      now += 10;
      await s.create(key(`c${n}`), cm(`c${n}`, { payload }));
    }
    // ~360 KiB appended, past twice the snapshot and the floor; a snapshot would hold the same 300 writes.
    const grown = (await stat(join(dataDir, LOG_FILE))).size;
    expect(grown).to.be.above(300_000);
    expect(logs.filter((l) => /rewrote/.test(l))).to.deep.equal([]);

    // The creates leave the window: the next write finds the file due, and it is rewritten (after that write is
    // acknowledged; the write after it waits for the rewrite).
    now += 61_000;
    await s.delete(key('c0'));
    await s.delete(key('c1'));
    expect(logs.filter((l) => /rewrote/.test(l))).to.have.length(1);
    for (let n = 2; n < 290; n++) await s.delete(key(`c${n}`));
    now += 61_000;
    await s.create(key('after'), cm('after', { payload }));
    await s.close();

    s = await reopen(options);
    const { items } = await s.getList(key(''));
    expect(items.map((o) => o.metadata.name).sort()).to.deep.equal(
      ['after', ...Array.from({ length: 10 }, (_, i) => `c${290 + i}`)].sort(),
    );
  });

  it('compacts history after a restart by the original write times', async () => {
    let now = 1_000_000;
    const options = { historyWindowMs: 1_000, now: () => now };
    let s = await reopen(options);
    const a1 = await s.create(key('a'), cm('a', { v: '1' }));
    const b = await s.create(key('b'), cm('b'));
    now += 500;
    const a2 = await s.guaranteedUpdate(key('a'), (cur) => ({ ...cur, data: { v: '2' } }));
    await s.close();

    now += 100;
    s = await reopen(options);
    expect(await s.get(key('a'), { read: { match: 'exact', revision: rv(a1) } })).to.deep.equal(a1);
    await s.close();

    now += 600;
    s = await reopen(options);
    expect(await s.compactedRevision()).to.equal(rv(b));
    let caught: unknown;
    await s.get(key('a'), { read: { match: 'exact', revision: rv(a1) } }).catch((e: unknown) => (caught = e));
    expect(isStorageError(caught, 'Expired')).to.equal(true);
    expect((await take(s, key(''), rv(b), 1))[0]).to.deep.include({ type: 'MODIFIED', revision: rv(a2) });
    now += 1_000;
    expect(await s.compactedRevision()).to.equal(rv(a2));
  });

  it('leaves a readable store with whole objects after kill -9 of a process writing in a loop', async function () {
    this.timeout(30_000);
    const script = fileURLToPath(new URL('./kill-test-writer.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acked = new Map<string, { seq: number; revision: bigint }>();
    let buffered = '';
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
      child.stdout.on('data', (chunk: Buffer) => {
        const lines = (buffered + chunk.toString()).split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [, k, seq, revision] = line.split(' ');
          acked.set(k, { seq: Number(seq), revision: BigInt(revision) });
        }
        if ([...acked.values()].reduce((n, a) => n + a.seq, 0) >= 400) resolve();
      });
    });
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const s = await reopen();
    const current = await s.currentRevision();
    const { items } = await s.getList('/registry/configmaps/crash/');
    expect(items.length).to.equal(acked.size);
    for (const item of items) {
      const data = item.data as Record<string, string>;
      expect(createHash('sha256').update(data.payload).digest('hex'), `${item.metadata.name} is whole`).to.equal(
        data.digest,
      );
      const ack = acked.get(key('').replace('ns1/', `crash/${item.metadata.name}`))!;
      // Every acknowledged write survived; at most the unacknowledged ones in flight at the kill may be there too.
      expect(Number(data.seq)).to.be.at.least(ack.seq);
      expect(current >= ack.revision).to.equal(true);
    }
    const next = await s.create(key('after'), cm('after'));
    expect(rv(next)).to.equal(current + 1n);
  });
});

describe('memory storage with a persist hook', () => {
  it('reveals a write only once it is persisted, in revision order', async () => {
    const pending: (() => void)[] = [];
    const s = createMemoryStorage({ persist: () => new Promise<void>((resolve) => pending.push(resolve)) });
    const start = await s.currentRevision();
    const creating = s.create(key('a'), cm('a'));
    const other = s.create(key('b'), cm('b'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await s.currentRevision()).to.equal(start);
    expect(await s.count(key(''))).to.equal(0);
    // A writer of the same key waits for the pending write instead of deciding on state a crash could lose.
    const updating = s.guaranteedUpdate(key('a'), (cur) => ({ ...cur, data: { v: '2' } }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).to.have.length(2);
    pending[0]();
    expect(rv(await creating)).to.equal(start + 1n);
    expect(await s.currentRevision(), 'b is not on disk yet').to.equal(start + 1n);
    pending[1]();
    expect(rv(await other)).to.equal(start + 2n);
    expect((await s.getList(key(''))).items.map((o) => o.metadata.name)).to.deep.equal(['a', 'b']);
    await new Promise((resolve) => setImmediate(resolve));
    pending[2]();
    expect((await updating).data).to.deep.equal({ v: '2' });
    await s.close();
  });

  it('fails the write and every later call with Unavailable when persisting fails', async () => {
    const s = createMemoryStorage({ persist: () => Promise.reject(new Error('disk on fire')) });
    let caught: unknown;
    await s.create(key('a'), cm('a')).catch((e: unknown) => (caught = e));
    expect(isStorageError(caught, 'Unavailable')).to.equal(true);
    expect((caught as Error).message).to.contain('disk on fire');
    await s.readiness().then(
      () => expect.fail('ready after a failed write'),
      (e: unknown) => expect(isStorageError(e, 'Unavailable')).to.equal(true),
    );
    await s.close();
  });
});
