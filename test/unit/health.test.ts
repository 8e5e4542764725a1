import { expect } from 'chai';
import Koa from 'koa';
import {
  createHealthChecks,
  createHealthHandler,
  pingCheck,
  logCheck,
  type HealthChecks,
} from '../../gateway/handlers/health.js';
import { serveKoa, type TestServer } from '../helpers/koa-server.js';

describe('health endpoints', () => {
  let checks: HealthChecks;
  let server: TestServer;
  let storageUp: boolean;
  let clock: number;
  const logged: string[] = [];

  beforeEach(async () => {
    storageUp = true;
    clock = 1_000;
    logged.length = 0;
    checks = createHealthChecks({ livezGracePeriodMs: 10_000, now: () => clock });
    checks.add(pingCheck());
    checks.add(logCheck());
    checks.add({
      name: 'etcd',
      async check() {
        if (!storageUp) throw new Error('storage down: secret detail');
      },
    });
    const app = new Koa();
    app.use(createHealthHandler(checks, { log: (l) => logged.push(l) }));
    app.use((ctx) => {
      ctx.status = 404;
      ctx.body = 'fell through';
    });
    server = await serveKoa(app);
  });
  afterEach(() => server.close());

  it('answers ok with 200, text/plain and nosniff', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const res = await server.request('GET', path);
      expect(res.status, path).to.equal(200);
      expect(res.text).to.equal('ok');
      expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8');
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
    }
  });

  it('lists every check with ?verbose, readyz adding shutdown', async () => {
    const res = await server.request('GET', '/readyz?verbose');
    expect(res.status).to.equal(200);
    expect(res.text).to.equal('[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]shutdown ok\nhealthz check passed\n');
    const livez = await server.request('GET', '/livez?verbose');
    expect(livez.text).to.not.contain('shutdown');
    expect(livez.text).to.match(/\nhealthz check passed\n$/);
    // Unlike the API's boolean parameters, verbose counts by its presence alone, as upstream's health handler reads it.
    expect((await server.request('GET', '/readyz?verbose=false')).text).to.match(/^\[\+\]ping ok\n/);
  });

  it('shows the note of a check that passes in a degraded state, still answering 200', async () => {
    checks.addReadyz({ name: 'redis', check: async () => 'degraded' });
    const res = await server.request('GET', '/readyz?verbose');
    expect(res.status).to.equal(200);
    expect(res.text).to.contain('\n[+]redis ok (degraded)\n');
    expect((await server.request('GET', '/readyz')).text).to.equal('ok');
  });

  it('fails with 500, withholding the reason from the body but logging it', async () => {
    storageUp = false;
    const res = await server.request('GET', '/readyz');
    expect(res.status).to.equal(500);
    expect(res.text).to.contain('[-]etcd failed: reason withheld\n').and.contain('[+]ping ok');
    expect(res.text).to.match(/readyz check failed\n$/);
    expect(res.text).to.not.contain('secret detail');
    expect(logged.join('\n')).to.contain('storage down: secret detail');
  });

  it('skips excluded checks, combinable with verbose, and warns about unknown names', async () => {
    storageUp = false;
    const res = await server.request('GET', '/readyz?verbose&exclude=etcd&exclude=nope');
    expect(res.status).to.equal(200);
    expect(res.text).to.contain('[+]etcd excluded: ok\n');
    expect(res.text).to.contain('warn: some health checks cannot be excluded: no matches for "nope"');
  });

  it('runs a single check by name, including names with slashes', async () => {
    const hook = checks.postStartHook('bootstrap-namespaces');
    expect((await server.request('GET', '/livez/ping')).text).to.equal('ok');
    clock += 20_000;
    const pending = await server.request('GET', '/readyz/poststarthook/bootstrap-namespaces');
    expect(pending.status).to.equal(500);
    hook.complete();
    expect((await server.request('GET', '/readyz/poststarthook/bootstrap-namespaces')).status).to.equal(200);
    const unknown = await server.request('GET', '/livez/no-such-check');
    expect(unknown.text).to.equal('fell through');
    expect((await server.request('GET', '/livez/shutdown')).text).to.equal('fell through');
  });

  it('fails readyz (only) once shutdown begins', async () => {
    checks.beginShutdown();
    const ready = await server.request('GET', '/readyz?verbose');
    expect(ready.status).to.equal(500);
    expect(ready.text).to.contain('[-]shutdown failed: reason withheld');
    expect((await server.request('GET', '/livez')).status).to.equal(200);
    expect((await server.request('GET', '/healthz')).status).to.equal(200);
  });

  it('lets livez pass unfinished post-start hooks during the grace period, not readyz', async () => {
    const hook = checks.postStartHook('start-informers');
    expect((await server.request('GET', '/livez')).status).to.equal(200);
    expect((await server.request('GET', '/readyz')).status).to.equal(500);
    clock += 10_001;
    const late = await server.request('GET', '/livez?verbose');
    expect(late.status).to.equal(500);
    expect(late.text).to.contain('[-]poststarthook/start-informers failed');
    hook.complete();
    expect((await server.request('GET', '/livez')).status).to.equal(200);
  });

  it('keeps boot steps idempotent by name and refuses duplicate check names', () => {
    expect(checks.bootSequence('autoregister-completion')).to.equal(checks.bootSequence('autoregister-completion'));
    expect(() => checks.add(pingCheck())).to.throw('already registered');
  });

  it('leaves other paths and methods to the next middleware', async () => {
    expect((await server.request('GET', '/healthzz')).text).to.equal('fell through');
    expect((await server.request('POST', '/healthz')).text).to.equal('fell through');
  });
});
