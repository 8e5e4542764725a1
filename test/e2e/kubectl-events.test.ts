// `kubectl describe`, `kubectl events` and `kubectl get events` with the stock kubectl: describe lists the events of
// the object (it lists /api/v1 events with an involvedObject field selector, in protobuf) and exits 0 for a namespaced
// object, a namespace, a node and a workload; kubectl events prints the object's events. kubectl 1.32's namespace
// describer prints no Events section (its events show in `kubectl events --for`), and its node describer also lists
// the node's pods, which Gatehouse does not serve: it tolerates a 403 there, so the node is described by a user who may
// read nodes and events but not pods.
import { expect } from 'chai';
import { parseColumns } from '../helpers/kubectl.js';
import { uniqueName } from '../helpers/api.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';
import { bindingBody, roleBody, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';

describe('kubectl describe and kubectl events', function () {
  this.timeout(90_000);
  const env = gatehouseWithKubectl(() => startRbacGatehouse());
  let ns: string;

  before(async () => {
    ns = uniqueName('kevents');
    await env.kubectl.ok(['create', 'namespace', ns]);
    const describer = `${ns}-node-describer`;
    for (const [path, body] of [
      [
        '/apis/rbac.authorization.platform.io/v1/clusterroles',
        roleBody(
          describer,
          [
            { verbs: ['get'], apiGroups: [''], resources: ['nodes'] },
            { verbs: ['list'], apiGroups: [''], resources: ['events'] },
          ],
          'ClusterRole',
        ),
      ],
      [
        '/apis/rbac.authorization.platform.io/v1/clusterrolebindings',
        bindingBody(describer, 'ClusterRole', describer, ['bob'], 'ClusterRoleBinding'),
      ],
    ] as const) {
      const res = await env.gh.request('POST', path, { body });
      expect(res.status, res.body).to.equal(201);
    }
  });

  /** Records a core/v1 Event about the object at `path` (as a controller would) and returns its uid. */
  async function recordEventFor(path: string, eventNamespace: string, reason: string, message: string): Promise<void> {
    const res = await env.gh.request('GET', path);
    expect(res.status, res.body).to.equal(200);
    const target = res.json();
    const created = await env.gh.request('POST', `/api/v1/namespaces/${eventNamespace}/events`, {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${target.metadata.name}.${Date.now().toString(16)}`, namespace: eventNamespace },
        involvedObject: {
          kind: target.kind,
          apiVersion: target.apiVersion,
          name: target.metadata.name,
          namespace: target.metadata.namespace,
          uid: target.metadata.uid,
        },
        reason,
        message,
        type: 'Normal',
        source: { component: 'e2e-recorder' },
        firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        count: 1,
      },
    });
    expect(created.status, created.body).to.equal(201);
  }

  /** The Events section of describe output: the table after `Events:`. */
  function eventsSection(described: string): string {
    const at = described.lastIndexOf('\nEvents:');
    expect(at, described).to.be.greaterThan(-1);
    return described.slice(at);
  }

  const cases = () => [
    {
      what: 'a ConfigMap',
      create: ['create', 'configmap', 'settings', '-n', ns, '--from-literal=a=b'],
      describe: ['describe', 'configmap', 'settings', '-n', ns],
      path: `/api/v1/namespaces/${ns}/configmaps/settings`,
      eventNamespace: ns,
    },
    {
      what: 'a Namespace',
      create: ['create', 'namespace', `${ns}-other`],
      describe: ['describe', 'namespace', `${ns}-other`],
      path: `/api/v1/namespaces/${ns}-other`,
      eventNamespace: 'default',
    },
    {
      what: 'a ReplicaSet',
      manifest: {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'web', namespace: ns },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
          },
        },
      },
      describe: ['describe', 'replicaset', 'web', '-n', ns],
      path: `/apis/apps/v1/namespaces/${ns}/replicasets/web`,
      eventNamespace: ns,
    },
    {
      what: 'a Node',
      manifest: { apiVersion: 'v1', kind: 'Node', metadata: { name: `${ns}-node` } },
      describe: ['describe', 'node', `${ns}-node`, `--token=${tokenOf('bob')}`],
      path: `/api/v1/nodes/${ns}-node`,
      eventNamespace: 'default',
    },
  ];

  for (const [i, { what }] of ['a ConfigMap', 'a Namespace', 'a ReplicaSet', 'a Node'].map(
    (w, i) => [i, { what: w }] as const,
  )) {
    it(`describe ${what} exits 0 and shows the event recorded for it`, async () => {
      const c = cases()[i];
      if (c.create) await env.kubectl.ok(c.create);
      else
        await env.kubectl.ok(['create', '-f', await env.kubectl.manifest(`obj-${i}.json`, JSON.stringify(c.manifest))]);
      // Before any event: describe succeeds and says so, as upstream's describers do.
      const before = await env.kubectl.run(c.describe);
      expect(before.code, before.stderr).to.equal(0);
      await recordEventFor(c.path, c.eventNamespace, 'Checked', `checked ${what}`);
      if (what === 'a Namespace') {
        expect(before.stdout).to.not.contain('Events:');
        const printed = parseColumns(
          await env.kubectl.ok(['events', '-n', c.eventNamespace, '--for', `namespace/${ns}-other`]),
        );
        expect(printed.map((r) => [r.REASON, r.MESSAGE])).to.deep.equal([['Checked', `checked ${what}`]]);
        return;
      }
      expect(before.stdout).to.match(/Events:\s+<none>/);
      const section = eventsSection(await env.kubectl.ok(c.describe));
      expect(section).to.match(/Type\s+Reason\s+Age\s+From\s+Message/);
      expect(section).to.match(new RegExp(`Normal\\s+Checked\\s+\\S+\\s+e2e-recorder\\s+checked ${what}`));
    });
  }

  it('kubectl events and get events --field-selector list the events of one object', async () => {
    await recordEventFor(`/api/v1/namespaces/${ns}/configmaps/settings`, ns, 'Rechecked', 'checked again');
    const printed = await env.kubectl.ok(['events', '-n', ns, '--for', 'configmap/settings']);
    const rows = parseColumns(printed);
    expect(rows.map((r) => r.REASON).sort()).to.deep.equal(['Checked', 'Rechecked']);
    expect(rows.every((r) => r.OBJECT === 'ConfigMap/settings')).to.equal(true);
    const got = parseColumns(
      await env.kubectl.ok(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=settings']),
    );
    expect(got.map((r) => r.REASON).sort()).to.deep.equal(['Checked', 'Rechecked']);
    expect(Object.keys(got[0])).to.deep.equal(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(got[0].OBJECT).to.equal('configmap/settings');
    // `ev` names every API's events, as upstream's discovery has it: kubectl picks core/v1 and warns for each other
    // group as it does against kube-apiserver (ours and its alias events.k8s.io).
    const short = await env.kubectl.run([
      'get',
      'ev',
      '-n',
      ns,
      '--field-selector',
      'involvedObject.name=settings',
      '-o',
      'name',
    ]);
    expect(short.code, short.stderr).to.equal(0);
    expect(short.stderr.trim().split('\n')).to.deep.equal([
      'Warning: short name "ev" could also match lower priority resource events.events.platform.io',
      'Warning: short name "ev" could also match lower priority resource events.events.k8s.io',
    ]);
    expect(short.stdout.trim().split('\n')).to.have.length(2);
    const viaNewApi = await env.kubectl.ok([
      'get',
      'events.events.platform.io',
      '-n',
      ns,
      '--field-selector',
      'regarding.name=settings',
      '-o',
      'name',
    ]);
    expect(viaNewApi.trim().split('\n')).to.have.length(2);
    // The upstream group name, as manifests and controllers spell it, reaches the same events.
    const viaAlias = await env.kubectl.ok([
      'get',
      'events.events.k8s.io',
      '-n',
      ns,
      '--field-selector',
      'regarding.name=settings',
      '-o',
      'yaml',
    ]);
    expect(viaAlias).to.contain('apiVersion: events.k8s.io/v1');
    expect(viaAlias.match(/^- apiVersion: events\.k8s\.io\/v1$/gm)).to.have.length(2);
  });

  it('create -f and explain work for events.platform.io/v1 Events', async () => {
    const manifest = {
      apiVersion: 'events.platform.io/v1',
      kind: 'Event',
      metadata: { name: 'from-file', namespace: ns },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/kubectl',
      reportingInstance: 'e2e',
      action: 'Create',
      reason: 'FromFile',
      regarding: { kind: 'ConfigMap', name: 'settings', namespace: ns },
      note: 'made by create -f',
      type: 'Normal',
    };
    expect(
      await env.kubectl.ok(['create', '-f', await env.kubectl.manifest('event.json', JSON.stringify(manifest))]),
    ).to.match(/event\.events\.platform\.io\/from-file created/);
    const bad = await env.kubectl.run([
      'create',
      '-f',
      await env.kubectl.manifest(
        'bad-event.json',
        JSON.stringify({ ...manifest, metadata: { name: 'bad', namespace: ns }, type: 'Info' }),
      ),
    ]);
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.contain('type: Invalid value: "": has invalid value: Info');
    const applied = { ...manifest, metadata: { ...manifest.metadata, labels: { applied: 'yes' } } };
    expect(
      await env.kubectl.ok([
        'apply',
        '--server-side',
        '-f',
        await env.kubectl.manifest('applied-event.json', JSON.stringify(applied)),
      ]),
    ).to.match(/serverside-applied/);
    const core = JSON.parse(await env.kubectl.ok(['get', 'events', 'from-file', '-n', ns, '-o', 'json']));
    expect(core).to.include({ apiVersion: 'v1', message: 'made by create -f' });
    expect(core.metadata.labels).to.deep.equal({ applied: 'yes' });
    expect(await env.kubectl.ok(['explain', 'events.regarding', '--api-version=events.platform.io/v1'])).to.match(
      /FIELD: regarding <ObjectReference>/,
    );
  });
});
