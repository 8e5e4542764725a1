import { expect } from 'chai';
import Koa from 'koa';
import { requestInfoFilter } from '../../gateway/filters/request-info.js';
import { createTimeoutFilter } from '../../gateway/filters/timeout.js';
import { renderStatusErrors, serveKoa, type TestServer } from '../helpers/koa-server.js';

describe('request timeout filter', () => {
  let server: TestServer;
  before(async () => {
    const app = new Koa();
    app.use(requestInfoFilter);
    app.use(renderStatusErrors);
    app.use(createTimeoutFilter(100));
    app.use(async (ctx) => {
      await new Promise((r) => setTimeout(r, Number(ctx.query.wait ?? 0)));
      ctx.body = { done: true };
    });
    server = await serveKoa(app);
  });
  after(async () => server.close());

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

  it('never bounds a watch', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/a/configmaps?watch=1&wait=300');
    expect(res.status).to.equal(200);
  });
});
