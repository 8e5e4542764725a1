// Merged discovery and OpenAPI v3 against real HTTPS upstreams (test/helpers/upstream-aggregated.ts) reached through
// --aggregator-endpoints-file: an APIService with a service brings its server's group-version into /apis (both
// forms), /apis/<group>[/<version>] and /openapi/v3; priorities order groups and versions; a failing server's entries
// turn Stale; deleting the APIService takes them away; the real kubectl lists and explains the remote kind. The
// periodic refresh is driven by a manual clock.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { eventually, MERGE } from '../helpers/api.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startAggregatedUpstream, type AggregatedUpstream, type UpstreamKind } from '../helpers/upstream-aggregated.js';
import { createKubectl, parseColumns, type Kubectl } from '../helpers/kubectl.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const WARDLE = 'wardle.example.io';
const SAMPLE = 'sample.example.io';
const NOWHERE = 'nowhere.example.io';
const FLUNDER: UpstreamKind = {
  resource: 'flunders',
  singular: 'flunder',
  kind: 'Flunder',
  shortNames: ['fl'],
  field: 'reference',
};
const FISCHER: UpstreamKind = {
  resource: 'fischers',
  singular: 'fischer',
  kind: 'Fischer',
  field: 'disallowedFlunders',
};
const REFRESH_MS = 60_000;

describe('merged discovery and OpenAPI of remote APIServices', function () {
  this.timeout(60_000);
  const clock = new ManualClock();
  let wardle: AggregatedUpstream;
  let sample: AggregatedUpstream;
  let dir: string;
  let gh: TestGatehouse;
  let kubectl: Kubectl | undefined;

  before(async () => {
    wardle = await startAggregatedUpstream({
      group: WARDLE,
      version: 'v1alpha1',
      service: { namespace: 'wardle', name: 'api' },
      kinds: [FLUNDER],
    });
    sample = await startAggregatedUpstream({
      group: SAMPLE,
      version: 'v1',
      service: { namespace: 'sample', name: 'api' },
      kinds: [FLUNDER],
    });
    // A server of kube-apiserver 1.25 or older: legacy discovery only.
    sample.aggregated = false;
    dir = await mkdtemp(path.join(os.tmpdir(), 'gh-merged-discovery-'));
    const endpointsFile = path.join(dir, 'endpoints.json');
    await writeFile(
      endpointsFile,
      JSON.stringify([
        { namespace: 'wardle', name: 'api', port: 443, url: wardle.url },
        { namespace: 'sample', name: 'api', port: 443, url: sample.url },
      ]),
    );
    gh = await startTestGatehouse(['--storage-backend', 'memory', `--aggregator-endpoints-file=${endpointsFile}`], {
      clock,
    });
  });
  after(async () => {
    await kubectl?.cleanup();
    await gh?.close();
    await wardle?.close();
    await sample?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const register = async (group: string, version: string, spec: object) => {
    const res = await gh.request('POST', APISERVICES, {
      body: {
        apiVersion: 'apiregistration.platform.io/v1',
        kind: 'APIService',
        metadata: { name: `${version}.${group}` },
        spec: { group, version, groupPriorityMinimum: 1000, versionPriority: 15, ...spec },
      },
    });
    expect(res.status, res.body).to.equal(201);
  };
  const patchSpec = async (name: string, spec: object) => {
    const res = await gh.request('PATCH', `${APISERVICES}/${name}`, { body: { spec }, headers: MERGE });
    expect(res.status, res.body).to.equal(200);
  };
  const aggregated = async (accept = AGGREGATED_V2): Promise<{ doc: any; etag: string }> => {
    const res = await gh.request('GET', '/apis', { headers: { accept } });
    expect(res.status, res.body).to.equal(200);
    return { doc: res.json(), etag: String(res.headers.etag) };
  };
  const item = async (group: string): Promise<any> =>
    (await aggregated()).doc.items.find((i: any) => i.metadata.name === group);
  const getJson = async (urlPath: string): Promise<any> => {
    const res = await gh.request('GET', urlPath);
    expect(res.status, `${urlPath}: ${res.body}`).to.equal(200);
    return res.json();
  };
  const legacyNames = async (): Promise<string[]> => (await getJson('/apis')).groups.map((g: any) => g.name);
  const aggregatedNames = async (): Promise<string[]> =>
    (await aggregated()).doc.items.map((i: any) => i.metadata.name);
  /** Moves the clock to the next periodic refresh of every remote APIService. */
  const nextRefresh = async () => {
    await clock.whenArmed((t) => t.ms === REFRESH_MS);
    clock.advance(REFRESH_MS);
  };

  it('lists a registered group-version in both forms of /apis, its group and version documents and OpenAPI v3', async () => {
    const localNames = await legacyNames();
    expect(localNames).to.not.include(WARDLE);
    await register(WARDLE, 'v1alpha1', { service: { namespace: 'wardle', name: 'api' }, caBundle: wardle.caBundle });

    const listed = await eventually('wardle in aggregated discovery', async () => {
      const found = await item(WARDLE);
      return found?.versions[0].freshness === 'Current' && found;
    });
    expect(listed.versions).to.deep.equal([
      {
        version: 'v1alpha1',
        resources: [
          {
            resource: 'flunders',
            responseKind: { group: WARDLE, version: 'v1alpha1', kind: 'Flunder' },
            scope: 'Namespaced',
            singularResource: 'flunder',
            verbs: ['get', 'list'],
            shortNames: ['fl'],
            subresources: [
              {
                subresource: 'status',
                responseKind: { group: WARDLE, version: 'v1alpha1', kind: 'Flunder' },
                verbs: ['get'],
              },
            ],
          },
        ],
        freshness: 'Current',
      },
    ]);
    expect(wardle.seen.find((r) => r.path === '/apis')?.accept).to.match(
      /^application\/json;g=apidiscovery\.k8s\.io;v=v2;as=APIGroupDiscoveryList,/,
    );
    const beta = await aggregated(AGGREGATED_V2BETA1);
    expect(beta.doc.apiVersion).to.equal('apidiscovery.k8s.io/v2beta1');
    expect(beta.doc.items.map((i: any) => i.metadata.name)).to.include(WARDLE);

    // After every group served here, in both forms.
    expect(await legacyNames()).to.deep.equal([...localNames, WARDLE]);
    expect((await aggregatedNames()).at(-1)).to.equal(WARDLE);
    const group = await getJson(`/apis/${WARDLE}`);
    expect(group).to.deep.equal({
      kind: 'APIGroup',
      apiVersion: 'v1',
      name: WARDLE,
      versions: [{ groupVersion: `${WARDLE}/v1alpha1`, version: 'v1alpha1' }],
      preferredVersion: { groupVersion: `${WARDLE}/v1alpha1`, version: 'v1alpha1' },
    });
    const resources = await getJson(`/apis/${WARDLE}/v1alpha1`);
    expect(resources).to.deep.equal({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: `${WARDLE}/v1alpha1`,
      resources: [
        {
          name: 'flunders',
          singularName: 'flunder',
          namespaced: true,
          kind: 'Flunder',
          verbs: ['get', 'list'],
          shortNames: ['fl'],
        },
        { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get'] },
      ],
    });

    const index = await eventually('wardle in the OpenAPI v3 index', async () => {
      const paths = (await getJson('/openapi/v3')).paths;
      return paths[`apis/${WARDLE}/v1alpha1`];
    });
    expect(index.serverRelativeURL).to.match(new RegExp(`^/openapi/v3/apis/${WARDLE}/v1alpha1\\?hash=[0-9A-F]{128}$`));
    const doc = await gh.request('GET', index.serverRelativeURL);
    expect(doc.status, doc.body).to.equal(200);
    expect(doc.headers['cache-control']).to.equal('public, immutable');
    const schema = doc.json().components.schemas[`io.example.wardle.v1alpha1.Flunder`];
    expect(schema['x-kubernetes-group-version-kind']).to.deep.equal([
      { group: WARDLE, kind: 'Flunder', version: 'v1alpha1' },
    ]);
    // Asked again, the document is revalidated with the upstream's entity tag, not fetched whole.
    const again = await gh.request('GET', `/openapi/v3/apis/${WARDLE}/v1alpha1`);
    expect(again.body).to.equal(doc.body);
    expect(again.headers['cache-control']).to.equal(undefined);
    const docRequests = wardle.seen.filter((r) => r.path === `/openapi/v3/apis/${WARDLE}/v1alpha1`);
    expect(docRequests.at(-1)?.ifNoneMatch).to.equal(doc.headers.etag);
  });

  it("falls back to a server's legacy discovery, and orders groups by groupPriorityMinimum", async () => {
    await register(SAMPLE, 'v1', {
      service: { namespace: 'sample', name: 'api' },
      caBundle: sample.caBundle,
      groupPriorityMinimum: 2000,
    });
    const listed = await eventually('sample in aggregated discovery', async () => {
      const found = await item(SAMPLE);
      return found?.versions[0].resources.length > 0 && found;
    });
    expect(listed.versions[0].resources[0]).to.deep.include({
      resource: 'flunders',
      responseKind: { group: SAMPLE, version: 'v1', kind: 'Flunder' },
      scope: 'Namespaced',
      verbs: ['get', 'list'],
    });
    const asked = sample.seen.map((r) => r.path);
    expect(asked.indexOf(`/apis/${SAMPLE}/v1`)).to.be.greaterThan(asked.indexOf('/apis'));
    // Higher first: 2000 before 1000.
    expect((await legacyNames()).slice(-2)).to.deep.equal([SAMPLE, WARDLE]);
    expect((await aggregatedNames()).slice(-2)).to.deep.equal([SAMPLE, WARDLE]);

    await patchSpec(`v1alpha1.${WARDLE}`, { groupPriorityMinimum: 3000 });
    await eventually('wardle ahead of sample', async () => (await aggregatedNames()).at(-1) === SAMPLE);
    expect((await legacyNames()).slice(-2)).to.deep.equal([WARDLE, SAMPLE]);
  });

  it('prefers the version with the highest versionPriority', async () => {
    wardle.versions.set('v1beta1', [FLUNDER]);
    await register(WARDLE, 'v1beta1', {
      service: { namespace: 'wardle', name: 'api' },
      caBundle: wardle.caBundle,
      groupPriorityMinimum: 3000,
      versionPriority: 20,
    });
    const versions = async () => (await item(WARDLE)).versions.map((v: any) => v.version);
    await eventually('v1beta1 listed first', async () => (await versions())[0] === 'v1beta1');
    const preferred = async () => (await getJson(`/apis/${WARDLE}`)).preferredVersion.version;
    await eventually('v1beta1 preferred', async () => (await preferred()) === 'v1beta1');
    expect((await getJson(`/apis/${WARDLE}`)).versions.map((v: any) => v.version)).to.deep.equal([
      'v1beta1',
      'v1alpha1',
    ]);

    await patchSpec(`v1beta1.${WARDLE}`, { versionPriority: 5 });
    await eventually('v1alpha1 listed first', async () => (await versions())[0] === 'v1alpha1');
    expect(await preferred()).to.equal('v1alpha1');
    const group = (await getJson('/apis')).groups.find((g: any) => g.name === WARDLE);
    expect(group.preferredVersion.version).to.equal('v1alpha1');
  });

  it('refreshes every minute: new remote content changes the ETag of the aggregated document', async () => {
    const before = await aggregated();
    const held = await gh.request('GET', '/apis', { headers: { accept: AGGREGATED_V2, 'if-none-match': before.etag } });
    expect(held.status).to.equal(304);
    wardle.versions.set('v1alpha1', [FLUNDER, FISCHER]);
    await nextRefresh();
    const after = await eventually('fischers listed', async () => {
      const now = await aggregated();
      const v1alpha1 = now.doc.items
        .find((i: any) => i.metadata.name === WARDLE)
        .versions.find((v: any) => v.version === 'v1alpha1');
      return v1alpha1.resources.some((r: any) => r.resource === 'fischers') && now;
    });
    expect(after.etag).to.match(/^"[0-9A-F]{128}"$/);
    expect(after.etag).to.not.equal(before.etag);
    const stale = await gh.request('GET', '/apis', {
      headers: { accept: AGGREGATED_V2, 'if-none-match': before.etag },
    });
    expect(stale.status).to.equal(200);
    // The upstream's own entity tag was sent back on the refresh.
    expect(wardle.seen.filter((r) => r.path === '/apis').some((r) => r.ifNoneMatch !== undefined)).to.equal(true);
    const listed = await getJson(`/apis/${WARDLE}/v1alpha1`);
    expect(listed.resources.map((r: any) => r.name)).to.include('fischers');
  });

  it("marks a failing server's entries Stale, keeping what it last listed, and Current again once it answers", async () => {
    wardle.mode = '500';
    await nextRefresh();
    const staleItem = await eventually('wardle stale', async () => {
      const found = await item(WARDLE);
      return found.versions.every((v: any) => v.freshness === 'Stale') && found;
    });
    const v1alpha1 = staleItem.versions.find((v: any) => v.version === 'v1alpha1');
    expect(v1alpha1.resources.map((r: any) => r.resource)).to.deep.equal(['flunders', 'fischers']);
    expect((await item(SAMPLE)).versions[0].freshness).to.equal('Current');
    // Fetched before, so still in the legacy documents.
    expect(await legacyNames()).to.include(WARDLE);
    // The group-version's own document is its server's (proxied): with the server failing, the proxy's 503.
    expect((await gh.request('GET', `/apis/${WARDLE}/v1alpha1`)).status).to.be.oneOf([500, 503]);

    wardle.mode = 'ok';
    await nextRefresh();
    await eventually('wardle current', async () =>
      (await item(WARDLE)).versions.every((v: any) => v.freshness === 'Current'),
    );
  });

  it('lists the remote resources and explains the remote kind with the real kubectl', async () => {
    kubectl = await createKubectl(gh.kubeconfigPath);
    const rows = parseColumns(await kubectl.ok(['api-resources', `--api-group=${WARDLE}`]));
    expect(rows.map((r) => [r.NAME, r.SHORTNAMES, r.APIVERSION, r.NAMESPACED, r.KIND])).to.have.deep.members([
      ['flunders', 'fl', `${WARDLE}/v1alpha1`, 'true', 'Flunder'],
      ['fischers', '', `${WARDLE}/v1alpha1`, 'true', 'Fischer'],
    ]);
    const versions = (await kubectl.ok(['api-versions'])).trim().split('\n');
    expect(versions).to.include.members([`${WARDLE}/v1alpha1`, `${WARDLE}/v1beta1`, `${SAMPLE}/v1`, 'apps/v1']);
    const explained = await kubectl.ok(['explain', 'flunders.spec', `--api-version=${WARDLE}/v1alpha1`]);
    expect(explained).to.match(/KIND:\s+Flunder/);
    expect(explained).to.match(/VERSION:\s+v1alpha1/);
    expect(explained).to.match(/reference\s+<string>/);
    expect(explained).to.include('The reference of a Flunder.');
  });

  it('lists an APIService whose server never answered as Stale without resources, in aggregated discovery only', async () => {
    await register(NOWHERE, 'v1', { service: { namespace: 'nowhere', name: 'api' }, insecureSkipTLSVerify: true });
    const found = await eventually('nowhere listed', () => item(NOWHERE));
    expect(found.versions).to.deep.equal([{ version: 'v1', resources: [], freshness: 'Stale' }]);
    expect(await legacyNames()).to.not.include(NOWHERE);
    expect((await gh.request('GET', `/apis/${NOWHERE}`)).status).to.equal(404);
    // Its group-version is a remote APIService's, which the proxy answers: unavailable, 503 as kube-aggregator.
    expect((await gh.request('GET', `/apis/${NOWHERE}/v1`)).status).to.equal(503);
    expect((await getJson('/openapi/v3')).paths).to.not.have.property(`apis/${NOWHERE}/v1`);
  });

  it('leaves a new group-version out until its server has answered or failed once', async () => {
    sample.mode = 'hang';
    const asked = sample.requests.length;
    await register(SAMPLE, 'v2', { service: { namespace: 'sample', name: 'api' }, caBundle: sample.caBundle });
    await eventually('the fetch under way', async () => sample.requests.slice(asked).includes('/apis'));
    const versions = async () => (await item(SAMPLE)).versions.map((v: any) => `${v.version} ${v.freshness}`);
    expect(await versions()).to.deep.equal(['v1 Current']);
    // The fetch gives up after its 5 s: only then is the version listed, Stale.
    await clock.whenArmed((t) => t.ms === 5_000);
    clock.advance(5_000);
    await eventually('v2 listed as Stale', async () => (await versions()).includes('v2 Stale'));
    expect(await legacyNames()).to.include(SAMPLE);
    expect((await getJson(`/apis/${SAMPLE}`)).versions.map((v: any) => v.version)).to.deep.equal(['v1']);
    sample.mode = 'ok';
    const res = await gh.request('DELETE', `${APISERVICES}/v2.${SAMPLE}`);
    expect(res.status, res.body).to.equal(200);
  });

  it('forgets a deleted APIService in discovery and OpenAPI v3', async () => {
    for (const name of [`v1alpha1.${WARDLE}`, `v1beta1.${WARDLE}`, `v1.${NOWHERE}`]) {
      const res = await gh.request('DELETE', `${APISERVICES}/${name}`);
      expect(res.status, res.body).to.equal(200);
    }
    await eventually('wardle gone', async () => !(await aggregatedNames()).includes(WARDLE));
    expect(await aggregatedNames()).to.not.include(NOWHERE);
    expect(await legacyNames()).to.not.include(WARDLE);
    expect(await legacyNames()).to.include(SAMPLE);
    expect((await gh.request('GET', `/apis/${WARDLE}`)).status).to.equal(404);
    expect((await gh.request('GET', `/apis/${WARDLE}/v1alpha1`)).status).to.equal(404);
    expect((await getJson('/openapi/v3')).paths).to.not.have.property(`apis/${WARDLE}/v1alpha1`);
    expect((await gh.request('GET', `/openapi/v3/apis/${WARDLE}/v1alpha1`)).status).to.equal(404);
  });
});
