// Stock kubectl's typed clients and printers against a Gatehouse with --authorization-mode=RBAC: `kubectl create
// role|clusterrole|rolebinding|clusterrolebinding` (protobuf POSTs to the hidden rbac.authorization.k8s.io alias),
// `auth can-i` for a user bound through those roles, `get -o wide` of every served kind with the columns and cells
// kube-apiserver's printers give, `get -w` rows following changes, and `get --raw` of the JSON documents.
import { expect } from 'chai';
import { everyType } from '../helpers/every-type.js';
import { parseColumns } from '../helpers/kubectl.js';
import { RBAC, RBAC_V1, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';
import { uniqueName } from '../helpers/api.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

const K8S = 'rbac.authorization.k8s.io';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const AGE = /^\d+s$/;

describe('kubectl typed clients and printers', function () {
  this.timeout(120_000);
  // Without the quota controller, so the quota status this file writes by hand stays as written.
  const env = gatehouseWithKubectl(() => startRbacGatehouse('RBAC', ['--controllers=*,-resourcequota']));
  let ns: string;

  before(async () => {
    ns = uniqueName('typed');
    await env.kubectl.ok(['create', 'namespace', ns]);
  });

  const get = async (urlPath: string): Promise<any> => {
    const res = await env.gh.request('GET', urlPath);
    expect(res.status, `GET ${urlPath}: ${res.body}`).to.equal(200);
    return res.json();
  };
  const send = async (
    method: string,
    urlPath: string,
    body: unknown,
    code = 200,
    headers?: Record<string, string>,
  ): Promise<any> => {
    const res = await env.gh.request(method, urlPath, { body, headers });
    expect(res.status, `${method} ${urlPath}: ${res.body}`).to.equal(code);
    return res.json();
  };
  const asBob = ['--token', tokenOf('bob')];

  describe('create role, clusterrole, rolebinding, clusterrolebinding', () => {
    it('POST protobuf to rbac.authorization.k8s.io and print that group', async () => {
      const r = await env.kubectl.run([
        'create',
        'role',
        'cm-reader',
        '--verb=get,list',
        '--resource=configmaps',
        '-n',
        ns,
        '-v=8',
      ]);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stdout.trim()).to.equal('role.rbac.authorization.k8s.io/cm-reader created');
      expect(r.stderr).to.include(`POST ${env.gh.url}/apis/${K8S}/v1/namespaces/${ns}/roles`);
      expect(r.stderr).to.include(`Content-Type: ${PROTOBUF}`);
      expect(
        (
          await env.kubectl.ok([
            'create',
            'clusterrole',
            `${ns}-node-reader`,
            '--verb=get,list,watch',
            '--resource=nodes',
          ])
        ).trim(),
      ).to.equal(`clusterrole.rbac.authorization.k8s.io/${ns}-node-reader created`);
      expect(
        (
          await env.kubectl.ok([
            'create',
            'rolebinding',
            'bob-reads',
            '--role=cm-reader',
            '--user=bob',
            '--group=devs',
            `--serviceaccount=${ns}:robot`,
            '-n',
            ns,
          ])
        ).trim(),
      ).to.equal('rolebinding.rbac.authorization.k8s.io/bob-reads created');
      expect(
        (
          await env.kubectl.ok([
            'create',
            'clusterrolebinding',
            `${ns}-bob-nodes`,
            `--clusterrole=${ns}-node-reader`,
            '--user=bob',
          ])
        ).trim(),
      ).to.equal(`clusterrolebinding.rbac.authorization.k8s.io/${ns}-bob-nodes created`);
    });

    it('stored the objects in our group, roleRef and subjects included', async () => {
      const role = await get(`${RBAC_V1}/namespaces/${ns}/roles/cm-reader`);
      expect(role.apiVersion).to.equal(`${RBAC}/v1`);
      expect(role.rules).to.deep.equal([{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]);
      const clusterRole = await get(`${RBAC_V1}/clusterroles/${ns}-node-reader`);
      expect(clusterRole.rules).to.deep.equal([
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['nodes'] },
      ]);
      const binding = await get(`${RBAC_V1}/namespaces/${ns}/rolebindings/bob-reads`);
      expect(binding.roleRef).to.deep.equal({ apiGroup: RBAC, kind: 'Role', name: 'cm-reader' });
      expect(binding.subjects).to.deep.equal([
        { kind: 'User', apiGroup: RBAC, name: 'bob' },
        { kind: 'Group', apiGroup: RBAC, name: 'devs' },
        { kind: 'ServiceAccount', name: 'robot', namespace: ns },
      ]);
      const clusterBinding = await get(`${RBAC_V1}/clusterrolebindings/${ns}-bob-nodes`);
      expect(clusterBinding.roleRef).to.deep.equal({ apiGroup: RBAC, kind: 'ClusterRole', name: `${ns}-node-reader` });
      expect(clusterBinding.subjects).to.deep.equal([{ kind: 'User', apiGroup: RBAC, name: 'bob' }]);
    });

    it("reports an existing name and an escalation with the server's message", async () => {
      const dup = await env.kubectl.run(['create', 'role', 'cm-reader', '--verb=get', '--resource=secrets', '-n', ns]);
      expect(dup.code).to.equal(1);
      expect(dup.stderr).to.contain(`roles.${K8S} "cm-reader" already exists`);
      // bob may read configmaps only: granting delete on secrets is an escalation.
      const escalate = await env.kubectl.run([
        'create',
        'role',
        'secret-deleter',
        '--verb=delete',
        '--resource=secrets',
        '-n',
        ns,
        ...asBob,
      ]);
      expect(escalate.code).to.equal(1);
      expect(escalate.stderr).to.contain('is forbidden');
    });
  });

  describe('auth can-i for a user bound through those roles', () => {
    const canI = async (...args: string[]) => {
      const r = await env.kubectl.run(['auth', 'can-i', ...args, ...asBob]);
      return { answer: r.stdout.trim(), code: r.code };
    };

    it('answers yes for what the bindings grant, exit code 0', async () => {
      expect(await canI('list', 'configmaps', '-n', ns)).to.deep.equal({ answer: 'yes', code: 0 });
      expect(await canI('get', 'configmaps/app-settings', '-n', ns)).to.deep.equal({ answer: 'yes', code: 0 });
      expect(await canI('watch', 'nodes')).to.deep.equal({ answer: 'yes', code: 0 });
    });

    it('answers no for everything else, exit code 1', async () => {
      expect(await canI('delete', 'configmaps', '-n', ns)).to.deep.equal({ answer: 'no', code: 1 });
      expect(await canI('list', 'configmaps', '-n', 'default')).to.deep.equal({ answer: 'no', code: 1 });
      expect(await canI('list', 'secrets', '-n', ns)).to.deep.equal({ answer: 'no', code: 1 });
      expect(await canI('create', 'roles', '-n', ns)).to.deep.equal({ answer: 'no', code: 1 });
    });

    it('--list shows the rules of both bindings and of the default policy', async () => {
      const out = await env.kubectl.ok(['auth', 'can-i', '--list', '-n', ns, ...asBob]);
      const rows = parseColumns(out);
      const byResource = new Map(rows.map((r) => [r.Resources, r]));
      expect(byResource.get('configmaps'), out).to.include({
        'Non-Resource URLs': '[]',
        'Resource Names': '[]',
        Verbs: '[get list]',
      });
      expect(byResource.get('nodes'), out).to.include({ Verbs: '[get list watch]' });
      expect(byResource.get('selfsubjectaccessreviews.authorization.platform.io'), out).to.include({
        Verbs: '[create]',
      });
      expect(
        rows.some((r) => r['Non-Resource URLs'] === '[/healthz]' && r.Verbs === '[get]'),
        out,
      ).to.equal(true);
      expect(byResource.has('secrets')).to.equal(false);
    });
  });

  describe('get -o wide of every served kind', () => {
    let wideNs: string;
    before(async () => {
      wideNs = uniqueName('wide');
      for (const o of everyType(wideNs)) {
        const collection = o.path.slice(0, o.path.lastIndexOf('/'));
        if (o.resource === 'nodes') {
          await send(
            'POST',
            collection,
            {
              ...o.obj,
              metadata: { ...o.obj.metadata, labels: { 'node-role.platform.io/control-plane': '' } },
              status: {
                conditions: [
                  {
                    type: 'Ready',
                    status: 'True',
                    reason: 'NodeagentReady',
                    message: 'ready',
                    lastHeartbeatTime: '2025-01-01T00:00:00Z',
                    lastTransitionTime: '2025-01-01T00:00:00Z',
                  },
                ],
                addresses: [
                  { type: 'InternalIP', address: '10.0.0.7' },
                  { type: 'Hostname', address: 'n7' },
                ],
                nodeInfo: {
                  architecture: 'amd64',
                  bootID: 'b',
                  containerRuntimeVersion: 'containerd://1.7.22',
                  kernelVersion: '6.8.0-45-generic',
                  platformProxyVersion: 'v1.32.0',
                  nodeagentVersion: 'v1.32.0',
                  operatingSystem: 'linux',
                  osImage: 'Ubuntu 24.04.1 LTS',
                  machineID: 'm',
                  systemUUID: 's',
                },
              },
            },
            201,
          );
        } else if (o.resource === 'resourcequotas') {
          const quota = { ...o.obj, spec: { hard: { ...(o.obj as any).spec.hard, 'limits.cpu': '4' } } };
          const made = await send('POST', collection, quota, 201);
          // No quota controller runs here: status is written as kube-controller-manager would.
          await send('PUT', `${o.path}/status`, {
            ...made,
            status: {
              hard: quota.spec.hard,
              used: { pods: '3', 'requests.cpu': '500m', 'requests.memory': '0', 'limits.cpu': '1' },
            },
          });
        } else {
          await send('POST', collection, o.obj, 201);
        }
      }
    });

    const wide = async (resource: string, namespaced: boolean, name: string) => {
      const out = await env.kubectl.ok(['get', resource, '-o', 'wide', ...(namespaced ? ['-n', wideNs] : [])]);
      const header = out
        .split('\n')[0]
        .trim()
        .split(/\s{2,}/);
      const row = parseColumns(out).find((r) => r.NAME === name);
      expect(row, out).to.not.equal(undefined);
      return { header, row: row!, out };
    };

    it('namespaces: STATUS', async () => {
      const { header, row } = await wide('namespaces', false, wideNs);
      expect(header).to.deep.equal(['NAME', 'STATUS', 'AGE']);
      expect(row).to.include({ STATUS: 'Active' });
      expect(row.AGE).to.match(AGE);
    });

    it('nodes: STATUS, ROLES, AGE, VERSION and the wide address and system columns', async () => {
      const { header, row } = await wide('nodes', false, `${wideNs}-node`);
      expect(header).to.deep.equal([
        'NAME',
        'STATUS',
        'ROLES',
        'AGE',
        'VERSION',
        'INTERNAL-IP',
        'EXTERNAL-IP',
        'OS-IMAGE',
        'KERNEL-VERSION',
        'CONTAINER-RUNTIME',
      ]);
      expect(row).to.include({
        STATUS: 'Ready',
        ROLES: 'control-plane',
        VERSION: 'v1.32.0',
        'INTERNAL-IP': '10.0.0.7',
        'EXTERNAL-IP': '<none>',
        'OS-IMAGE': 'Ubuntu 24.04.1 LTS',
        'KERNEL-VERSION': '6.8.0-45-generic',
        'CONTAINER-RUNTIME': 'containerd://1.7.22',
      });
    });

    it('resourcequotas: AGE, REQUEST and LIMIT as used/hard summaries', async () => {
      const { header, row } = await wide('resourcequotas', true, 'compute');
      expect(header).to.deep.equal(['NAME', 'AGE', 'REQUEST', 'LIMIT']);
      expect(row).to.include({
        REQUEST: 'pods: 3/10, requests.cpu: 500m/2, requests.memory: 0/4Gi',
        LIMIT: 'limits.cpu: 1/4',
      });
    });

    it('networkpolicies: POD-SELECTOR', async () => {
      const { header, row } = await wide('networkpolicies', true, 'allow-frontend');
      expect(header).to.deep.equal(['NAME', 'POD-SELECTOR', 'AGE']);
      expect(row).to.include({ 'POD-SELECTOR': 'app=api' });
    });

    it('replicasets: DESIRED, CURRENT, READY and the wide CONTAINERS, IMAGES, SELECTOR', async () => {
      const { header, row } = await wide('replicasets', true, 'web');
      expect(header).to.deep.equal(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
      expect(row).to.include({
        DESIRED: '2',
        CURRENT: '0',
        READY: '0',
        CONTAINERS: 'web',
        IMAGES: 'nginx:1.27',
        SELECTOR: 'app=web',
      });
    });

    it('cronjobs: SCHEDULE, TIMEZONE, SUSPEND, ACTIVE, LAST SCHEDULE and the wide template columns', async () => {
      const { header, row } = await wide('cronjobs', true, 'nightly');
      expect(header).to.deep.equal([
        'NAME',
        'SCHEDULE',
        'TIMEZONE',
        'SUSPEND',
        'ACTIVE',
        'LAST SCHEDULE',
        'AGE',
        'CONTAINERS',
        'IMAGES',
        'SELECTOR',
      ]);
      expect(row).to.include({
        SCHEDULE: '30 2 * * *',
        TIMEZONE: '<none>',
        SUSPEND: 'False',
        ACTIVE: '0',
        'LAST SCHEDULE': '<none>',
        CONTAINERS: 'report',
        IMAGES: 'busybox:1.36',
        SELECTOR: '<none>',
      });
    });

    it('configmaps: DATA; secrets: TYPE, DATA; serviceaccounts: SECRETS', async () => {
      const cm = await wide('configmaps', true, 'app-settings');
      expect(cm.header).to.deep.equal(['NAME', 'DATA', 'AGE']);
      expect(cm.row).to.include({ DATA: '1' });
      const secret = await wide('secrets', true, 'db-credentials');
      expect(secret.header).to.deep.equal(['NAME', 'TYPE', 'DATA', 'AGE']);
      expect(secret.row).to.include({ TYPE: 'Opaque', DATA: '2' });
      const sa = await wide('serviceaccounts', true, 'builder');
      expect(sa.header).to.deep.equal(['NAME', 'SECRETS', 'AGE']);
      expect(sa.row).to.include({ SECRETS: '0' });
    });

    it('roles and clusterroles: CREATED AT', async () => {
      const role = await wide('roles', true, 'cm-reader');
      expect(role.header).to.deep.equal(['NAME', 'CREATED AT']);
      const stored = await get(`${RBAC_V1}/namespaces/${wideNs}/roles/cm-reader`);
      expect(role.row['CREATED AT']).to.equal(stored.metadata.creationTimestamp);
      const clusterRole = await wide('clusterroles', false, `${wideNs}-node-viewer`);
      expect(clusterRole.header).to.deep.equal(['NAME', 'CREATED AT']);
    });

    it('rolebindings and clusterrolebindings: ROLE, AGE and the wide USERS, GROUPS, SERVICEACCOUNTS', async () => {
      const rb = await wide('rolebindings', true, 'builder-reads-cm');
      expect(rb.header).to.deep.equal(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
      expect(rb.row).to.include({
        ROLE: 'Role/cm-reader',
        USERS: 'alice',
        GROUPS: '',
        SERVICEACCOUNTS: `${wideNs}/builder`,
      });
      const crb = await wide('clusterrolebindings', false, `${wideNs}-ops-view-nodes`);
      expect(crb.header).to.deep.equal(['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
      expect(crb.row).to.include({
        ROLE: `ClusterRole/${wideNs}-node-viewer`,
        USERS: '',
        GROUPS: 'ops',
        SERVICEACCOUNTS: '',
      });
    });

    it('Tables over HTTPS carry PartialObjectMetadata, the whole object, or nothing, by includeObject', async () => {
      const table = (include: string) =>
        send('GET', `${RBAC_V1}/namespaces/${wideNs}/rolebindings?includeObject=${include}`, undefined, 200, {
          accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
        });
      const metadata = await table('Metadata');
      expect(metadata.rows[0].object).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      expect(metadata.rows[0].object.metadata.name).to.equal('builder-reads-cm');
      expect(metadata.rows[0].object).to.not.have.property('roleRef');
      const whole = await table('Object');
      expect(whole.rows[0].object).to.include({ kind: 'RoleBinding', apiVersion: `${RBAC}/v1` });
      expect(whole.rows[0].object.roleRef.name).to.equal('cm-reader');
      const none = await table('None');
      expect(none.rows[0]).to.not.have.property('object');
      expect(none.rows[0].cells[1]).to.equal('Role/cm-reader');
    });
  });

  it('get rs -w prints the row again with its new counts when the status changes', async () => {
    const watchNs = uniqueName('typed-watch');
    await env.kubectl.ok(['create', 'namespace', watchNs]);
    const rs = everyType(watchNs).find((o) => o.resource === 'replicasets')!;
    await send('POST', `/apis/apps/v1/namespaces/${watchNs}/replicasets`, rs.obj, 201);
    const watch = env.kubectl.stream(['get', 'rs', '-w', '-n', watchNs]);
    try {
      const header = await watch.waitForLine(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/);
      const listed = await watch.waitForLine(/^web\s+2\s+0\s+0\s+\d+s$/, { from: header + 1 });
      const current = await get(`/apis/apps/v1/namespaces/${watchNs}/replicasets/web`);
      await send('PUT', `/apis/apps/v1/namespaces/${watchNs}/replicasets/web/status`, {
        ...current,
        status: { replicas: 2, readyReplicas: 1, availableReplicas: 1 },
      });
      await watch.waitForLine(/^web\s+2\s+2\s+1\s+\d+s$/, { from: listed + 1 });
      await send('DELETE', `/apis/apps/v1/namespaces/${watchNs}/replicasets/web`, undefined);
      expect(watch.running()).to.equal(true);
    } finally {
      const done = await watch.stop();
      expect(done.stderr).to.equal('');
    }
  });

  it('get rolebindings -A -w prints bindings kubectl create makes, with their namespace and role', async () => {
    const watchNs = uniqueName('typed-rbw');
    await env.kubectl.ok(['create', 'namespace', watchNs]);
    // -v=6 logs each request: kubectl prints nothing for an empty list, so its log says when the watch is open.
    const watch = env.kubectl.stream(['get', 'rolebindings', '-A', '-w', '-v=6']);
    try {
      await watch.waitForLine(/rolebindings\?.*watch=true.* 200 OK/, { on: 'stderr' });
      await env.kubectl.ok([
        'create',
        'rolebinding',
        'carol-views',
        '--clusterrole=view',
        '--user=carol',
        '-n',
        watchNs,
      ]);
      const at = await watch.waitForLine(new RegExp(`^${watchNs}\\s+carol-views\\s`));
      const row = watch.lines[at];
      expect(
        watch.lines.slice(0, at).some((l) => /^NAMESPACE\s+NAME\s+ROLE\s+AGE$/.test(l)),
        watch.lines.join('\n'),
      ).to.equal(true);
      expect(row.split(/\s{2,}/).slice(0, 3)).to.deep.equal([watchNs, 'carol-views', 'ClusterRole/view']);
      expect(watch.running()).to.equal(true);
    } finally {
      const done = await watch.stop();
      expect(done.stderr).to.not.match(/error/i);
    }
  });

  describe('get --raw of JSON documents', () => {
    const raw = async (p: string) => env.kubectl.ok(['get', '--raw', p]);

    it('/api/v1/namespaces and /apis', async () => {
      const list = JSON.parse(await raw('/api/v1/namespaces'));
      expect(list).to.include({ kind: 'NamespaceList', apiVersion: 'v1' });
      expect(list.items.map((n: any) => n.metadata.name)).to.include(ns);
      const groups = JSON.parse(await raw('/apis'));
      expect(groups.kind).to.equal('APIGroupList');
      const names = groups.groups.map((g: any) => g.name);
      expect(names.indexOf(K8S)).to.be.greaterThan(names.indexOf(RBAC)).and.greaterThan(-1);
    });

    it('an alias path answers in its group', async () => {
      const list = JSON.parse(await raw(`/apis/${K8S}/v1/namespaces/${ns}/rolebindings`));
      expect(list).to.include({ kind: 'RoleBindingList', apiVersion: `${K8S}/v1` });
      expect(list.items.map((b: any) => [b.apiVersion, b.metadata.name])).to.deep.equal([[`${K8S}/v1`, 'bob-reads']]);
    });

    it('/openapi/v3 lists every group version of ours and of the aliases', async () => {
      const index = JSON.parse(await raw('/openapi/v3'));
      expect(Object.keys(index.paths)).to.include.members([
        'api/v1',
        `apis/${RBAC}/v1`,
        'apis/apps/v1',
        'apis/batch/v1',
        `apis/${K8S}/v1`,
      ]);
      const doc = JSON.parse(await raw(index.paths[`apis/${RBAC}/v1`].serverRelativeURL));
      expect(doc.openapi).to.match(/^3\./);
    });

    it('/metrics and /readyz print the text bodies as they are', async () => {
      const metrics = await raw('/metrics');
      expect(metrics).to.match(/^# (HELP|TYPE) /m);
      expect(metrics).to.contain('authorization');
      expect((await raw('/readyz')).trim()).to.equal('ok');
    });
  });
});
