import { expect } from 'chai';
import Koa from 'koa';
import { requestInfoFilter } from '../../gateway/filters/request-info.js';
import { createTimeoutFilter } from '../../gateway/filters/timeout.js';
import { renderStatusErrors, serveKoa, type TestServer } from '../helpers/koa-server.js';

describe('request timeout filter', () => {
  let server: TestServer;
  // A handler the filter gave up on goes on waiting after its 504: those waits end with the file, not seconds later.
  const handlerWaits = new Set<NodeJS.Timeout>();
  before(async () => {
    const app = new Koa();
    app.use(requestInfoFilter);
    app.use(renderStatusErrors);
    app.use(createTimeoutFilter(100));
    app.use(async (ctx) => {
      await new Promise<void>((r) => {
        const wait = setTimeout(() => {
          handlerWaits.delete(wait);
          r();
        }, Number(ctx.query.wait ?? 0));
        handlerWaits.add(wait);
      });
      ctx.body = { done: true };
    });
    server = await serveKoa(app);
  });
  after(async () => {
    for (const wait of handlerWaits) clearTimeout(wait);
    await server.close();
  });

  it('answers 504 Timeout when a request outlives the limit', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/a/configmaps/x?wait=400');
    expect(res.status).to.equal(504);
    expect(res.json()).to.include({ kind: 'Status', reason: 'Timeout', code: 504 });
  });

  it('lets requests within the limit through', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/a/configmaps/x?wait=10');
    expect(res.status).to.equal(200);
    expect(res.json()).to.deep.equal({ done: true });
  });

  it('answers the 504 at the limit, not when the handler finally finishes', async () => {
    const started = Date.now();
    const res = await server.request('GET', '/api/v1/namespaces/a/configmaps/x?wait=3000');
    expect(res.status).to.equal(504);
    expect(Date.now() - started).to.be.below(2_000);
  });

  it('judges each request by its own deadline while others are open', async () => {
    // Slow and quick requests interleaved: every slow one times out, every quick one (started later than a slow one
    // still open) passes.
    const waits = [400, 10, 400, 20, 5, 400, 30];
    const answers = await Promise.all(waits.map(async (wait, i) => {
      await new Promise((r) => setTimeout(r, i * 5));
      return (await server.request('GET', `/api/v1/namespaces/a/configmaps/x?wait=${wait}`)).status;
    }));
    expect(answers).to.deep.equal(waits.map((wait) => (wait > 100 ? 504 : 200)));
    // And once they are all answered, a new slow request still gets its 504 (the sweep restarts).
    expect((await server.request('GET', '/api/v1/namespaces/a/configmaps/x?wait=400')).status).to.equal(504);
  });

  it('never bounds a watch', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/a/configmaps?watch=1&wait=300');
    expect(res.status).to.equal(200);
  });
});
