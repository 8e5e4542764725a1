// Faults under two gateway replicas on one PostgreSQL database: the database going away and coming back under open
// watches and writes, the LISTEN connection killed, and a replica killed with SIGKILL mid-write. The cluster runs
// with fsync on: these tests assert that acknowledged writes survive, which a crash-stopped fast cluster would not
// promise.
import { readdir, readFile, readlink } from 'node:fs/promises';
import { expect } from 'chai';
import type { TestPostgres } from '../helpers/postgres.js';
import { replicasOnPostgres, waitReady, type Replica, watchFromList as watchCollection } from '../helpers/replicas.js';
import type { OpenWatch, WatchEventJSON } from '../helpers/watch-client.js';
import { createNamespace, eventually } from '../helpers/api.js';

/** The longest any request may take while the database is gone: long enough for a 503, far short of a hang. */
const BOUNDED_MS = 5_000;
const LISTEN_NAME = 'gatehouse-listen';

interface Attempt {
  name: string;
  through: string;
  ms: number;
  status?: number;
  resourceVersion?: string;
  error?: string;
}

/** Sequential create loops, `perTarget` per replica, each object named uniquely, until stopped. */
function startLoad(
  targets: Replica[],
  ns: string,
  perTarget: number,
  body: (name: string) => object = (name) => ({ metadata: { name }, data: { name } }),
) {
  const attempts: Attempt[] = [];
  const acked = new Map<string, string>();
  let inFlight = 0;
  let stopped = false;
  let seq = 0;
  const ackWaiters: { count: number; resolve: () => void }[] = [];

  async function loop(through: Replica): Promise<void> {
    while (!stopped) {
      const name = `${through.name}-${++seq}`;
      const started = Date.now();
      const attempt: Attempt = { name, through: through.name, ms: 0 };
      attempts.push(attempt);
      inFlight++;
      try {
        // The client's own deadline is twice the bound: a slower answer is still recorded and then fails the test.
        const res = await through.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: body(name),
          timeoutMs: 2 * BOUNDED_MS,
        });
        attempt.status = res.status;
        if (res.status === 201) {
          attempt.resourceVersion = (res.json() as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
          acked.set(name, attempt.resourceVersion);
          for (const w of ackWaiters.filter((x) => acked.size >= x.count)) {
            ackWaiters.splice(ackWaiters.indexOf(w), 1);
            w.resolve();
          }
        }
      } catch (e) {
        attempt.error = (e as Error).message;
      } finally {
        inFlight--;
        attempt.ms = Date.now() - started;
      }
      // Failing requests answer at once: pacing them keeps the loop from spinning while the database is away.
      if (attempt.status !== 201) await new Promise((r) => setTimeout(r, 50));
      if (!through.alive()) return;
    }
  }

  const loops = targets.flatMap((t) => Array.from({ length: perTarget }, () => loop(t)));
  return {
    attempts,
    acked,
    inFlight: () => inFlight,
    /** Resolves once `count` creates in all were acknowledged with 201; rejects after `deadlineMs`. */
    waitAcked(count: number, deadlineMs = 15_000): Promise<void> {
      if (acked.size >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${acked.size} of ${count} creates acknowledged within ${deadlineMs} ms`)),
          deadlineMs,
        );
        ackWaiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/**
 * Reads a watch of the load's namespace to its end or until every acknowledged create arrived. Either way what it
 * delivered must be in strictly increasing revisions, without duplicates, and only writes that were attempted;
 * acknowledged ones with the revision they were acknowledged at. Returns whether the watch continued (then with
 * every acknowledged create: no gap) or ended as a client would relist after (the stream closed, or ERROR 410).
 */
async function checkWatch(
  w: OpenWatch,
  label: string,
  load: ReturnType<typeof startLoad>,
): Promise<'continued' | 'ended'> {
  const attempted = new Set(load.attempts.map((a) => a.name));
  const seen = new Map<string, string>();
  let last = 0n;
  let outcome: 'continued' | 'ended' = 'continued';
  const deadline = Date.now() + 15_000;
  while ([...load.acked.keys()].some((name) => !seen.has(name))) {
    let event: WatchEventJSON;
    try {
      event = await w.next(Math.max(1, deadline - Date.now()));
    } catch (e) {
      if ((e as Error).message === 'watch stream ended') {
        outcome = 'ended';
        break;
      }
      const missing = [...load.acked.keys()].filter((name) => !seen.has(name));
      throw new Error(
        `${label}: ${(e as Error).message}; ${missing.length} acknowledged creates never arrived (${missing.slice(0, 5).join(', ')})`,
        { cause: e },
      );
    }
    if (event.type === 'ERROR' || event.type === 'BODY') {
      expect(event.object, `${label}: a watch may end only with 410 Gone`).to.include({ code: 410 });
      outcome = 'ended';
      break;
    }
    const name = event.object.metadata?.name ?? '';
    const revision = BigInt(event.object.metadata?.resourceVersion ?? '0');
    expect(event.type, `${label}: ${name}`).to.equal('ADDED');
    expect(attempted.has(name), `${label}: event for ${name}, which no one wrote`).to.equal(true);
    expect(seen.has(name), `${label}: ${name} delivered twice`).to.equal(false);
    expect(revision > last, `${label}: ${name} at ${revision} after ${last}`).to.equal(true);
    if (load.acked.has(name)) expect(String(revision), `${label}: ${name}`).to.equal(load.acked.get(name));
    seen.set(name, String(revision));
    last = revision;
  }
  return outcome;
}

/** Local TCP ports of a process's sockets, from /proc: how a PostgreSQL backend is told apart per replica. */
async function localPorts(pid: number): Promise<Set<number>> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1]);
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9])) ports.add(parseInt(cols[1].split(':')[1], 16));
    }
  }
  return ports;
}

/** PostgreSQL backend pids of `replica`'s LISTEN connection(s). */
async function listenBackends(pg: TestPostgres, replica: Replica): Promise<string[]> {
  const ports = [...(await localPorts(replica.pid))];
  if (ports.length === 0) return [];
  const out = await pg.psql(
    `SELECT pid FROM pg_stat_activity WHERE application_name = '${LISTEN_NAME}' AND client_port IN (${ports.join(',')})`,
  );
  return out ? out.split('\n') : [];
}

describe('PostgreSQL faults under two gateway replicas', function () {
  this.timeout(90_000);
  const env = replicasOnPostgres({ fast: false, names: ['a', 'b'] });
  let a: Replica;
  let b: Replica;
  const opened: OpenWatch[] = [];
  let stopLoad: (() => Promise<void>) | undefined;

  const namespace = (through: Replica): Promise<string> => createNamespace(through, 'fault');

  async function watchFromList(through: Replica, ns: string): Promise<OpenWatch> {
    const w = await watchCollection(through, `/api/v1/namespaces/${ns}/configmaps`);
    opened.push(w);
    return w;
  }

  /** While the database is gone: /readyz fails on its storage checks, and requests fail fast with 503 or 504. */
  async function expectUnavailable(replica: Replica, ns: string): Promise<void> {
    const readyz = await eventually(
      `${replica.name}: /readyz failing`,
      async () => {
        const res = await replica.request('GET', '/readyz?verbose', { timeoutMs: BOUNDED_MS });
        return res.status === 500 ? res.body : undefined;
      },
      BOUNDED_MS,
    );
    expect(readyz).to.match(/^\[-\]etcd /m);
    expect(readyz).to.match(/^\[-\]etcd-readiness /m);
    const probes: [string, string, object?][] = [
      ['GET', `/api/v1/namespaces/${ns}/configmaps`],
      ['GET', `/api/v1/namespaces/${ns}/configmaps/${replica.name}-1`],
      ['POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: `down-${replica.name}` } }],
      ['DELETE', `/api/v1/namespaces/${ns}/configmaps/${replica.name}-1`],
    ];
    for (const [method, path, body] of probes) {
      const started = Date.now();
      const res = await replica.request(method, path, { body, timeoutMs: BOUNDED_MS });
      expect([503, 504], `${replica.name} ${method} ${path} after ${Date.now() - started} ms: ${res.body}`).to.include(
        res.status,
      );
      expect(res.json()).to.include({ kind: 'Status', status: 'Failure', code: res.status });
    }
    expect(replica.alive(), `${replica.name} still running:\n${replica.output()}`).to.equal(true);
  }

  before(() => {
    [a, b] = env.cluster.replicas;
  });

  afterEach(async () => {
    for (const w of opened.splice(0)) w.close();
    await stopLoad?.();
    stopLoad = undefined;
  });

  it('restarting PostgreSQL under watches and writes: not ready, fast 503s, recovery, watches without a gap or ended', async () => {
    const ns = await namespace(a);
    const watches = [await watchFromList(a, ns), await watchFromList(b, ns)];
    const load = startLoad([a, b], ns, 2);
    stopLoad = () => load.stop();
    await load.waitAcked(10);

    // A crash stop first, so that the outage lasts long enough to be observed; fsync is on, so what was
    // acknowledged is on disk.
    await env.pg.kill();
    for (const replica of [a, b]) await expectUnavailable(replica, ns);
    await env.pg.restart();
    await Promise.all([waitReady(a, 20_000), waitReady(b, 20_000)]);
    await load.waitAcked(load.acked.size + 10);

    // Then the ordinary restart (a fast shutdown) while the writes go on.
    await env.pg.restart();
    await Promise.all([waitReady(a, 20_000), waitReady(b, 20_000)]);
    await load.waitAcked(load.acked.size + 10);
    await load.stop();

    const slow = load.attempts.filter((x) => x.ms >= BOUNDED_MS || x.error?.includes('no response'));
    expect(
      slow.map((x) => `${x.through} ${x.name}: ${x.ms} ms ${x.status ?? x.error}`),
      `creates that hung\n${a.output()}\n---\n${b.output()}`,
    ).to.deep.equal([]);
    const failed = load.attempts.filter((x) => x.status !== undefined && x.status !== 201);
    for (const x of failed) expect([503, 504], `${x.name}`).to.include(x.status);
    expect(a.alive() && b.alive(), `${a.output()}\n${b.output()}`).to.equal(true);

    // Each watch either delivered every acknowledged create, in order and once, or ended so that its client relists.
    for (const [i, label] of ['watch on A', 'watch on B'].entries()) await checkWatch(watches[i], label, load);

    // Every acknowledged create survived both restarts.
    const list = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    const names = new Set((list.json().items as { metadata: { name: string } }[]).map((i) => i.metadata.name));
    const lost = [...load.acked.keys()].filter((name) => !names.has(name));
    expect(lost, 'acknowledged creates missing after the restarts').to.deep.equal([]);
  });

  it('cluster-scoped creates (no namespace check in front of the writer) while PostgreSQL restarts: fast 503s, no crash, recovery', async () => {
    // Node creates reach the group-commit writer directly: they must fail fast while the database is gone, never
    // take the process down (a rejection of the driver's nobody handled did once), and succeed once it is back.
    const attempts: Attempt[] = [];
    let stopped = false;
    let seq = 0;
    async function loop(through: Replica): Promise<void> {
      while (!stopped && through.alive()) {
        const name = `node-${through.name}-${++seq}`;
        const started = Date.now();
        const attempt: Attempt = { name, through: through.name, ms: 0 };
        attempts.push(attempt);
        try {
          const res = await through.request('POST', '/api/v1/nodes', {
            body: { metadata: { name } },
            timeoutMs: 2 * BOUNDED_MS,
          });
          attempt.status = res.status;
        } catch (e) {
          attempt.error = (e as Error).message;
        }
        attempt.ms = Date.now() - started;
        // Pacing, not a wait: failures answer at once and would spin while the database is away.
        if (attempt.status !== 201) await new Promise((r) => setTimeout(r, 50));
      }
    }
    const created = () => attempts.filter((x) => x.status === 201).length;
    async function moreCreated(count: number): Promise<void> {
      const target = created() + count;
      await eventually(
        `${target} node creates acknowledged`,
        async () => (created() >= target ? true : undefined),
        20_000,
      );
    }
    const loops = [a, b].flatMap((r) => [loop(r), loop(r), loop(r)]);
    stopLoad = async () => {
      stopped = true;
      await Promise.all(loops);
    };
    await moreCreated(10);

    await env.pg.kill();
    for (const replica of [a, b]) {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const res = await replica.request('POST', '/api/v1/nodes', {
          body: { metadata: { name: `down-${replica.name}-${i}` } },
          timeoutMs: BOUNDED_MS,
        });
        const ms = Date.now() - started;
        expect(res.status, `${replica.name} POST /api/v1/nodes after ${ms} ms: ${res.body}`).to.equal(503);
        expect(ms, `${replica.name} POST /api/v1/nodes`).to.be.below(BOUNDED_MS);
        expect(res.json()).to.include({ kind: 'Status', status: 'Failure', code: 503 });
      }
    }
    await env.pg.restart();
    await Promise.all([waitReady(a, 20_000), waitReady(b, 20_000)]);
    await moreCreated(20);
    await env.pg.restart();
    await Promise.all([waitReady(a, 20_000), waitReady(b, 20_000)]);
    await moreCreated(20);
    await stopLoad();
    stopLoad = undefined;

    const outputs = `${a.output()}\n---\n${b.output()}`;
    expect(a.alive() && b.alive(), `replicas still running:\n${outputs}`).to.equal(true);
    expect(outputs, 'replica output').not.to.match(
      /triggerUncaughtException|unhandledRejection|Unhandled promise rejection/i,
    );
    const slow = attempts.filter((x) => x.ms >= BOUNDED_MS || x.error !== undefined);
    expect(
      slow.map((x) => `${x.through} ${x.name}: ${x.ms} ms ${x.status ?? x.error}`),
      `node creates that hung\n${outputs}`,
    ).to.deep.equal([]);
    for (const x of attempts.filter((y) => y.status !== 201)) expect([503, 504], `${x.name}`).to.include(x.status);
    const after = await a.request('POST', '/api/v1/nodes', {
      body: { metadata: { name: 'after-restarts' } },
      timeoutMs: BOUNDED_MS,
    });
    expect(after.status, `${after.body}\n${a.output()}`).to.equal(201);
  });

  it('pg_terminate_backend of the LISTEN connection: watchers on both replicas miss nothing and see nothing twice', async () => {
    const ns = await namespace(a);
    const watches = [await watchFromList(a, ns), await watchFromList(b, ns)];
    const load = startLoad([a, b], ns, 2);
    stopLoad = () => load.stop();
    await load.waitAcked(10);

    for (let round = 0; round < 2; round++) {
      // After the previous test's restarts the replica may still be waiting to re-listen (its retry backs off).
      const before = await eventually(
        `replica A's LISTEN connection (round ${round})`,
        async () => {
          const pids = await listenBackends(env.pg, a);
          expect(pids.length, 'LISTEN connections of replica A').to.be.at.most(1);
          return pids.length === 1 ? pids : undefined;
        },
        10_000,
      );
      expect(await env.pg.psql(`SELECT pg_terminate_backend(${before[0]})`)).to.equal('t');
      // Writes through both replicas go on while A has no LISTEN connection: A's watchers get them from the log
      // scan that follows its re-listen (or from the fallback poll), each exactly once.
      await load.waitAcked(load.acked.size + 10);
      await eventually(
        'A listening again',
        async () => {
          const now = await listenBackends(env.pg, a);
          return now.length === 1 && now[0] !== before[0] ? now : undefined;
        },
        10_000,
      );
    }
    await load.waitAcked(load.acked.size + 10);
    await load.stop();

    expect(load.attempts.filter((x) => x.status !== 201).map((x) => `${x.name}: ${x.status ?? x.error}`)).to.deep.equal(
      [],
    );
    expect(await checkWatch(watches[0], 'watch on A', load)).to.equal('continued');
    expect(await checkWatch(watches[1], 'watch on B', load)).to.equal('continued');
  });

  it('kill -9 of a replica mid-write: every object is whole and every acknowledged create exists', async () => {
    const c = await env.cluster.start('c');
    const ns = await namespace(b);
    const KEYS = 10;
    const value = (name: string, key: number) => `${name}/${key}:`.padEnd(1024, String.fromCharCode(97 + (key % 26)));
    const body = (name: string) => ({
      metadata: { name },
      data: Object.fromEntries(Array.from({ length: KEYS }, (_, k) => [`k${k}`, value(name, k)])),
    });
    const load = startLoad([c], ns, 8, body);
    stopLoad = () => load.stop();
    await load.waitAcked(40);
    const inFlight = load.inFlight();
    await c.kill9();
    await load.stop();
    expect(inFlight, 'creates in flight when the replica was killed').to.be.greaterThan(0);
    expect(
      load.attempts.some((x) => x.error !== undefined),
      'some creates were cut off',
    ).to.equal(true);

    // The dead replica's transaction (if it held the write lock) must not block the survivor.
    const after = await b.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: body('after-kill'),
      timeoutMs: BOUNDED_MS,
    });
    expect(after.status, `${after.body}\n${b.output()}`).to.equal(201);

    const list = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(list.status).to.equal(200);
    const items = list.json().items as { metadata: { name: string }; data: Record<string, string> }[];
    const attempted = new Set([...load.attempts.map((x) => x.name), 'after-kill']);
    for (const item of items) {
      const name = item.metadata.name;
      expect(attempted.has(name), `${name} was written`).to.equal(true);
      expect(Object.keys(item.data).sort(), name).to.deep.equal(Object.keys(body(name).data).sort());
      for (let k = 0; k < KEYS; k++) expect(item.data[`k${k}`], `${name} k${k}`).to.equal(value(name, k));
    }
    const names = new Set(items.map((i) => i.metadata.name));
    const lost = [...load.acked.keys()].filter((name) => !names.has(name));
    expect(lost, 'acknowledged creates missing').to.deep.equal([]);
    for (const name of load.acked.keys()) {
      const got = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);
      expect(got.status, name).to.equal(200);
      expect(got.json().metadata.resourceVersion, name).to.equal(load.acked.get(name));
    }
  });
});
