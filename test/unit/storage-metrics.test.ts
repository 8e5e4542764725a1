// The storage metrics' pieces that need no server: which resource a key belongs to, the bound on the series any keys
// can make, which failures count as errors, and the PostgreSQL pool's connection states as the backend mirrors them.
import { expect } from 'chai';
import { builtinKinds } from '../../api/register.js';
import { StorageError, type Storage, type StorageErrorCode } from '../../backends/storage.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import { createPoolTracker } from '../../backends/postgres/stats.js';
import type { Db } from '../../backends/postgres/queries.js';
import { MetricsRegistry } from '../../gateway/metrics/registration.js';
import { instrumentStorage } from '../../gateway/metrics/storage-metrics.js';
import { storageTypes, UNKNOWN_STORAGE_TYPE } from '../../gateway/metrics/storage-types.js';
import { startStorageStateMetrics, STATS_TIMEOUT_MS } from '../../gateway/metrics/storage-state-metrics.js';
import { ManualClock } from '../helpers/manual-clock.js';

const types = storageTypes(builtinKinds);

async function series(metrics: MetricsRegistry, name: string): Promise<Map<string, number>> {
  const metric = metrics.registry.getSingleMetric(name);
  if (!metric) return new Map();
  const { values } = await metric.get();
  return new Map(values.map((v) => [JSON.stringify(v.labels), v.value]));
}

describe('storage metrics', () => {
  describe('key to resource type', () => {
    it("names a key's resource as kube-apiserver's group-resource string", () => {
      expect(types.typeOf('/registry/core/configmaps/default/a')).to.equal('configmaps');
      expect(types.typeOf('/registry/core/configmaps/')).to.equal('configmaps');
      expect(types.typeOf('/registry/core/configmaps/default/')).to.equal('configmaps');
      expect(types.typeOf('/registry/core/configmaps')).to.equal('configmaps');
      expect(types.typeOf('/registry/core/namespaces/kube-system')).to.equal('namespaces');
      const grouped = builtinKinds.find((def) => def.group !== '' && !def.storedAs)!;
      expect(types.typeOf(`/registry/${grouped.group}/${grouped.resource}/ns/x`)).to.equal(
        `${grouped.resource}.${grouped.group}`,
      );
    });

    it('collapses every other key to one value', () => {
      for (const key of [
        '',
        '/',
        '/registry/',
        '/registry/core',
        '/registry/core/',
        '/registry/core/widgets/default/a',
        '/registry/nonsense.example.com/configmaps/a',
        '/elsewhere/core/configmaps/a',
        'registry/core/configmaps/a',
      ])
        expect(types.typeOf(key), key).to.equal(UNKNOWN_STORAGE_TYPE);
    });

    it('lists each stored resource once: a kind stored as another resource shares its entry', () => {
      const typeNames = types.resources.map((r) => r.type);
      expect(new Set(typeNames).size).to.equal(typeNames.length);
      const storedAs = builtinKinds.filter((def) => def.storedAs);
      expect(storedAs, 'a built-in kind stored as another resource').to.not.have.length(0);
      for (const def of storedAs) {
        expect(typeNames).to.not.include(`${def.resource}.${def.group}`);
        const stored = def.storedAs!;
        expect(typeNames).to.include(stored.group ? `${stored.resource}.${stored.group}` : stored.resource);
      }
      for (const { type, prefix } of types.resources) expect(types.typeOf(`${prefix}x`)).to.equal(type);
    });
  });

  describe('the decorator', () => {
    it('keeps the series to the served resources and one fixed value, whatever keys are asked for', async () => {
      const metrics = new MetricsRegistry();
      const storage = instrumentStorage(createMemoryStorage(), metrics, types);
      try {
        for (let i = 0; i < 300; i++) {
          await storage.get(`/registry/core/configmaps/ns-${i}/cm-${i}`).catch(() => undefined);
          await storage.get(`/registry/made-up-${i}/things-${i}/x`).catch(() => undefined);
          await storage.getList(`/x-${i}/`);
        }
        const totals = await series(metrics, 'etcd_requests_total');
        expect([...totals.keys()].sort()).to.deep.equal(
          [
            { operation: 'get', type: 'configmaps' },
            { operation: 'get', type: UNKNOWN_STORAGE_TYPE },
            { operation: 'list', type: UNKNOWN_STORAGE_TYPE },
          ]
            .map((l) => JSON.stringify(l))
            .sort(),
        );
        expect(totals.get(JSON.stringify({ operation: 'get', type: 'configmaps' }))).to.equal(300);
      } finally {
        await storage.close();
      }
    });

    it('counts as errors the failures to answer (Unavailable, Internal, Expired), never an answer or a callback', async () => {
      const codes: StorageErrorCode[] = [
        'NotFound',
        'KeyExists',
        'Conflict',
        'PreconditionUid',
        'Expired',
        'TooLargeRevision',
        'InvalidContinue',
        'Unavailable',
        'Internal',
      ];
      let failure: unknown;
      const failing = {
        get: () => Promise.reject(failure),
        guaranteedUpdate: () => Promise.reject(failure),
      } as unknown as Storage;
      const metrics = new MetricsRegistry();
      const storage = instrumentStorage(failing, metrics, types);
      const counted: string[] = [];
      for (const code of codes) {
        failure = new StorageError(code, code);
        const before = (await series(metrics, 'etcd_request_errors_total')).get(
          JSON.stringify({ operation: 'get', type: 'configmaps' }),
        );
        await storage.get('/registry/core/configmaps/ns/a').catch(() => undefined);
        const after = (await series(metrics, 'etcd_request_errors_total')).get(
          JSON.stringify({ operation: 'get', type: 'configmaps' }),
        );
        if ((after ?? 0) > (before ?? 0)) counted.push(code);
      }
      expect(counted).to.deep.equal(['Expired', 'Unavailable', 'Internal']);
      // What an update's callback throws (admission refusing, say) is the caller's failure.
      failure = new Error('refused by admission');
      await storage.guaranteedUpdate('/registry/core/configmaps/ns/a', (o) => o).catch(() => undefined);
      const errors = await series(metrics, 'etcd_request_errors_total');
      expect(errors.get(JSON.stringify({ operation: 'update', type: 'configmaps' })) ?? 0).to.equal(0);
      const totals = await series(metrics, 'etcd_requests_total');
      expect(totals.get(JSON.stringify({ operation: 'get', type: 'configmaps' }))).to.equal(codes.length);
      expect(totals.get(JSON.stringify({ operation: 'update', type: 'configmaps' }))).to.equal(1);
    });

    it('offers every member the backend offers: a member left out would silently drop what reads it', async () => {
      const memory = createMemoryStorage();
      try {
        // Typed as every key of the contract, so a member added to Storage must be added here too.
        const contract: Record<keyof Required<Storage>, true> = {
          get: true,
          getList: true,
          create: true,
          guaranteedUpdate: true,
          delete: true,
          watch: true,
          currentRevision: true,
          compactedRevision: true,
          count: true,
          readiness: true,
          close: true,
          storageStats: true,
          watchCacheStats: true,
        };
        const withStats = { ...memory, storageStats: () => Promise.resolve({}) };
        const offered = (s: object) => Object.keys(s).filter((key) => key in contract);
        expect(offered(instrumentStorage(withStats, new MetricsRegistry(), types)).sort()).to.deep.equal(
          offered(withStats).sort(),
        );
        expect(offered(withStats)).to.have.length(Object.keys(contract).length);
      } finally {
        await memory.close();
      }
    });

    it("passes the backend's storageStats through, and has none when the backend has none", async () => {
      const memory = createMemoryStorage();
      try {
        expect(instrumentStorage(memory, new MetricsRegistry(), types)).to.not.have.property('storageStats');
        const stats = { sizeBytes: 7 };
        const withStats = { ...memory, storageStats: () => Promise.resolve(stats) };
        expect(await instrumentStorage(withStats, new MetricsRegistry(), types).storageStats!()).to.equal(stats);
      } finally {
        await memory.close();
      }
    });
  });

  describe('the state read at scrape', () => {
    it('answers a scrape without the backend state when the backend does not answer in time', async () => {
      const clock = new ManualClock();
      const metrics = new MetricsRegistry();
      const memory = createMemoryStorage();
      let asked = 0;
      const hung = {
        ...memory,
        storageStats: () => {
          asked++;
          return new Promise<never>(() => undefined);
        },
      };
      const state = startStorageStateMetrics({ storage: hung, backend: 'hung', types, metrics, clock, log: () => {} });
      try {
        const scraped = metrics.registry.metrics();
        // The scrape's bound is on the server's clock; every gauge of the scrape shares one call.
        expect(clock.pending().map((t) => t.ms)).to.include(STATS_TIMEOUT_MS);
        expect(asked).to.equal(1);
        clock.advance(STATS_TIMEOUT_MS);
        const text = await scraped;
        expect(text).to.include('# HELP apiserver_storage_listen_connected [ALPHA]');
        expect(text).to.not.match(/^apiserver_storage_(size_bytes|db_connections|listen_connected|revision_lag)\{/m);
        expect(text).to.match(/^apiserver_storage_objects\{resource="configmaps"\} 0$/m);
      } finally {
        state.stop();
        await memory.close();
      }
      expect(clock.pending(), 'timers left by stop()').to.deep.equal([]);
    });
  });

  describe('PostgreSQL pool connection states', () => {
    /** A stand-in for the driver: each statement settles when the test says so. */
    function fakeDriver() {
      const pending: (() => void)[] = [];
      const statement = (): PromiseLike<void> & object => {
        let settle = (): void => undefined;
        const done = new Promise<void>((resolve) => (settle = resolve));
        let sent = false;
        return {
          then(onFulfilled?: ((v: void) => unknown) | null, onRejected?: ((e: unknown) => unknown) | null) {
            if (!sent) {
              sent = true;
              pending.push(settle);
            }
            return done.then(onFulfilled, onRejected) as never;
          },
        };
      };
      const sql = Object.assign(() => statement(), { unsafe: () => statement() }) as unknown as Db;
      return { sql, pending };
    }

    it('opens connections for statements up to the pool size, queues the rest, and keeps them open when idle', async () => {
      const tracker = createPoolTracker(2);
      const { sql: raw, pending } = fakeDriver();
      const sql = tracker.wrap(raw);
      expect(tracker.stats()).to.deep.equal({ idle: 0, busy: 0, waiting: 0 });
      // Built into another statement, never awaited: not sent, not counted.
      void sql.unsafe('fragment');
      expect(tracker.stats()).to.deep.equal({ idle: 0, busy: 0, waiting: 0 });
      // Awaiting calls then at once, as a caller's await does.
      const running = [sql`one`, sql`two`, sql.unsafe('three')].map((q) => q.then(() => undefined));
      expect(tracker.stats()).to.deep.equal({ idle: 0, busy: 2, waiting: 1 });
      for (const settle of pending.splice(0)) settle();
      await Promise.all(running);
      expect(tracker.stats()).to.deep.equal({ idle: 2, busy: 0, waiting: 0 });
      tracker.closed();
      expect(tracker.stats()).to.deep.equal({ idle: 1, busy: 0, waiting: 0 });
      const again = sql`four`.then(() => undefined);
      expect(tracker.stats()).to.deep.equal({ idle: 0, busy: 1, waiting: 0 });
      for (const settle of pending.splice(0)) settle();
      await again;
      tracker.closed();
      tracker.closed();
      expect(tracker.stats(), 'never below zero').to.deep.equal({ idle: 0, busy: 0, waiting: 0 });
    });
  });
});
