// Autoregistration: a Local APIService for each group-version the server answers itself, kept in step while it runs
// and pruned at the next start when --runtime-config switched a group-version off.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { openWatch, type OpenWatch } from '../helpers/watch-client.js';
import { MERGE } from '../helpers/api.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/** Reads the watch of one APIService until an event satisfies `done`. */
async function until(w: OpenWatch, done: (type: string, obj: any) => boolean): Promise<any> {
  for (;;) {
    const ev = await w.next(10_000);
    if (done(ev.type, ev.object)) return ev.object;
  }
}

const available = (obj: any) => obj.status?.conditions?.find((c: any) => c.type === 'Available');

describe('APIService autoregistration', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let w: OpenWatch | undefined;
  before(async () => {
    gh = await startTestGatehouse(['--storage-backend', 'memory']);
  });
  after(async () => {
    await gh?.close();
  });
  afterEach(() => w?.close());

  const watchOne = (name: string) =>
    openWatch(gh.url, `${APISERVICES}?watch=1&fieldSelector=metadata.name%3D${name}`, {
      ca: gh.ca,
      token: gh.adminToken,
    });

  it("has one Local APIService per served group-version, aliases included, with upstream's priorities", async () => {
    const items: any[] = (await gh.request('GET', APISERVICES)).json().items;
    const byName = new Map(items.map((i) => [i.metadata.name, i]));
    const spec = (name: string) => byName.get(name)?.spec;
    expect(spec('v1.')).to.deep.equal({ group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    expect(spec('v1.apps')).to.include({ groupPriorityMinimum: 17800, versionPriority: 15 });
    expect(spec('v1.rbac.authorization.k8s.io')).to.include({ groupPriorityMinimum: 17000, versionPriority: 15 });
    // Ours sorts just ahead of the alias it stands beside.
    expect(spec('v1.rbac.authorization.platform.io')).to.include({ groupPriorityMinimum: 17001, versionPriority: 15 });
    expect(spec('v1beta1.authentication.k8s.io')).to.include({ groupPriorityMinimum: 17700, versionPriority: 9 });
    expect(spec('v1.admissionregistration.k8s.io')).to.include({ groupPriorityMinimum: 16700, versionPriority: 15 });
    expect(byName.has('v1.apiregistration.k8s.io')).to.equal(true);
    for (const item of items) {
      expect(item.metadata.labels?.[LABEL], item.metadata.name).to.equal('true');
      expect(item.spec.service, item.metadata.name).to.equal(undefined);
    }
    // Every group-version discovery lists has its APIService.
    const groups: any[] = (await gh.request('GET', '/apis')).json().groups;
    const listed = groups.flatMap((g) => g.versions.map((v: any) => `${v.version}.${g.name}`));
    expect([...byName.keys()]).to.have.members(['v1.', ...listed]);
  });

  it('marks a Local APIService Available, reason Local', async () => {
    w = await watchOne('v1.batch');
    const obj = await until(w, (_t, o) => available(o) !== undefined);
    expect(available(obj)).to.include({
      status: 'True',
      reason: 'Local',
      message: 'Local APIServices are always available',
    });
    expect(available(obj).lastTransitionTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('recreates a deleted Local APIService and puts back an edited spec', async () => {
    w = await watchOne('v1.apps');
    await until(w, (t) => t === 'ADDED');
    expect((await gh.request('DELETE', `${APISERVICES}/v1.apps`)).status).to.equal(200);
    await until(w, (t) => t === 'DELETED');
    const back = await until(w, (t) => t === 'ADDED');
    expect(back.spec).to.include({ group: 'apps', groupPriorityMinimum: 17800 });

    const edit = await gh.request('PATCH', `${APISERVICES}/v1.apps`, {
      body: { spec: { versionPriority: 3 } },
      headers: MERGE,
    });
    expect(edit.json().spec.versionPriority).to.equal(3);
    const restored = await until(w, (t, o) => t === 'MODIFIED' && o.spec.versionPriority === 15);
    expect(restored.metadata.labels[LABEL]).to.equal('true');
  });

  it('leaves an APIService without the label alone', async () => {
    const own = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.example.io' },
      spec: { group: 'example.io', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 },
    };
    const res = await gh.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', { body: own });
    expect(res.status).to.equal(201);
    expect(res.json().apiVersion).to.equal('apiregistration.k8s.io/v1');
    w = await watchOne('v1.example.io');
    // Its availability is written (Local), and nothing removes it although no group example.io is served here.
    const marked = await until(w, (_t, o) => available(o) !== undefined);
    expect(available(marked).reason).to.equal('Local');
    expect((await gh.request('GET', `${APISERVICES}/v1.example.io`)).status).to.equal(200);
  });

  it('refuses an invalid APIService with a 422 naming each field', async () => {
    const res = await gh.request('POST', APISERVICES, {
      body: {
        apiVersion: 'apiregistration.platform.io/v1',
        kind: 'APIService',
        metadata: { name: 'wrong' },
        spec: {
          group: 'example.io',
          version: 'v1',
          service: { namespace: 'ns', name: 'api' },
          caBundle: 'AAEC',
          insecureSkipTLSVerify: true,
          groupPriorityMinimum: 0,
          versionPriority: 1001,
        },
      },
    });
    expect(res.status).to.equal(422);
    expect(res.json().details.causes.map((c: any) => c.field)).to.have.members([
      'metadata.name',
      'spec.groupPriorityMinimum',
      'spec.versionPriority',
      'spec.insecureSkipTLSVerify',
    ]);
  });
});

describe('APIService autoregistration across restarts', function () {
  this.timeout(60_000);
  let dataDir: string;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gh-autoregister-'));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('removes the APIService of a group-version --runtime-config no longer serves', async () => {
    const names = async (gh: TestGatehouse) =>
      (await gh.request('GET', APISERVICES)).json().items.map((i: any) => i.metadata.name);
    const first = await startTestGatehouse(['--storage-backend', 'embedded'], { dataDir });
    try {
      expect(await names(first)).to.include('v1.batch');
    } finally {
      await first.close();
    }
    const second = await startTestGatehouse(['--storage-backend', 'embedded', '--runtime-config=batch/v1=false'], {
      dataDir,
    });
    try {
      const after = await names(second);
      expect(after).to.not.include('v1.batch');
      expect(after).to.include('v1.apps');
    } finally {
      await second.close();
    }
  });
});
