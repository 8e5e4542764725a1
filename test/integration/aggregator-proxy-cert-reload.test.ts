// --proxy-client-cert-file and --proxy-client-key-file rotated while the server runs: an upstream that accepts only
// the new certificate (it refuses any other in the TLS handshake) is reached by the availability checks and the proxy
// once the files change, without a restart; a pair that does not load is logged and the last good one kept.
import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { eventually } from '../helpers/api.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { issueClientCert, makeCA } from '../helpers/pki.js';
import { startUpstreamAPIServer, type UpstreamAPIServer } from '../helpers/upstream-apiserver.js';
import {
  APISERVICES,
  PROXY_CLIENT_CN,
  startAggregatedGatehouse,
  type AggregatedGatehouse,
} from '../helpers/aggregated-gatehouse.js';

const GROUP = 'strict.example.io';
const NAME = `v1.${GROUP}`;
const SERVICE = { namespace: 'wardle', name: 'strict' };
const FLUNDERS = `/apis/${GROUP}/v1/namespaces/rotation/flunders`;

describe('aggregator: the proxy client certificate reloaded when its files change', function () {
  this.timeout(60_000);
  const clock = new ManualClock();
  let a: AggregatedGatehouse;
  let strict: UpstreamAPIServer;
  let rotatedCa: Awaited<ReturnType<typeof makeCA>>;

  const availability = async () =>
    (await a.gh.request('GET', `${APISERVICES}/${NAME}`))
      .json()
      .status?.conditions?.find((c: { type: string }) => c.type === 'Available');
  const logged = (text: string) =>
    eventually(`the log says ${text}`, async () => a.gh.logs.some((l) => l.includes(text)));
  const files = () => ({ cert: path.join(a.dir, 'proxy-client.crt'), key: path.join(a.dir, 'proxy-client.key') });

  before(async () => {
    rotatedCa = await makeCA('rotated-front-proxy-ca');
    strict = await startUpstreamAPIServer({
      group: GROUP,
      version: 'v1',
      service: SERVICE,
      clientCa: rotatedCa.certPem,
      requireClientCert: true,
    });
    a = await startAggregatedGatehouse({
      clock,
      availabilityController: true,
      extraEndpoints: [{ ...SERVICE, port: 443, url: strict.url }],
    });
    await a.register({ group: GROUP, version: 'v1', service: SERVICE, caBundle: strict.caBundle, available: false });
  });
  after(async () => {
    await a?.close();
    await strict?.close();
  });

  it('is refused by the upstream with the certificate the server started with', async () => {
    const condition = await eventually('the first check has failed', async () => {
      const c = await availability();
      return c?.status === 'False' ? c : undefined;
    });
    expect(condition.reason).to.equal('FailedDiscoveryCheck');
    expect(strict.received).to.deep.equal([]);
    expect((await a.gh.request('GET', FLUNDERS)).status).to.equal(503);
  });

  it('presents the new pair from the next check and the next proxied request on', async () => {
    const rotated = await issueClientCert(rotatedCa, { cn: PROXY_CLIENT_CN });
    // The key first: until the certificate follows, the pair does not match, and the old one stays in use.
    await writeFile(files().key, rotated.keyPem);
    await writeFile(files().cert, rotated.certPem);
    await logged('loaded a new cert/key pair aggregator-proxy-cert::');
    clock.advance(30_000);
    const condition = await eventually('the next check passes', async () => {
      const c = await availability();
      return c?.status === 'True' ? c : undefined;
    });
    expect(condition.reason).to.equal('Passed');
    const res = await a.gh.request('GET', FLUNDERS);
    expect(res.status, res.body).to.equal(200);
    const last = strict.received.at(-1)!;
    expect(last.path).to.equal(FLUNDERS);
    expect(last).to.include({ clientCN: PROXY_CLIENT_CN, clientAuthorized: true });
  });

  it('keeps the last good pair when the files are replaced by one that does not load', async () => {
    await writeFile(files().cert, '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n');
    await logged('the new pair does not load, keeping the previous one');
    const checked = strict.nextRequest(`/apis/${GROUP}/v1`);
    clock.advance(30_000);
    await checked;
    expect(strict.received.at(-1)).to.include({ clientCN: PROXY_CLIENT_CN, clientAuthorized: true });
    expect((await availability()).status).to.equal('True');
  });
});
