import { expect } from 'chai';
import Koa from 'koa';
import { requestInfoFilter } from '../../gateway/request/request-info.js';
import { createMaxInFlightFilter } from '../../gateway/filters/max-in-flight.js';
import { setUser } from '../../gateway/request/user.js';
import { createSummaryLog } from '../../gateway/server/summary-log.js';
import { renderStatusErrors, serveKoa, type TestServer } from '../helpers/koa-server.js';

describe('in-flight limit filter', () => {
  let server: TestServer;
  let release: () => void = () => {};
  let entered: Promise<void> = Promise.resolve();
  let enter: () => void = () => {};

  /** The next request to a path ending in /hold stays in its handler until `release()`. */
  function holdNext(): Promise<void> {
    entered = new Promise((resolve) => {
      enter = resolve;
    });
    return entered;
  }

  before(async () => {
    const app = new Koa();
    app.use(requestInfoFilter);
    app.use(renderStatusErrors);
    app.use(async (ctx, next) => {
      setUser(ctx, { name: 'someone', groups: (ctx.get('x-groups') || 'staff').split(',') });
      await next();
    });
    app.use(createMaxInFlightFilter({ readOnly: 1, mutating: 1 }));
    app.use(async (ctx) => {
      if (ctx.path.endsWith('/hold')) {
        await new Promise<void>((resolve) => {
          release = resolve;
          enter();
        });
      }
      ctx.body = { served: true };
    });
    server = await serveKoa(app);
  });
  after(async () => server.close());

  async function whileHeld(method: string, probe: () => Promise<void>): Promise<void> {
    const inHandler = holdNext();
    const held = server.request(method, '/api/v1/namespaces/a/pods/hold');
    await inHandler;
    try {
      await probe();
    } finally {
      release();
      expect((await held).status).to.equal(200);
    }
  }

  it('counts every verb but get, list and watch as mutating, and those apart', async () => {
    await whileHeld('DELETE', async () => {
      for (const [method, path] of [
        ['POST', '/api/v1/namespaces/a/pods'],
        ['PUT', '/api/v1/namespaces/a/pods/x'],
        ['PATCH', '/api/v1/namespaces/a/pods/x'],
        ['DELETE', '/api/v1/namespaces/a/pods'],
        ['POST', '/api/v1/namespaces/a/pods/x/eviction'],
      ]) {
        const res = await server.request(method, path);
        expect(res.status, `${method} ${path}`).to.equal(429);
        expect(res.json()).to.deep.include({
          kind: 'Status',
          reason: 'TooManyRequests',
          message: 'Too many requests, please try again later.',
          code: 429,
          details: { retryAfterSeconds: 1 },
        });
      }
      expect((await server.request('GET', '/api/v1/namespaces/a/pods')).status).to.equal(200);
      expect((await server.request('GET', '/api/v1/namespaces/a/pods/x')).status).to.equal(200);
    });
  });

  it('does not count long-running requests: watches, proxy, and the streaming subresources', async () => {
    await whileHeld('GET', async () => {
      expect((await server.request('GET', '/api/v1/namespaces/a/pods')).status).to.equal(429);
      expect((await server.request('GET', '/api/v1/namespaces/a/pods?watch=true')).status).to.equal(200);
      expect((await server.request('GET', '/api/v1/namespaces/a/pods/x/log')).status).to.equal(200);
    });
    await whileHeld('POST', async () => {
      for (const sub of ['exec', 'attach', 'portforward', 'proxy']) {
        expect((await server.request('POST', `/api/v1/namespaces/a/pods/x/${sub}`)).status, sub).to.equal(200);
      }
    });
  });

  it('serves system:masters past the limit without taking a place', async () => {
    await whileHeld('POST', async () => {
      expect(
        (await server.request('POST', '/api/v1/namespaces/a/pods', { 'x-groups': 'staff,system:masters' })).status,
      ).to.equal(200);
      expect(
        (await server.request('POST', '/api/v1/namespaces/a/pods', { 'x-groups': 'system:mastersx' })).status,
      ).to.equal(429);
    });
  });
});

describe('summary log', () => {
  it('tells the first event at once and the rest in one line when the interval is over', async () => {
    const lines: string[] = [];
    let second: () => void = () => {};
    const told = new Promise<void>((resolve) => {
      second = resolve;
    });
    const summary = createSummaryLog(
      (line) => {
        lines.push(line);
        if (lines.length === 2) second();
      },
      (count, first) => (first ? 'first' : `${count} more`),
      50,
    );
    for (let i = 0; i < 5; i++) summary.note();
    expect(lines).to.deep.equal(['first']);
    await told;
    expect(lines).to.deep.equal(['first', '4 more']);
    summary.close();
  });
});
