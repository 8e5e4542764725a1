// Two replicas (child processes on one PostgreSQL) sharing one real redis-server and one real authorization webhook:
// a decision is asked of the webhook about once whichever replica serves it, a rate limit holds across both replicas,
// and a Redis killed mid-run leaves them serving (readiness stays 200 and says "degraded"), counted in metrics, until
// it is back.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { eventually } from '../helpers/api.js';
import { labels, seriesOf } from '../helpers/metrics-text.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startReplicas, type Replica, type ReplicaCluster } from '../helpers/replicas.js';
import { startTestWebhook, webhookEntry, type TestWebhook } from '../helpers/webhook-server.js';

const TOKENS = { alice: 'alice-token-0123456789', carol: 'carol-token-0123456789', dave: 'dave-token-0123456789' };
const RATE = 5;
const BURST = 10;

describe('shared state across replicas through Redis', function () {
  this.timeout(120_000);
  let dir: string;
  let pg: TestPostgres;
  let redis: TestRedis;
  let hook: TestWebhook;
  let cluster: ReplicaCluster;
  let a: Replica;
  let b: Replica;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-shared-state-'));
    [pg, redis, hook] = await Promise.all([
      startPostgres({ fast: true }),
      startRedis(),
      startTestWebhook(() => ({ status: { allowed: true, reason: 'hook says yes' } })),
    ]);
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(
      tokens,
      Object.entries(TOKENS)
        .map(([user, token], i) => `${token},${user},${i}`)
        .join('\n'),
    );
    const authz = path.join(dir, 'authz.json');
    await writeFile(
      authz,
      JSON.stringify({
        apiVersion: 'apiserver.config.platform.io/v1',
        kind: 'AuthorizationConfiguration',
        authorizers: [webhookEntry('people', hook)],
      }),
    );
    const limits = path.join(dir, 'limits.yaml');
    await writeFile(
      limits,
      [
        'apiVersion: gatehouse.platform.io/v1alpha1',
        'kind: RateLimitConfiguration',
        'limits:',
        `- {name: alice-limit, users: [alice], requestsPerSecond: ${RATE}, burst: ${BURST}}`,
        '- {name: carol-limit, users: [carol], requestsPerSecond: 1000, burst: 1000}',
        '',
      ].join('\n'),
    );
    const args = [
      '--authorization-config',
      authz,
      '--token-auth-file',
      tokens,
      '--redis-url',
      redis.url,
      '--rate-limit-config',
      limits,
      '--rate-limit-replicas',
      '2',
      // Two noisy cores run both replicas and the test: at the default 100 ms a late answer would count as Redis
      // down, and the replicas' own shares would add their bursts to the sum checked.
      '--redis-timeout',
      '1s',
    ];
    cluster = await startReplicas(pg.url, []);
    [a, b] = await Promise.all([cluster.start('a', args), cluster.start('b', args)]);
  });
  after(async () => {
    await cluster?.stop();
    await Promise.all([pg?.stop(), redis?.stop(), hook?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  const reviewsOf = (user: string) => hook.received.filter((r) => r.body?.spec?.user === user).length;
  const metricsOf = async (replica: Replica, name: string) => {
    const res = await replica.request('GET', '/metrics');
    expect(res.status).to.equal(200);
    return seriesOf(res.body, name);
  };

  it('asks the webhook about once per decision, whichever replica serves the request', async () => {
    const decisions = 8;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < decisions; i++) {
        const replica = (i + round) % 2 === 0 ? a : b;
        const res = await replica.request('GET', `/api/v1/namespaces/default/configmaps/cm-${i}`, {
          token: TOKENS.dave,
        });
        expect(res.status, res.body).to.equal(404);
      }
    }
    // Each replica alone would have asked every decision once: twice as many.
    expect(reviewsOf('dave')).to.be.within(decisions, decisions + 1);

    const client = new Redis(redis.url);
    try {
      const keys = await client.keys('gatehouse:authz-decision:*');
      expect(keys).to.have.length.within(decisions, decisions + 1);
      for (const key of keys) expect(key).to.match(/^gatehouse:authz-decision:[0-9a-f]{64}$/);
      const ttl = await client.pttl(keys[0]);
      expect(ttl).to.be.within(1, 5 * 60_000);
      for (const value of await client.mget(keys)) expect(value).to.not.contain('dave');
    } finally {
      client.disconnect();
    }
  });

  it('holds a rate limit across both replicas', async () => {
    const results: { status: number; retryAfter?: string; message?: string }[] = [];
    const started = performance.now();
    // Ten clients at once, alternating replicas, for about two seconds.
    await Promise.all(
      Array.from({ length: 10 }, async (_, worker) => {
        for (let n = 0; performance.now() - started < 2_000; n++) {
          const replica = (worker + n) % 2 === 0 ? a : b;
          const res = await replica.request('GET', '/api/v1/namespaces/default/configmaps', { token: TOKENS.alice });
          results.push({
            status: res.status,
            retryAfter: res.headers['retry-after'] as string | undefined,
            message: res.status === 429 ? res.json().message : undefined,
          });
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const admitted = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 429);
    expect(admitted + refused.length).to.equal(results.length);
    expect(admitted).to.be.at.least(BURST);
    // One token may fall due between the last request and the clock read.
    expect(admitted).to.be.at.most(Math.ceil(BURST + RATE * elapsed) + 1);
    expect(refused.length).to.be.greaterThan(0);
    expect(refused[0].retryAfter).to.equal('1');
    expect(refused[0].message).to.equal(
      'rate limit alice-limit exceeded: at most 5 requests per second per user (burst 10), please try again later',
    );
    const rejected = async (replica: Replica) =>
      (await metricsOf(replica, 'gatehouse_rate_limit_rejected_requests_total')).get(
        labels({ limit: 'alice-limit' }),
      ) ?? 0;
    expect((await rejected(a)) + (await rejected(b))).to.equal(refused.length);
    // Every verdict came from Redis: each replica's own share (half the limit each) would also hold the sum.
    for (const replica of [a, b])
      expect((await metricsOf(replica, 'gatehouse_redis_fallbacks_total')).get(labels({ operation: 'rate-limit' }))).to
        .be.undefined;
  });

  it('keeps serving while Redis is down, says so in /readyz, and uses it again once it is back', async () => {
    const fallbacks = async (replica: Replica) =>
      (await metricsOf(replica, 'gatehouse_redis_fallbacks_total')).get(labels({ operation: 'rate-limit' })) ?? 0;
    const before = await fallbacks(a);
    await redis.kill();

    await eventually('replica a reports Redis degraded', async () => {
      const res = await a.request('GET', '/readyz?verbose');
      return res.status === 200 && res.body.includes('[+]redis ok (degraded)');
    });
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await a.request('GET', `/api/v1/namespaces/default/configmaps?limit=${i + 1}`, {
        token: TOKENS.carol,
      });
      expect(res.status, res.body).to.equal(200);
      expect(performance.now() - started).to.be.below(1_000);
    }
    expect(await fallbacks(a)).to.be.at.least(before + 5);
    expect((await metricsOf(a, 'gatehouse_redis_up')).get('')).to.equal(0);
    expect((await b.request('GET', '/readyz')).status).to.equal(200);

    await redis.restart();
    await eventually(
      'replica a uses Redis again',
      async () => {
        const res = await a.request('GET', '/readyz?verbose');
        return res.status === 200 && res.body.includes('[+]redis ok\n');
      },
      15_000,
    );
    expect((await metricsOf(a, 'gatehouse_redis_up')).get('')).to.equal(1);
    const after = await fallbacks(a);
    expect((await a.request('GET', '/api/v1/namespaces', { token: TOKENS.carol })).status).to.equal(200);
    expect(await fallbacks(a)).to.equal(after);
  });
});
