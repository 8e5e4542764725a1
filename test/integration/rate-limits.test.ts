// The rate-limit filter in one gateway without Redis: each replica's share of a limit (--rate-limit-replicas), the
// 429 Status naming the limit with Retry-After, the refill on the server's clock, and who is never limited
// (system:masters, the health probes).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { labels, scrape, seriesOf } from '../helpers/metrics-text.js';

const ALICE = 'alice-token-0123456789';

describe('rate limits without Redis', function () {
  this.timeout(30_000);
  let dir: string;
  let gh: TestGatehouse;
  const clock = new ManualClock();

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-rate-limits-'));
    await writeFile(path.join(dir, 'tokens.csv'), `${ALICE},alice,1\n`);
    await writeFile(
      path.join(dir, 'limits.yaml'),
      [
        'apiVersion: gatehouse.platform.io/v1alpha1',
        'kind: RateLimitConfiguration',
        'limits:',
        '- {name: alice-limit, users: [alice], requestsPerSecond: 1, burst: 4}',
        '- {name: anonymous, groups: ["system:unauthenticated"], requestsPerSecond: 0.001, burst: 1, distinguisher: None}',
        '- {name: masters, groups: ["system:masters"], requestsPerSecond: 0.001, burst: 1}',
        '',
      ].join('\n'),
    );
    gh = await startTestGatehouse(
      [
        '--token-auth-file',
        path.join(dir, 'tokens.csv'),
        '--rate-limit-config',
        path.join(dir, 'limits.yaml'),
        '--rate-limit-replicas',
        '2',
      ],
      { clock },
    );
  });
  after(async () => {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("enforces this replica's share, answering 429 with Retry-After and a Status naming the limit", async () => {
    const get = () => gh.request('GET', '/api/v1/namespaces/default/configmaps', { token: ALICE });
    // Half of a burst of 4 and of 1 request a second: two at once, then one every two seconds.
    expect((await get()).status).to.not.equal(429);
    expect((await get()).status).to.not.equal(429);
    const refused = await get();
    expect(refused.status).to.equal(429);
    expect(refused.headers['retry-after']).to.equal('2');
    expect(refused.json()).to.deep.include({
      kind: 'Status',
      code: 429,
      reason: 'TooManyRequests',
      message:
        'rate limit alice-limit exceeded: at most 1 requests per second per user (burst 4), please try again later',
      details: { retryAfterSeconds: 2 },
    });
    clock.advance(2_000);
    expect((await get()).status).to.not.equal(429);
    expect((await get()).status).to.equal(429);

    const text = await scrape(gh);
    expect(
      seriesOf(text, 'gatehouse_rate_limit_rejected_requests_total').get(labels({ limit: 'alice-limit' })),
    ).to.equal(2);
    expect(
      seriesOf(text, 'gatehouse_rate_limit_requests_total').get(labels({ limit: 'alice-limit', result: 'admitted' })),
    ).to.equal(3);
    // Without --redis-url there is no Redis to report on.
    expect(text).to.not.contain('gatehouse_redis_up');
  });

  it('never limits system:masters or the health probes', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await gh.request('GET', '/api/v1/namespaces')).status).to.equal(200);
      expect((await gh.request('GET', '/readyz', { token: null })).status).to.equal(200);
    }
    expect((await gh.request('GET', '/version', { token: null })).status).to.equal(200);
    expect((await gh.request('GET', '/version', { token: null })).status).to.equal(429);
  });
});
