import { expect } from 'chai';
import Koa from 'koa';
import { gunzipSync } from 'node:zlib';
import { requestInfoFilter } from '../../gateway/request/request-info.js';
import { createCompression } from '../../gateway/filters/compression.js';
import { parseFeatureGates } from '../../gateway/server/feature-gates.js';
import { serveKoa, type TestServer } from '../helpers/koa-server.js';

const items = Array.from({ length: 50 }, (_, i) => ({ metadata: { name: `cm-${i}` }, data: { k: 'v'.repeat(40) } }));

async function serve(gates: string, thresholdBytes?: number): Promise<TestServer> {
  const app = new Koa();
  app.use(requestInfoFilter);
  app.use(createCompression(parseFeatureGates(gates), { thresholdBytes }));
  app.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ kind: 'ConfigMapList', items });
  });
  return serveKoa(app);
}

describe('response compression', () => {
  let server: TestServer;
  afterEach(() => server?.close());
  const gzip = { 'accept-encoding': 'gzip, deflate, br' };

  it('gzips get and list responses when asked', async () => {
    server = await serve('');
    for (const path of ['/api/v1/configmaps', '/api/v1/namespaces/a/configmaps/x']) {
      const res = await server.request('GET', path, gzip);
      expect(res.headers['content-encoding'], path).to.equal('gzip');
      expect(JSON.parse(gunzipSync(res.body).toString()).items).to.have.length(50);
    }
  });

  it('leaves responses alone without Accept-Encoding, for watches and for non-GET', async () => {
    server = await serve('');
    expect((await server.request('GET', '/api/v1/configmaps')).headers['content-encoding']).to.equal(undefined);
    expect((await server.request('GET', '/api/v1/configmaps?watch=true', gzip)).headers['content-encoding']).to.equal(
      undefined,
    );
    expect(
      (await server.request('POST', '/api/v1/namespaces/a/configmaps', gzip)).headers['content-encoding'],
    ).to.equal(undefined);
  });

  it('is switched off by APIResponseCompression=false', async () => {
    server = await serve('APIResponseCompression=false');
    const res = await server.request('GET', '/api/v1/configmaps', gzip);
    expect(res.headers['content-encoding']).to.equal(undefined);
    expect(res.json().items).to.have.length(50);
  });

  it('honours a size threshold', async () => {
    server = await serve('', 1 << 20);
    expect((await server.request('GET', '/api/v1/configmaps', gzip)).headers['content-encoding']).to.equal(undefined);
  });
});
