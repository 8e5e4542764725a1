// Availability of remote APIServices against a real HTTPS upstream (test/helpers/upstream-apiserver.ts), reached
// through --aggregator-endpoints-file; periodic checks and timeouts are driven by a manual clock.
import { expect } from 'chai';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { openWatch, type OpenWatch } from '../helpers/watch-client.js';
import { eventually, MERGE } from '../helpers/api.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { makeCA } from '../helpers/pki.js';
import { startUpstreamAPIServer, type UpstreamAPIServer } from '../helpers/upstream-apiserver.js';
import { createKubectl, parseColumns, type Kubectl } from '../helpers/kubectl.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const GROUP = 'wardle.example.io';
const NAME = `v1alpha1.${GROUP}`;
const SERVICE = { namespace: 'wardle', name: 'api' };
const PERIOD_MS = 30_000;
const TIMEOUT_MS = 5_000;

const available = (obj: any) => obj.status?.conditions?.find((c: any) => c.type === 'Available');

describe('APIService availability', function () {
  this.timeout(60_000);
  const clock = new ManualClock();
  let upstream: UpstreamAPIServer;
  let dir: string;
  let endpointsFile: string;
  let gh: TestGatehouse;
  let w: OpenWatch | undefined;
  let discoveryUrl: string;

  const writeEndpoints = async (entries: object[]) => {
    // Replaced by rename, as a ConfigMap mount or an editor does.
    await writeFile(`${endpointsFile}.tmp`, JSON.stringify(entries));
    await rename(`${endpointsFile}.tmp`, endpointsFile);
  };
  const entry = () => ({ ...SERVICE, port: 443, url: upstream.url });

  before(async () => {
    upstream = await startUpstreamAPIServer({ group: GROUP, version: 'v1alpha1', service: SERVICE });
    discoveryUrl = `${upstream.url}/apis/${GROUP}/v1alpha1`;
    dir = await mkdtemp(path.join(os.tmpdir(), 'gh-aggregation-'));
    endpointsFile = path.join(dir, 'endpoints.yaml');
    await writeEndpoints([
      entry(),
      { ...SERVICE, name: 'nowhere', port: 443, url: 'https://api.unresolvable.invalid' },
    ]);
    gh = await startTestGatehouse(['--storage-backend', 'memory', `--aggregator-endpoints-file=${endpointsFile}`], {
      clock,
    });
  });
  after(async () => {
    await gh?.close();
    await upstream?.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    w?.close();
    w = undefined;
  });

  /** Follows NAME's watch until its Available condition has `reason` (and the message, when given). */
  async function availability(reason: string, message?: string | RegExp): Promise<any> {
    w ??= await openWatch(gh.url, `${APISERVICES}?watch=1&fieldSelector=metadata.name%3D${NAME}`, {
      ca: gh.ca,
      token: gh.adminToken,
    });
    for (;;) {
      const cond = available((await w.next(10_000)).object);
      if (cond?.reason !== reason) continue;
      if (typeof message === 'string') expect(cond.message).to.equal(message);
      else if (message) expect(cond.message).to.match(message);
      return cond;
    }
  }
  const patchSpec = (spec: object) =>
    gh.request('PATCH', `${APISERVICES}/${NAME}`, { body: { spec }, headers: MERGE }).then((r) => {
      expect(r.status, r.body).to.equal(200);
    });
  const metrics = async () => (await gh.request('GET', '/metrics')).body;
  /** Moves the clock to the next periodic check, once no check is under way and the next one is armed. */
  const nextPeriod = async () => {
    await clock.whenArmed((t) => t.ms === PERIOD_MS);
    clock.advance(PERIOD_MS);
  };

  it('is Passed when the upstream answers discovery over a certificate its caBundle verifies', async () => {
    const res = await gh.request('POST', APISERVICES, {
      body: {
        apiVersion: 'apiregistration.platform.io/v1',
        kind: 'APIService',
        metadata: { name: NAME },
        spec: {
          group: GROUP,
          version: 'v1alpha1',
          service: SERVICE,
          caBundle: upstream.caBundle,
          groupPriorityMinimum: 1000,
          versionPriority: 15,
        },
      },
    });
    expect(res.status, res.body).to.equal(201);
    expect(res.json().spec.service.port).to.equal(443);
    const cond = await availability('Passed', 'all checks passed');
    expect(cond.status).to.equal('True');
    expect(upstream.requests).to.include(`/apis/${GROUP}/v1alpha1`);
    expect(await metrics()).to.include(`aggregator_unavailable_apiservice{name="${NAME}"} 0`);
  });

  it('is False (FailedDiscoveryCheck) with a caBundle of another CA, and True again with the right one', async () => {
    const other = await makeCA('someone-else');
    await patchSpec({ caBundle: Buffer.from(other.certPem).toString('base64') });
    const cond = await availability(
      'FailedDiscoveryCheck',
      new RegExp(`^failing or missing response from ${discoveryUrl}: Get "${discoveryUrl}": .+`),
    );
    expect(cond.status).to.equal('False');
    const text = await metrics();
    expect(text).to.include(`aggregator_unavailable_apiservice{name="${NAME}"} 1`);
    expect(text).to.include(`aggregator_unavailable_apiservice_total{name="${NAME}",reason="FailedDiscoveryCheck"} 1`);
    await patchSpec({ caBundle: upstream.caBundle });
    expect((await availability('Passed')).status).to.equal('True');
  });

  it('fails without a caBundle (the system roots do not know the CA), and passes with insecureSkipTLSVerify', async () => {
    await patchSpec({ caBundle: null });
    const cond = await availability('FailedDiscoveryCheck');
    expect(cond.message).to.match(/certificate/);
    await patchSpec({ insecureSkipTLSVerify: true });
    await availability('Passed');
    await patchSpec({ caBundle: upstream.caBundle, insecureSkipTLSVerify: null });
    await availability('Passed');
  });

  it('notices a failing upstream at the next period, and its recovery at the one after', async () => {
    await availability('Passed');
    upstream.mode = '500';
    await nextPeriod();
    await availability(
      'FailedDiscoveryCheck',
      `failing or missing response from ${discoveryUrl}: bad status from ${discoveryUrl}: 500`,
    );
    upstream.mode = 'garbage';
    await nextPeriod();
    await availability('FailedDiscoveryCheck', new RegExp(`^failing or missing response from ${discoveryUrl}: Get `));
    upstream.mode = 'ok';
    await nextPeriod();
    expect((await availability('Passed')).status).to.equal('True');
  });

  it('gives up on a hanging upstream after the timeout', async () => {
    upstream.mode = 'hang';
    const requested = upstream.nextRequest();
    await nextPeriod();
    await requested;
    clock.advance(TIMEOUT_MS);
    await availability('FailedDiscoveryCheck', `timed out waiting for ${discoveryUrl}`);
    upstream.mode = 'ok';
    await nextPeriod();
    await availability('Passed');
  });

  it('is ServiceNotFound once the endpoints file drops the service, and Passed once it is back', async () => {
    await writeEndpoints([]);
    const cond = await availability('ServiceNotFound', 'service/api in "wardle" is not present');
    expect(cond.status).to.equal('False');
    expect(await metrics()).to.include(
      `aggregator_unavailable_apiservice_total{name="${NAME}",reason="ServiceNotFound"} 1`,
    );
    await writeEndpoints([
      entry(),
      { ...SERVICE, name: 'nowhere', port: 443, url: 'https://api.unresolvable.invalid' },
    ]);
    await availability('Passed');
  });

  it('is ServiceNotFound when the service name does not resolve', async () => {
    await patchSpec({ service: { name: 'nowhere' } });
    await availability('ServiceNotFound', 'service/nowhere in "wardle" is not present');
    await patchSpec({ service: { name: 'api' } });
    await availability('Passed');
  });

  it("prints NAME, SERVICE, AVAILABLE and AGE in kubectl's table", async () => {
    await writeEndpoints([]);
    await availability('ServiceNotFound');
    const kubectl: Kubectl = await createKubectl(gh.kubeconfigPath);
    try {
      const out = await kubectl.ok(['get', 'apiservices']);
      expect(out.split('\n')[0].split(/\s+/)).to.deep.equal(['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
      const rows = new Map(parseColumns(out).map((r) => [r.NAME, r]));
      expect(rows.get(NAME)).to.include({ SERVICE: 'wardle/api', AVAILABLE: 'False (ServiceNotFound)' });
      expect(rows.get('v1.')).to.include({ SERVICE: 'Local', AVAILABLE: 'True' });
      expect(rows.get('v1.apps')).to.include({ SERVICE: 'Local', AVAILABLE: 'True' });
      // The alias group serves the same objects to clients that name upstream's group.
      const aliased = await kubectl.ok(['get', 'apiservices.apiregistration.k8s.io', NAME, '-o', 'name']);
      expect(aliased.trim()).to.equal(`apiservice.apiregistration.k8s.io/${NAME}`);
    } finally {
      await kubectl.cleanup();
    }
  });

  it('forgets the gauge of a deleted APIService, and checks it no more', async () => {
    expect((await gh.request('DELETE', `${APISERVICES}/${NAME}`)).status).to.equal(200);
    // The controller sees the deletion through its own watch, which exposes no hook to await.
    await eventually(
      'the gauge removed',
      async () => !(await metrics()).includes(`aggregator_unavailable_apiservice{name="${NAME}"}`),
    );
    expect(clock.pending().filter((t) => t.ms === PERIOD_MS)).to.deep.equal([]);
  });
});

describe('--aggregator-endpoints-file at start', () => {
  it('refuses to start on a bad file, naming the file and the entry', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gh-endpoints-start-'));
    const file = path.join(dir, 'endpoints.yaml');
    try {
      await writeFile(file, '- {namespace: wardle, name: api, port: 443, url: "http://api:80"}\n');
      const failure = await startTestGatehouse(['--storage-backend', 'memory', `--aggregator-endpoints-file=${file}`])
        .then(async (gh) => {
          await gh.close();
          return undefined;
        })
        .catch((e: Error) => e.message);
      expect(failure).to.equal(
        `aggregator endpoints file ${file}: entry 0: url: Invalid value: "http://api:80": must be an https URL`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
