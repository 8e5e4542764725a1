// The shared-state building blocks against a real redis-server (test/helpers/redis.ts): the token bucket script
// (atomic under concurrent callers, all-or-nothing across buckets, refilled on Redis's own time, reloaded after a
// script flush) and the client's degraded mode (a stalled or garbage-speaking Redis costs at most the timeout, then
// nothing, until it answers again).
import { once } from 'node:events';
import net from 'node:net';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createServerMetrics } from '../../gateway/metrics/server-metrics.js';
import { createSharedStateMetrics } from '../../gateway/metrics/shared-state-metrics.js';
import { connectSharedRedis, type SharedRedis } from '../../gateway/shared-state/redis-client.js';
import { createLocalBuckets, takeSharedTokens, type BucketSpec } from '../../gateway/shared-state/token-bucket.js';
import { eventually } from '../helpers/api.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { seriesOf, labels } from '../helpers/metrics-text.js';
import { freePort } from '../helpers/postgres.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

describe('shared state: Redis token buckets and degraded mode', function () {
  this.timeout(30_000);
  let redis: TestRedis;
  const clients: Redis[] = [];
  const client = (): Redis => {
    const c = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    clients.push(c);
    return c;
  };

  before(async () => {
    redis = await startRedis();
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.disconnect();
  });
  after(async () => {
    await redis?.stop();
  });

  it('admits exactly the burst from many concurrent callers on several connections', async () => {
    const connections = [client(), client(), client(), client()];
    const bucket: BucketSpec = { key: 'test:atomic', rate: 0.001, burst: 10 };
    const verdicts = await Promise.all(
      Array.from({ length: 200 }, (_, i) => takeSharedTokens(connections[i % connections.length], [bucket])),
    );
    expect(verdicts.filter((v) => v.admitted)).to.have.length(10);
    const refused = verdicts.find((v) => !v.admitted);
    // One token at 0.001 a second is 1000 s away.
    expect(refused).to.deep.equal({ admitted: false, index: 0, retryAfterSeconds: 1000 });
    const ttl = await connections[0].pttl('test:atomic');
    expect(ttl).to.be.greaterThan(10_000_000).and.at.most(10_001_000);
  });

  it('takes a token from every bucket or from none, and names the bucket that refused', async () => {
    const c = client();
    const wide: BucketSpec = { key: 'test:wide', rate: 0.001, burst: 5 };
    const narrow: BucketSpec = { key: 'test:narrow', rate: 0.5, burst: 1 };
    expect(await takeSharedTokens(c, [wide, narrow])).to.deep.equal({ admitted: true });
    expect(await takeSharedTokens(c, [wide, narrow])).to.deep.equal({
      admitted: false,
      index: 1,
      retryAfterSeconds: 2,
    });
    // The refusal cost `wide` nothing: four tokens are left of its five.
    const left = await Promise.all(Array.from({ length: 5 }, () => takeSharedTokens(c, [wide])));
    expect(left.map((v) => v.admitted)).to.deep.equal([true, true, true, true, false]);
  });

  it('refills on the time of Redis, up to the burst', async () => {
    const c = client();
    const bucket: BucketSpec = { key: 'test:refill', rate: 10, burst: 2 };
    await takeSharedTokens(c, [bucket]);
    await takeSharedTokens(c, [bucket]);
    expect((await takeSharedTokens(c, [bucket])).admitted).to.equal(false);
    // Ten seconds earlier is what ten seconds of waiting would do: a hundred tokens, of which the burst is kept.
    const at = Number(await c.hget('test:refill', 'at'));
    await c.hset('test:refill', 'at', at - 10_000_000);
    const after = await Promise.all(Array.from({ length: 3 }, () => takeSharedTokens(c, [bucket])));
    expect(after.map((v) => v.admitted)).to.deep.equal([true, true, false]);
  });

  it('loads the script again after Redis forgot it', async () => {
    const c = client();
    await c.script('FLUSH');
    expect(await takeSharedTokens(c, [{ key: 'test:flushed', rate: 1, burst: 1 }])).to.deep.equal({ admitted: true });
  });

  it('keeps local buckets with the same arithmetic', () => {
    let now = 0;
    const take = createLocalBuckets(() => now);
    const a: BucketSpec = { key: 'a', rate: 2, burst: 2 };
    const b: BucketSpec = { key: 'b', rate: 1, burst: 1 };
    expect(take([a, b]).admitted).to.equal(true);
    expect(take([a, b])).to.deep.equal({ admitted: false, index: 1, retryAfterSeconds: 1 });
    expect(take([a]).admitted).to.equal(true);
    expect(take([a])).to.deep.equal({ admitted: false, index: 0, retryAfterSeconds: 1 });
    now += 1_000;
    expect(take([a, b]).admitted).to.equal(true);
  });

  describe('the client', () => {
    let shared: SharedRedis | undefined;
    afterEach(async () => {
      await shared?.close();
      shared = undefined;
      redis.resume();
    });

    const logs: string[] = [];
    const connect = async (url: string, clock = new ManualClock()) => {
      const metrics = createServerMetrics();
      logs.length = 0;
      shared = await connectSharedRedis({
        url,
        timeoutMs: 80,
        metrics: createSharedStateMetrics(metrics.main, { redis: true }),
        clock,
        log: (line) => logs.push(line),
        probeIntervalMs: 500,
      });
      const series = async (name: string) => seriesOf(await metrics.main.registry.metrics(), name);
      return { shared, series, clock };
    };

    it('falls back within the timeout when Redis stalls, then at once, and is up again once a probe answers', async () => {
      const { shared, series, clock } = await connect(redis.url);
      expect(shared.state).to.equal('up');
      expect(await shared.run('ping', (c) => c.ping())).to.equal('PONG');
      redis.pause();
      let started = performance.now();
      expect(await shared.run('rate-limit', (c) => c.ping())).to.equal(undefined);
      expect(performance.now() - started).to.be.below(300);
      expect(shared.state).to.equal('degraded');
      started = performance.now();
      expect(await shared.run('rate-limit', (c) => c.ping())).to.equal(undefined);
      expect(performance.now() - started).to.be.below(20);
      expect((await series('gatehouse_redis_up')).get('')).to.equal(0);
      expect((await series('gatehouse_redis_errors_total')).get(labels({ operation: 'rate-limit' }))).to.equal(1);
      expect((await series('gatehouse_redis_fallbacks_total')).get(labels({ operation: 'rate-limit' }))).to.equal(2);

      redis.resume();
      await clock.whenArmed((t) => t.ms === 500);
      clock.advance(500);
      await eventually('up again after the probe', async () => shared.state === 'up');
      expect((await series('gatehouse_redis_up')).get('')).to.equal(1);
    });

    it('treats a server that answers garbage as down', async () => {
      const sockets = new Set<net.Socket>();
      const garbage = net.createServer((socket) => {
        sockets.add(socket);
        socket.on('data', () => socket.write('this is not RESP\r\n'));
        socket.on('error', () => {});
      });
      garbage.listen(0, '127.0.0.1');
      await once(garbage, 'listening');
      try {
        const { port } = garbage.address() as net.AddressInfo;
        const started = performance.now();
        const { shared } = await connect(`redis://127.0.0.1:${port}`);
        expect(performance.now() - started).to.be.below(1_500);
        expect(shared.state).to.equal('degraded');
        expect(await shared.run('decision-get', (c) => c.get('x'))).to.equal(undefined);
      } finally {
        await shared?.close();
        shared = undefined;
        for (const socket of sockets) socket.destroy();
        garbage.close();
      }
    });

    it('starts without a Redis that is not there, saying so without its password', async () => {
      const port = await freePort();
      const { shared } = await connect(`redis://:sekret-password@127.0.0.1:${port}`);
      expect(shared.state).to.equal('degraded');
      expect(logs).to.have.length.at.least(1);
      expect(logs[0]).to.match(/^warning: Redis at redis:\/\/\*\*\*@127\.0\.0\.1:\d+ does not answer/);
      expect(logs.join('\n')).to.not.contain('sekret');
    });

    it('uses a Redis that comes up after the start', async () => {
      await redis.kill();
      const { shared } = await connect(redis.url);
      expect(shared.state).to.equal('degraded');
      await redis.restart();
      await eventually('up once Redis is there', async () => shared.state === 'up');
    });

    it('reconnects by itself after Redis restarts', async () => {
      const { shared } = await connect(redis.url);
      await redis.restart();
      await eventually('degraded after the restart, then up again', async () => shared.state === 'up', 10_000);
      expect(await shared.run('ping', (c) => c.ping())).to.equal('PONG');
    });
  });
});
