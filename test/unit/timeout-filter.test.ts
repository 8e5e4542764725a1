// The request timeout runs on a clock the test moves, and slow handlers are ones the test holds: each case says when
// a request is answered by the time the clock shows, not by how long a machine takes to get there.
import { expect } from 'chai';
import Koa from 'koa';
import { requestInfoFilter } from '../../gateway/request/request-info.js';
import { createTimeoutFilter } from '../../gateway/filters/timeout.js';
import { renderStatusErrors, serveKoa, type TestResponse, type TestServer } from '../helpers/koa-server.js';
import { ManualClock } from '../helpers/manual-clock.js';

const LIMIT_MS = 100;

describe('request timeout filter', () => {
  let server: TestServer;
  const clock = new ManualClock();
  /** Handlers of `?hold=<name>` requests, waiting for the test to let them finish. */
  const holding = new Map<string, () => void>();
  let arrived: ((name: string) => void) | undefined;
  /** Held requests the server has answered (its status written), whether or not the client has read it yet. */
  const answered = new Set<string>();

  before(async () => {
    const app = new Koa();
    app.use(requestInfoFilter);
    app.use(async (ctx, next) => {
      try {
        await next();
      } finally {
        if (typeof ctx.query.hold === 'string') answered.add(ctx.query.hold);
      }
    });
    app.use(renderStatusErrors);
    app.use(createTimeoutFilter(LIMIT_MS, clock));
    app.use(async (ctx) => {
      const name = ctx.query.hold;
      if (typeof name === 'string') {
        await new Promise<void>((resolve) => {
          holding.set(name, resolve);
          arrived?.(name);
        });
      }
      ctx.body = { done: true };
    });
    server = await serveKoa(app);
  });
  after(async () => server.close());
  afterEach(() => {
    for (const release of holding.values()) release();
    holding.clear();
    answered.clear();
  });

  /** Sends a request its handler holds, resolving once the handler has it (so the filter's deadline is set). */
  async function held(
    name: string,
    path = '/api/v1/namespaces/a/configmaps/x',
  ): Promise<{ answer: Promise<TestResponse> }> {
    const entered = new Promise<void>((resolve) => {
      arrived = (n) => {
        if (n === name) resolve();
      };
    });
    const answer = server.request('GET', `${path}${path.includes('?') ? '&' : '?'}hold=${name}`);
    await entered;
    return { answer };
  }

  /**
   * Whether the server answered the held request `name`. A quick request's round trip comes first: a 504 the sweep
   * decided is rendered in the microtasks right after it, long before that answer arrives.
   */
  async function answeredYet(name: string): Promise<boolean> {
    expect((await server.request('GET', '/api/v1/namespaces/a/configmaps/x')).status).to.equal(200);
    return answered.has(name);
  }

  it('answers 504 Timeout once a request outlives the limit', async () => {
    const { answer } = await held('slow');
    clock.advance(LIMIT_MS);
    const res = await answer;
    expect(res.status).to.equal(504);
    expect(res.json()).to.include({ kind: 'Status', reason: 'Timeout', code: 504 });
  });

  it('lets requests within the limit through', async () => {
    const { answer } = await held('quick');
    clock.advance(LIMIT_MS - 1);
    holding.get('quick')!();
    const res = await answer;
    expect(res.status).to.equal(200);
    expect(res.json()).to.deep.equal({ done: true });
  });

  it('answers the 504 at the limit, while the handler still runs', async () => {
    const { answer } = await held('stuck');
    clock.advance(LIMIT_MS);
    expect((await answer).status).to.equal(504);
    // The handler was never let go: the answer did not wait for it.
    expect(holding.has('stuck')).to.equal(true);
  });

  it('judges each request by its own deadline while others are open', async () => {
    const first = await held('first-slow');
    clock.advance(50);
    const second = await held('second-slow');
    // A quick request started while both slow ones are open passes.
    expect((await server.request('GET', '/api/v1/namespaces/a/configmaps/x')).status).to.equal(200);
    clock.advance(LIMIT_MS - 50);
    expect((await first.answer).status).to.equal(504);
    // The second has 50 ms left: the sweep that answered the first leaves it alone.
    expect(await answeredYet('second-slow')).to.equal(false);
    const third = await held('third');
    clock.advance(49);
    expect(await answeredYet('second-slow')).to.equal(false);
    clock.advance(1);
    expect((await second.answer).status).to.equal(504);
    holding.get('third')!();
    expect((await third.answer).status).to.equal(200);
    // Once every request was answered, a new slow one still gets its 504: the sweep restarts.
    const last = await held('last');
    clock.advance(LIMIT_MS);
    expect((await last.answer).status).to.equal(504);
  });

  it('never bounds a watch', async () => {
    const { answer } = await held('watch', '/api/v1/namespaces/a/configmaps?watch=1');
    clock.advance(10 * LIMIT_MS);
    expect(await answeredYet('watch')).to.equal(false);
    holding.get('watch')!();
    expect((await answer).status).to.equal(200);
  });

  it('never bounds a streaming subresource (exec, as an aggregated server serves it)', async () => {
    const { answer } = await held('exec', '/apis/wardle.example.io/v1/namespaces/a/flunders/x/exec');
    clock.advance(10 * LIMIT_MS);
    expect(await answeredYet('exec')).to.equal(false);
    holding.get('exec')!();
    expect((await answer).status).to.equal(200);
  });
});
