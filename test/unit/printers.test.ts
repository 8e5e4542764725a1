// Printer columns: each kind's cells for a realistic object must be what kube-apiserver's printers put in the Table
// (so `kubectl get` prints the same), wide columns are priority 1, and no cell throws on a half-filled object.
import { expect } from 'chai';
import type { KindDefinition } from '../../api/scheme.js';
import type { KObject } from '../../api/meta/types.js';
import { builtinKinds } from '../../api/register.js';
import { namespace } from '../../api/core/v1/namespace.js';
import { node } from '../../api/core/v1/node.js';
import { resourceQuota } from '../../api/core/v1/resource-quota.js';
import { configMap } from '../../api/core/v1/config-map.js';
import { secret } from '../../api/core/v1/secret.js';
import { serviceAccount } from '../../api/core/v1/service-account.js';
import { networkPolicy } from '../../api/networking/v1/network-policy.js';
import { replicaSet } from '../../api/apps/v1/replica-set.js';
import { cronJob } from '../../api/batch/v1/cron-job.js';
import { roleBinding } from '../../api/rbac/v1/role-binding.js';
import { clusterRoleBinding } from '../../api/rbac/v1/cluster-role-binding.js';
import { role } from '../../api/rbac/v1/role.js';
import { clusterRole } from '../../api/rbac/v1/cluster-role.js';
import { ageOf, formatLabelSelector, humanDuration } from '../../api/common/printers.js';
import { toTable } from '../../gateway/negotiation/table.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A creation timestamp this long ago; whole minutes keep the printed age stable while the test runs. */
const ago = (ms: number): string => new Date(Date.now() - ms).toISOString();

const obj = (o: Record<string, unknown>): KObject => o as KObject;
const headers = (def: KindDefinition): string[] => (def.tableColumns ?? []).map((c) => c.name);
const cells = (def: KindDefinition, o: KObject): unknown[] => (def.tableColumns ?? []).map((c) => c.cell(o));
const wide = (def: KindDefinition): string[] =>
  (def.tableColumns ?? []).filter((c) => c.priority === 1).map((c) => c.name);

describe('printer columns', () => {
  describe('humanDuration', () => {
    const cases: Array<[number, string]> = [
      [-2 * SECOND, '<invalid>'],
      [-1999, '0s'],
      [-SECOND, '0s'],
      [0, '0s'],
      [5 * SECOND, '5s'],
      [999, '0s'],
      [119 * SECOND + 999, '119s'],
      [2 * MINUTE, '2m'],
      [3 * MINUTE + 20 * SECOND, '3m20s'],
      [9 * MINUTE + 59 * SECOND, '9m59s'],
      [10 * MINUTE, '10m'],
      [10 * MINUTE + 30 * SECOND, '10m'],
      [3 * HOUR - SECOND, '179m'],
      [3 * HOUR, '3h'],
      [4 * HOUR, '4h'],
      [7 * HOUR + 59 * MINUTE, '7h59m'],
      [8 * HOUR, '8h'],
      [47 * HOUR + 59 * MINUTE, '47h'],
      [48 * HOUR, '2d'],
      [51 * HOUR, '2d3h'],
      [8 * DAY - HOUR, '7d23h'],
      [8 * DAY, '8d'],
      [729 * DAY, '729d'],
      [730 * DAY, '2y'],
      [731 * DAY, '2y1d'],
      [8 * 365 * DAY - DAY, '7y364d'],
      [8 * 365 * DAY, '8y'],
      [10 * 365 * DAY + 100 * DAY, '10y'],
    ];
    for (const [ms, text] of cases) {
      it(`${ms}ms prints ${text}`, () => expect(humanDuration(ms)).to.equal(text));
    }
  });

  describe('ageOf', () => {
    it('is the human duration since the timestamp', () => {
      const now = Date.parse('2025-03-01T12:00:00Z');
      expect(ageOf('2025-03-01T11:56:40Z', now)).to.equal('3m20s');
      expect(ageOf('2025-02-27T09:00:00Z', now)).to.equal('2d3h');
    });
    it('is <unknown> when unset or unreadable', () => {
      for (const t of [undefined, null, '', 'yesterday', 42]) expect(ageOf(t)).to.equal('<unknown>');
    });
  });

  describe('formatLabelSelector', () => {
    it('prints requirements sorted by key, values sorted, as metav1.FormatLabelSelector does', () => {
      expect(
        formatLabelSelector({
          matchLabels: { tier: 'web', app: 'shop' },
          matchExpressions: [
            { key: 'zone', operator: 'NotIn', values: ['b', 'a'] },
            { key: 'env', operator: 'In', values: ['prod', 'dev'] },
            { key: 'canary', operator: 'DoesNotExist' },
            { key: 'owner', operator: 'Exists' },
          ],
        }),
      ).to.equal('app=shop,!canary,env in (dev,prod),owner,tier=web,zone notin (a,b)');
    });
    it('prints <none> for an empty or absent selector', () => {
      expect(formatLabelSelector({})).to.equal('<none>');
      expect(formatLabelSelector(undefined)).to.equal('<none>');
      expect(formatLabelSelector(null)).to.equal('<none>');
    });
  });

  describe('namespaces', () => {
    it('print STATUS and AGE', () => {
      expect(headers(namespace)).to.deep.equal(['Status', 'Age']);
      const ns = obj({
        metadata: { name: 'team-a', creationTimestamp: ago(5 * MINUTE) },
        status: { phase: 'Terminating' },
      });
      expect(cells(namespace, ns)).to.deep.equal(['Terminating', '5m']);
    });
  });

  describe('nodes', () => {
    const base = {
      metadata: {
        name: 'worker-1',
        creationTimestamp: ago(4 * HOUR),
        labels: {
          'node-role.platform.io/worker': '',
          'node-role.platform.io/control-plane': '',
          'platform.io/role': 'edge',
          'node-role.platform.io/': '',
        },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
        addresses: [
          { type: 'Hostname', address: 'worker-1' },
          { type: 'InternalIP', address: '10.0.0.11' },
          { type: 'InternalIP', address: '10.0.0.12' },
        ],
        nodeInfo: {
          nodeagentVersion: 'v1.32.2',
          osImage: 'Ubuntu 24.04.1 LTS',
          kernelVersion: '6.8.0-45-generic',
          containerRuntimeVersion: 'containerd://1.7.22',
        },
      },
    };

    it('print STATUS, ROLES, AGE, VERSION and the wide address and nodeInfo columns', () => {
      expect(headers(node)).to.deep.equal([
        'Status',
        'Roles',
        'Age',
        'Version',
        'Internal-IP',
        'External-IP',
        'OS-Image',
        'Kernel-Version',
        'Container-Runtime',
      ]);
      expect(wide(node)).to.deep.equal([
        'Internal-IP',
        'External-IP',
        'OS-Image',
        'Kernel-Version',
        'Container-Runtime',
      ]);
      expect(cells(node, obj(base))).to.deep.equal([
        'Ready,SchedulingDisabled',
        'control-plane,edge,worker',
        '4h',
        'v1.32.2',
        '10.0.0.11',
        '<none>',
        'Ubuntu 24.04.1 LTS',
        '6.8.0-45-generic',
        'containerd://1.7.22',
      ]);
    });

    it('print NotReady for a Ready condition that is not True, Unknown without one, <none> without roles', () => {
      const notReady = obj({ metadata: { name: 'n' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } });
      expect(cells(node, notReady).slice(0, 2)).to.deep.equal(['NotReady', '<none>']);
      const bare = obj({ metadata: { name: 'n', labels: { 'platform.io/role': '' } } });
      expect(cells(node, bare)).to.deep.equal([
        'Unknown',
        '<none>',
        '<unknown>',
        '',
        '<none>',
        '<none>',
        '<unknown>',
        '<unknown>',
        '<unknown>',
      ]);
    });
  });

  describe('resourcequotas', () => {
    it('print AGE, then REQUEST and LIMIT as sorted used/hard pairs', () => {
      expect(headers(resourceQuota)).to.deep.equal(['Age', 'Request', 'Limit']);
      const quota = obj({
        metadata: { name: 'compute', namespace: 'team-a', creationTimestamp: ago(2 * DAY + 3 * HOUR) },
        spec: { hard: { pods: '10' } },
        status: {
          hard: {
            'requests.memory': '4Gi',
            pods: '10',
            'limits.cpu': '4',
            'requests.cpu': '2',
            'limits.memory': '8192Mi',
            'count/configmaps': '5',
          },
          used: { 'requests.cpu': '500m', pods: '3', 'limits.memory': '1Gi' },
        },
      });
      expect(cells(resourceQuota, quota)).to.deep.equal([
        '2d3h',
        'count/configmaps: 0/5, pods: 3/10, requests.cpu: 500m/2, requests.memory: 0/4Gi',
        'limits.cpu: 0/4, limits.memory: 1Gi/8Gi',
      ]);
    });

    it('print empty summaries before the quota controller has filled status', () => {
      const quota = obj({
        metadata: { name: 'compute', creationTimestamp: ago(30 * SECOND) },
        spec: { hard: { pods: '10' } },
      });
      expect(cells(resourceQuota, quota)).to.deep.equal(['30s', '', '']);
    });
  });

  describe('networkpolicies', () => {
    it('print POD-SELECTOR and AGE', () => {
      expect(headers(networkPolicy)).to.deep.equal(['Pod-Selector', 'Age']);
      const np = obj({
        metadata: { name: 'allow-frontend', creationTimestamp: ago(10 * MINUTE) },
        spec: {
          podSelector: {
            matchLabels: { app: 'api' },
            matchExpressions: [{ key: 'tier', operator: 'In', values: ['backend'] }],
          },
        },
      });
      expect(cells(networkPolicy, np)).to.deep.equal(['app=api,tier in (backend)', '10m']);
      expect(cells(networkPolicy, obj({ metadata: { name: 'all' }, spec: { podSelector: {} } }))).to.deep.equal([
        '<none>',
        '<unknown>',
      ]);
    });
  });

  describe('replicasets', () => {
    it('print DESIRED, CURRENT, READY, AGE and the wide CONTAINERS, IMAGES, SELECTOR', () => {
      expect(headers(replicaSet)).to.deep.equal([
        'Desired',
        'Current',
        'Ready',
        'Age',
        'Containers',
        'Images',
        'Selector',
      ]);
      expect(wide(replicaSet)).to.deep.equal(['Containers', 'Images', 'Selector']);
      expect(replicaSet.tableColumns!.slice(0, 3).map((c) => c.type)).to.deep.equal(['integer', 'integer', 'integer']);
      const rs = obj({
        metadata: { name: 'web-7d9f', creationTimestamp: ago(3 * MINUTE + 20 * SECOND) },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web', 'pod-template-hash': '7d9f' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [
                { name: 'web', image: 'nginx:1.27' },
                { name: 'proxy', image: 'envoy:v1.31' },
              ],
            },
          },
        },
        status: { replicas: 3, readyReplicas: 2 },
      });
      expect(cells(replicaSet, rs)).to.deep.equal([
        3,
        3,
        2,
        '3m20s',
        'web,proxy',
        'nginx:1.27,envoy:v1.31',
        'app=web,pod-template-hash=7d9f',
      ]);
    });

    it('print zeros before status is reported', () => {
      const rs = obj({
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: { spec: { containers: [{ name: 'web', image: 'nginx' }] } },
        },
      });
      expect(cells(replicaSet, rs).slice(0, 3)).to.deep.equal([2, 0, 0]);
    });
  });

  describe('cronjobs', () => {
    const template = {
      spec: {
        template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'report', image: 'busybox:1.36' }] } },
      },
    };

    it('print SCHEDULE, TIMEZONE, SUSPEND, ACTIVE, LAST SCHEDULE, AGE and the wide template columns', () => {
      expect(headers(cronJob)).to.deep.equal([
        'Schedule',
        'Timezone',
        'Suspend',
        'Active',
        'Last Schedule',
        'Age',
        'Containers',
        'Images',
        'Selector',
      ]);
      expect(wide(cronJob)).to.deep.equal(['Containers', 'Images', 'Selector']);
      const cj = obj({
        metadata: { name: 'nightly', creationTimestamp: ago(8 * DAY) },
        spec: { schedule: '30 2 * * *', timeZone: 'Europe/Berlin', suspend: false, jobTemplate: template },
        status: {
          active: [
            { kind: 'Job', name: 'nightly-1' },
            { kind: 'Job', name: 'nightly-2' },
          ],
          lastScheduleTime: ago(5 * MINUTE),
        },
      });
      expect(cells(cronJob, cj)).to.deep.equal([
        '30 2 * * *',
        'Europe/Berlin',
        'False',
        2,
        '5m',
        '8d',
        'report',
        'busybox:1.36',
        '<none>',
      ]);
    });

    it('print <none> without a time zone or a last schedule, and True when suspended', () => {
      const cj = obj({
        metadata: { name: 'weekly', creationTimestamp: ago(MINUTE) },
        spec: { schedule: '@weekly', suspend: true, jobTemplate: template },
      });
      expect(cells(cronJob, cj).slice(0, 6)).to.deep.equal(['@weekly', '<none>', 'True', 0, '<none>', '60s']);
    });
  });

  describe('role bindings', () => {
    const subjects = [
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.platform.io' },
      { kind: 'Group', name: 'dev', apiGroup: 'rbac.authorization.platform.io' },
      { kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.platform.io' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    ];

    it('rolebindings print ROLE, AGE and the wide USERS, GROUPS, SERVICEACCOUNTS', () => {
      expect(headers(roleBinding)).to.deep.equal(['Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
      expect(wide(roleBinding)).to.deep.equal(['Users', 'Groups', 'ServiceAccounts']);
      const rb = obj({
        metadata: { name: 'read', creationTimestamp: ago(HOUR) },
        roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
        subjects,
      });
      expect(cells(roleBinding, rb)).to.deep.equal(['ClusterRole/view', '60m', 'alice, bob', 'dev', 'ci/builder']);
    });

    it('clusterrolebindings print the same columns, empty cells without subjects', () => {
      expect(headers(clusterRoleBinding)).to.deep.equal(['Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
      expect(clusterRoleBinding.tableColumns![2].description).to.equal('Users in the clusterRoleBinding');
      const crb = obj({
        metadata: { name: 'admins', creationTimestamp: ago(2 * HOUR) },
        roleRef: { kind: 'ClusterRole', name: 'cluster-admin' },
      });
      expect(cells(clusterRoleBinding, crb)).to.deep.equal(['ClusterRole/cluster-admin', '120m', '', '', '']);
    });
  });

  describe('configmaps, secrets and serviceaccounts', () => {
    it('configmaps print DATA counting data and binaryData', () => {
      expect(headers(configMap)).to.deep.equal(['Data', 'Age']);
      const cm = obj({
        metadata: { name: 'settings', creationTimestamp: ago(45 * SECOND) },
        data: { a: '1', b: '2' },
        binaryData: { logo: 'iVBORw0=' },
      });
      expect(cells(configMap, cm)).to.deep.equal([3, '45s']);
    });

    it('secrets print TYPE and DATA', () => {
      expect(headers(secret)).to.deep.equal(['Type', 'Data', 'Age']);
      const s = obj({
        metadata: { name: 'tls', creationTimestamp: ago(3 * DAY) },
        type: 'platform.io/tls',
        data: { 'tls.crt': 'Y3J0', 'tls.key': 'a2V5' },
      });
      expect(cells(secret, s)).to.deep.equal(['platform.io/tls', 2, '3d']);
    });

    it('serviceaccounts print SECRETS', () => {
      expect(headers(serviceAccount)).to.deep.equal(['Secrets', 'Age']);
      const sa = obj({
        metadata: { name: 'builder', creationTimestamp: ago(MINUTE) },
        secrets: [{ name: 'builder-token' }],
      });
      expect(cells(serviceAccount, sa)).to.deep.equal([1, '60s']);
    });
  });

  describe('every kind', () => {
    it('roles and clusterroles keep the default Name and Created At columns, as upstream has no printer for them', () => {
      expect(role.tableColumns).to.equal(undefined);
      expect(clusterRole.tableColumns).to.equal(undefined);
      const table = toTable(role, [obj({ metadata: { name: 'r', creationTimestamp: '2025-01-01T00:00:00Z' } })], {
        apiVersion: 'meta.k8s.io/v1',
        include: 'None',
      });
      expect((table.columnDefinitions as Array<{ name: string }>).map((c) => c.name)).to.deep.equal([
        'Name',
        'Created At',
      ]);
    });

    it('every kind with its own columns has Age (Events: Last Seen), a description and a known type; priorities are 0 or 1', () => {
      for (const def of builtinKinds.filter((d) => d.tableColumns)) {
        const cols = def.tableColumns!;
        expect(
          cols.map((c) => c.name),
          def.kind,
        ).to.include(def.kind === 'Event' ? 'Last Seen' : 'Age');
        for (const c of cols) {
          expect(c.priority, `${def.kind} ${c.name}`).to.be.oneOf([0, 1]);
          expect(c.description, `${def.kind} ${c.name}`).to.be.a('string').and.not.equal('');
          expect(['string', 'integer', 'boolean', 'date'], `${def.kind} ${c.name}`).to.include(c.type);
        }
      }
    });

    it('Tables start with Name and carry every cell, wide ones included (kubectl hides them without -o wide)', () => {
      const rs = obj({
        metadata: { name: 'web', creationTimestamp: ago(MINUTE) },
        spec: { replicas: 1, selector: { matchLabels: { app: 'web' } } },
      });
      const table = toTable(replicaSet, [rs], { apiVersion: 'meta.k8s.io/v1', include: 'None' });
      expect(
        (table.columnDefinitions as Array<{ name: string; priority: number }>).map((c) => [c.name, c.priority]),
      ).to.deep.equal([
        ['Name', 0],
        ['Desired', 0],
        ['Current', 0],
        ['Ready', 0],
        ['Age', 0],
        ['Containers', 1],
        ['Images', 1],
        ['Selector', 1],
      ]);
      expect((table.rows as Array<{ cells: unknown[] }>)[0].cells).to.deep.equal([
        'web',
        1,
        0,
        0,
        '60s',
        '',
        '',
        'app=web',
      ]);
    });

    it('no cell throws on objects missing fields or holding the wrong types', () => {
      const odd = [
        obj({ metadata: {} }),
        obj({}),
        obj({
          metadata: { labels: 'x', creationTimestamp: 7 },
          spec: 'x',
          status: 5,
          data: [],
          subjects: 'x',
          roleRef: 3,
          secrets: {},
        }),
        obj({
          metadata: { name: 'n' },
          spec: {
            template: { spec: { containers: [null, 'x', { name: 1 }] } },
            selector: 'x',
            podSelector: [],
            jobTemplate: { spec: null },
          },
          status: { conditions: [null], addresses: 'x', nodeInfo: [], hard: { cpu: 5 }, used: null },
          subjects: [null, { kind: 'ServiceAccount' }],
        }),
      ];
      for (const def of builtinKinds.filter((d) => d.tableColumns)) {
        for (const o of odd) {
          for (const c of def.tableColumns!) expect(() => c.cell(o), `${def.kind} ${c.name}`).to.not.throw();
        }
      }
    });
  });
});
