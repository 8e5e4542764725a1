// FlowSchema and PriorityLevelConfiguration over real HTTPS: served under both group names and listed in discovery,
// the bootstrap configuration present from the first request, mandatory objects restored when deleted, suggested
// ones left alone once opted out, the Dangling condition, and validation answered as 422 naming the field.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eventually, expectFailure, MERGE, readObject, uniqueName } from '../helpers/api.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { AUTOUPDATE, danglingOf, FC, FC_K8S, flowSchemaBody, priorityLevelBody } from '../helpers/flowcontrol.js';
import { openWatch, type OpenWatch, type WatchEventJSON } from '../helpers/watch-client.js';

const MANDATORY_LEVELS = ['exempt', 'catch-all'];
const SUGGESTED_LEVELS = ['system', 'node-high', 'leader-election', 'workload-high', 'workload-low', 'global-default'];
const SCHEMAS = [
  'exempt',
  'catch-all',
  'system-nodes',
  'system-node-high',
  'probes',
  'system-leader-election',
  'endpoint-controller',
  'workload-leader-election',
  'kube-controller-manager',
  'kube-scheduler',
  'kube-system-service-accounts',
  'service-accounts',
  'global-default',
];

describe('flowcontrol kinds', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  const watches: OpenWatch[] = [];
  before(async () => {
    gh = await startTestGatehouse();
  });
  afterEach(() => {
    for (const w of watches.splice(0)) w.close();
  });
  after(async () => {
    await gh?.close();
  });

  const names = async (path: string) =>
    ((await readObject(gh, path)).items as { metadata: { name: string } }[]).map((o) => o.metadata.name);

  /** A watch of one collection from `rv`, and the first event for `name` matching `test`. */
  async function watchFor(
    collection: string,
    rv: string,
    name: string,
    test: (e: WatchEventJSON) => boolean,
  ): Promise<WatchEventJSON> {
    const w = await openWatch(gh.url, `${FC}/${collection}?watch=1&resourceVersion=${rv}`, {
      ca: gh.ca,
      token: gh.adminToken,
    });
    watches.push(w);
    for (;;) {
      const e = await w.next(10_000);
      if (e.object.metadata?.name === name && test(e)) return e;
    }
  }

  it('has the bootstrap configuration before the first request, under both group names', async () => {
    for (const base of [FC, FC_K8S]) {
      expect(await names(`${base}/prioritylevelconfigurations`)).to.have.members([
        ...MANDATORY_LEVELS,
        ...SUGGESTED_LEVELS,
      ]);
      expect(await names(`${base}/flowschemas`)).to.have.members(SCHEMAS);
    }
    const viaAlias = await readObject(gh, `${FC_K8S}/flowschemas/exempt`);
    expect(viaAlias.apiVersion).to.equal('flowcontrol.apiserver.k8s.io/v1');
    expect(viaAlias.metadata.annotations[AUTOUPDATE]).to.equal('true');
    expect(viaAlias.spec.matchingPrecedence).to.equal(1);
    const workloadLow = await readObject(gh, `${FC}/prioritylevelconfigurations/workload-low`);
    expect(workloadLow.spec.limited).to.deep.equal({
      nominalConcurrencyShares: 100,
      lendablePercent: 90,
      limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
    });
  });

  it('lists both group names in discovery, the k8s.io alias after ours', async () => {
    const groups = (await readObject(gh, '/apis')).groups as { name: string; preferredVersion: { version: string } }[];
    const ours = groups.findIndex((g) => g.name === 'flowcontrol.apiserver.platform.io');
    const alias = groups.findIndex((g) => g.name === 'flowcontrol.apiserver.k8s.io');
    expect(ours).to.be.greaterThan(-1);
    expect(alias).to.be.greaterThan(ours);
    for (const base of [FC, FC_K8S]) {
      const resources = (await readObject(gh, base)).resources as { name: string; namespaced: boolean }[];
      expect(resources.map((r) => r.name)).to.include.members([
        'flowschemas',
        'flowschemas/status',
        'prioritylevelconfigurations',
        'prioritylevelconfigurations/status',
      ]);
      expect(resources.find((r) => r.name === 'flowschemas')?.namespaced).to.equal(false);
    }
  });

  it('defaults a new level: absent shares become 30, an explicit 0 stays 0', async () => {
    const create = async (name: string, limited: Record<string, unknown>) => {
      const res = await gh.request('POST', `${FC_K8S}/prioritylevelconfigurations`, {
        body: priorityLevelBody({ name }, { type: 'Limited', limited }, 'flowcontrol.apiserver.k8s.io'),
      });
      expect(res.status, res.body).to.equal(201);
      return res.json().spec.limited;
    };
    expect(await create(uniqueName('pl-default'), { limitResponse: { type: 'Queue', queuing: {} } })).to.deep.equal({
      nominalConcurrencyShares: 30,
      lendablePercent: 0,
      limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
    });
    expect(
      (await create(uniqueName('pl-jail'), { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } }))
        .nominalConcurrencyShares,
    ).to.equal(0);
  });

  it('answers a bad schema with 422 naming the field', async () => {
    const res = await gh.request('POST', `${FC}/flowschemas`, {
      body: flowSchemaBody(
        { name: uniqueName('fs-bad') },
        {
          priorityLevelConfiguration: { name: 'global-default' },
          matchingPrecedence: 1,
          rules: [
            {
              subjects: [{ kind: 'User', user: { name: 'a' } }],
              nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/a*'] }],
            },
          ],
        },
      ),
    });
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.message).to.include(
      "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
    );
    expect(status.message).to.include(
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a*": wildcard can only do suffix matching',
    );
    const level = await gh.request('PATCH', `${FC}/prioritylevelconfigurations/catch-all`, {
      headers: MERGE,
      body: { spec: { limited: { nominalConcurrencyShares: 50 } } },
    });
    expect(expectFailure(level, 422, 'Invalid').message).to.include("spec of 'catch-all' must equal the fixed value");
  });

  it('recreates a deleted mandatory object', async () => {
    const rv = (await readObject(gh, `${FC}/flowschemas`)).metadata.resourceVersion;
    const deleted = await gh.request('DELETE', `${FC}/flowschemas/catch-all`);
    expect(deleted.status, deleted.body).to.equal(200);
    // From before the deletion, the first ADDED of the name is the controller's doing.
    const back = await watchFor('flowschemas', rv, 'catch-all', (e) => e.type === 'ADDED');
    expect((back.object.spec as { matchingPrecedence: number }).matchingPrecedence).to.equal(10000);
  });

  it('puts back an edited suggested level, and leaves it alone once annotated "false"', async () => {
    const path = `${FC}/prioritylevelconfigurations/workload-high`;
    const edited = await gh.request('PATCH', path, {
      headers: MERGE,
      body: { spec: { limited: { nominalConcurrencyShares: 7 } } },
    });
    expect(edited.status, edited.body).to.equal(200);
    const restored = await watchFor(
      'prioritylevelconfigurations',
      edited.json().metadata.resourceVersion,
      'workload-high',
      () => true,
    );
    expect((restored.object.spec as any).limited.nominalConcurrencyShares).to.equal(40);

    const optedOut = await gh.request('PATCH', path, {
      headers: MERGE,
      body: {
        metadata: { annotations: { [AUTOUPDATE]: 'false' } },
        spec: { limited: { nominalConcurrencyShares: 7 } },
      },
    });
    expect(optedOut.status, optedOut.body).to.equal(200);
    // A change elsewhere in the collection makes the controller look again; the opted-out level must stay as edited.
    const marker = await gh.request('PATCH', `${FC}/prioritylevelconfigurations/system`, {
      headers: MERGE,
      body: { spec: { limited: { nominalConcurrencyShares: 31 } } },
    });
    expect(marker.status, marker.body).to.equal(200);
    await watchFor('prioritylevelconfigurations', marker.json().metadata.resourceVersion, 'system', () => true);
    expect((await readObject(gh, path)).spec.limited.nominalConcurrencyShares).to.equal(7);
  });

  it('deletes an object annotated for automatic update that the bootstrap set does not define', async () => {
    const name = uniqueName('retired');
    const created = await gh.request('POST', `${FC}/prioritylevelconfigurations`, {
      body: priorityLevelBody(
        { name, annotations: { [AUTOUPDATE]: 'true' } },
        { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
      ),
    });
    expect(created.status, created.body).to.equal(201);
    await watchFor(
      'prioritylevelconfigurations',
      created.json().metadata.resourceVersion,
      name,
      (e) => e.type === 'DELETED',
    );
  });

  it('marks a schema Dangling while its level is missing', async () => {
    const name = uniqueName('fs-dangling');
    const level = uniqueName('pl-later');
    const created = await gh.request('POST', `${FC}/flowschemas`, {
      body: flowSchemaBody(
        { name },
        {
          priorityLevelConfiguration: { name: level },
          distinguisherMethod: { type: 'ByNamespace' },
          rules: [
            {
              subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'team-a', name: '*' } }],
              resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'], namespaces: ['team-a'] }],
            },
          ],
        },
      ),
    });
    expect(created.status, created.body).to.equal(201);
    expect(created.json().spec.matchingPrecedence).to.equal(1000);
    const conditionOf = (e: WatchEventJSON) => danglingOf(e.object);
    const dangling = conditionOf(
      await watchFor('flowschemas', created.json().metadata.resourceVersion, name, (e) => conditionOf(e) !== undefined),
    );
    expect(dangling).to.include({
      status: 'True',
      reason: 'NotFound',
      message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" but there is no such object`,
    });

    const plc = await gh.request('POST', `${FC}/prioritylevelconfigurations`, {
      body: priorityLevelBody(
        { name: level },
        { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
      ),
    });
    expect(plc.status, plc.body).to.equal(201);
    const found = conditionOf(
      await watchFor(
        'flowschemas',
        plc.json().metadata.resourceVersion,
        name,
        (e) => conditionOf(e)?.status === 'False',
      ),
    );
    expect(found).to.include({ reason: 'Found' });
  });
});

describe('flowcontrol bootstrap across a restart', function () {
  this.timeout(60_000);
  let dataDir: string;
  let gh: TestGatehouse | undefined;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-apf-boot-'));
  });
  after(async () => {
    await gh?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('writes nothing at start when the configuration is as defined, and keeps an opted-out edit', async () => {
    gh = await startTestGatehouse([], { dataDir });
    const edited = await gh.request('PATCH', `${FC}/flowschemas/global-default`, {
      headers: MERGE,
      body: { metadata: { annotations: { [AUTOUPDATE]: 'false' } }, spec: { matchingPrecedence: 9800 } },
    });
    expect(edited.status, edited.body).to.equal(200);
    // The status controller's first pass must be over, or the next start would rightly finish it.
    const before = await eventually('every FlowSchema judged', async () => {
      const list = await readObject(gh!, `${FC}/flowschemas`);
      const judged = (list.items as { status?: { conditions?: unknown[] } }[]).every((o) => o.status?.conditions);
      return judged && list;
    });
    await gh.close();

    gh = await startTestGatehouse([], { dataDir });
    const after = await readObject(gh, `${FC}/flowschemas`);
    const versions = (list: { items: { metadata: { name: string; resourceVersion: string } }[] }) =>
      Object.fromEntries(list.items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    expect(versions(after)).to.deep.equal(versions(before));
    expect((await readObject(gh, `${FC}/flowschemas/global-default`)).spec.matchingPrecedence).to.equal(9800);
  });
});
