import { expect } from 'chai';
import type { KindDefinition } from '../../api/scheme.js';
import { builtinKinds } from '../../api/register.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';
import { namespace } from '../../api/core/v1/namespace.js';
import { node } from '../../api/core/v1/node.js';
import { resourceQuota } from '../../api/core/v1/resource-quota.js';
import { secret } from '../../api/core/v1/secret.js';
import { configMap } from '../../api/core/v1/config-map.js';
import { serviceAccount } from '../../api/core/v1/service-account.js';
import { networkPolicy } from '../../api/networking/v1/network-policy.js';
import { replicaSet } from '../../api/apps/v1/replica-set.js';
import { cronJob } from '../../api/batch/v1/cron-job.js';
import { role } from '../../api/rbac/v1/role.js';
import { clusterRole } from '../../api/rbac/v1/cluster-role.js';
import { roleBinding } from '../../api/rbac/v1/role-binding.js';
import { clusterRoleBinding } from '../../api/rbac/v1/cluster-role-binding.js';
import { apiService } from '../../api/apiregistration/v1/api-service.js';
import { defaulted, fields, messages, mk } from '../helpers/kind-rules.js';

const rsBody = {
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
};
const npBody = {
  spec: {
    podSelector: {},
    ingress: [
      { from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }], ports: [{ port: 80, endPort: 90 }] },
    ],
  },
};
const cjBody = {
  spec: { schedule: '*/5 * * * 1-5', timeZone: 'Europe/Paris', jobTemplate: { spec: { template: {} } } },
};
const rbBody = {
  roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'r' },
  subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.platform.io' }],
};
const crbBody = {
  roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: 'view' },
  subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns', apiGroup: '' }],
};

const valid: [KindDefinition, Record<string, unknown>, string?][] = [
  [namespace, {}, 'team-a'],
  [
    node,
    {
      spec: {
        podCIDR: '10.0.0.0/24',
        podCIDRs: ['10.0.0.0/24', 'fd00::/64'],
        taints: [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }],
      },
      status: { capacity: { cpu: '4', memory: '16Gi' }, conditions: [{ type: 'Ready', status: 'True' }] },
    },
  ],
  [
    resourceQuota,
    {
      spec: {
        hard: { pods: '10', 'requests.cpu': '1.5' },
        scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
      },
    },
  ],
  [secret, { data: { token: 'aGVsbG8=' }, type: 'Opaque' }],
  [configMap, { data: { 'app.conf': 'x=1' }, binaryData: { blob: 'AAEC' } }],
  [
    serviceAccount,
    { secrets: [{ name: 's' }], imagePullSecrets: [{ name: 'p' }], automountServiceAccountToken: false },
  ],
  [networkPolicy, npBody],
  [replicaSet, rsBody],
  [cronJob, cjBody],
  [role, { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, 'pod-reader'],
  [
    clusterRole,
    {
      rules: [{ nonResourceURLs: ['/healthz*'], verbs: ['get'] }],
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
    },
    'system:health',
  ],
  [roleBinding, rbBody],
  [clusterRoleBinding, crbBody],
  [apiService, { spec: { group: '', version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 } }, 'v1.'],
  [
    apiService,
    {
      spec: {
        group: 'metrics.example.io',
        version: 'v1beta1',
        service: { namespace: 'monitoring', name: 'metrics' },
        caBundle: 'LS0tLS1CRUdJTg==',
        groupPriorityMinimum: 100,
        versionPriority: 100,
      },
    },
    'v1beta1.metrics.example.io',
  ],
];

describe('built-in kinds', () => {
  it('registers the 23 kinds with kube-apiserver names', () => {
    expect(builtinKinds.map((k) => k.resource)).to.have.members([
      'namespaces',
      'nodes',
      'resourcequotas',
      'secrets',
      'configmaps',
      'serviceaccounts',
      'events',
      'networkpolicies',
      'replicasets',
      'cronjobs',
      'events',
      'roles',
      'clusterroles',
      'rolebindings',
      'clusterrolebindings',
      'apiservices',
      'validatingwebhookconfigurations',
      'mutatingwebhookconfigurations',
      'validatingadmissionpolicies',
      'validatingadmissionpolicybindings',
      'customresourcedefinitions',
      'flowschemas',
      'prioritylevelconfigurations',
    ]);
    expect(
      Object.fromEntries(builtinKinds.filter((k) => k.shortNames).map((k) => [k.resource, k.shortNames])),
    ).to.deep.equal({
      namespaces: ['ns'],
      nodes: ['no'],
      resourcequotas: ['quota'],
      configmaps: ['cm'],
      serviceaccounts: ['sa'],
      events: ['ev'],
      networkpolicies: ['netpol'],
      replicasets: ['rs'],
      cronjobs: ['cj'],
      customresourcedefinitions: ['crd', 'crds'],
    });
    expect(builtinKinds.filter((k) => k.categories?.includes('all')).map((k) => k.kind)).to.have.members([
      'ReplicaSet',
      'CronJob',
    ]);
  });

  for (const [def, body, name] of valid) {
    it(`accepts a valid ${def.kind}`, () => {
      const o = defaulted(def, mk(def, body, name));
      expect(createKindValidator(def).prune(o)).to.deep.equal([]);
      expect(messages(def, o)).to.deep.equal([]);
    });
  }

  it('checks metadata of every kind with its name format', () => {
    expect(fields(namespace, { metadata: { name: 'a.b' } })).to.deep.equal(['metadata.name']);
    expect(fields(node, { metadata: { name: 'a.b' } })).to.deep.equal([]);
    expect(fields(role, mk(role, {}, 'a/b'))).to.deep.equal(['metadata.name']);
    expect(fields(configMap, { metadata: { name: 'c' } })).to.deep.equal(['metadata.namespace']);
  });
});

describe('Node', () => {
  it('reports taint, CIDR and quantity errors with their paths', () => {
    const o = mk(node, {
      spec: {
        taints: [
          { key: 'a', effect: 'NoSchedule', timeAdded: '2024-01-01T00:00:00Z' },
          { key: 'a', effect: 'NoSchedule' },
          { key: 'bad key!', effect: 'NoExecute' },
        ],
        podCIDRs: ['10.0.0.0/24', '10.1.0.0/24', 'nope'],
      },
      status: { capacity: { cpu: 'lots' } },
    });
    expect(fields(node, o)).to.have.members([
      'spec.taints[0].timeAdded',
      'spec.taints[1]',
      'spec.taints[2].key',
      'spec.podCIDRs[2]',
      'spec.podCIDRs',
      'status.capacity[cpu]',
    ]);
  });
  it('fills podCIDRs from podCIDR and forbids changing them later', () => {
    const o = defaulted(node, mk(node, { spec: { podCIDR: '10.0.0.0/24' } }));
    expect((o.spec as any).podCIDRs).to.deep.equal(['10.0.0.0/24']);
    const changed = mk(node, { spec: { podCIDR: '10.9.0.0/24', podCIDRs: ['10.9.0.0/24'] } });
    expect(node.validateUpdate!(changed, o).map((e) => e.field)).to.deep.equal(['spec.podCIDRs']);
  });
  it('selects on spec.unschedulable', () => {
    expect(node.selectableFields!(mk(node, { spec: { unschedulable: true } }))).to.deep.equal({
      'spec.unschedulable': 'true',
    });
  });
});

describe('Namespace', () => {
  it('starts Active with the platform finalizer', () => {
    const o = mk(namespace, {}, 'ns1');
    namespace.prepareForCreate!(o);
    expect(o.status).to.deep.equal({ phase: 'Active' });
    expect((o.spec as any).finalizers).to.deep.equal(['platform']);
  });
});

describe('ResourceQuota', () => {
  it('checks scope selector values per operator and quantities', () => {
    const o = mk(resourceQuota, {
      spec: {
        hard: { cpu: '1x' },
        scopeSelector: {
          matchExpressions: [
            { scopeName: 'A', operator: 'In' },
            { scopeName: 'B', operator: 'Exists', values: ['x'] },
          ],
        },
      },
    });
    expect(fields(resourceQuota, o)).to.have.members([
      'spec.hard[cpu]',
      'spec.scopeSelector.matchExpressions[0].values',
      'spec.scopeSelector.matchExpressions[1].values',
    ]);
  });
});

describe('Secret and ConfigMap', () => {
  it('folds stringData into data and defaults the type', () => {
    const o = defaulted(secret, mk(secret, { data: { a: 'eA==' }, stringData: { b: 'hello' } }));
    secret.prepareForCreate!(o);
    expect(o).to.not.have.property('stringData');
    expect(o.data).to.deep.equal({ a: 'eA==', b: Buffer.from('hello').toString('base64') });
    expect(o.type).to.equal('Opaque');
  });
  it('rejects bad keys, and leaves bad base64 to the decoding step', () => {
    expect(fields(secret, mk(secret, { data: { 'bad key': 'eA==' } }))).to.have.members(['data[bad key]']);
    expect(secret.decodeProblem!(mk(secret, { data: { ok: 'eA==', bad: 'eA=' } }))).to.equal(
      'illegal base64 data at input byte 3',
    );
    expect(secret.decodeProblem!(mk(secret, { data: { ok: 'eA==\n' } }))).to.equal(undefined);
  });
  it('keeps immutable payloads immutable', () => {
    const old = mk(secret, { data: { a: 'eA==' }, immutable: true, type: 'Opaque' });
    const next = mk(secret, { data: { a: 'eQ==' }, immutable: true, type: 'Opaque' });
    expect(secret.validateUpdate!(next, old).map(fieldErrorMessage)).to.deep.equal([
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
    expect(
      secret.validateUpdate!(mk(secret, { data: { a: 'eA==' }, type: 'Opaque' }), old).map((e) => e.field),
    ).to.deep.equal(['immutable']);
    const cmOld = mk(configMap, { data: { a: '1' }, immutable: true });
    expect(configMap.validateUpdate!(mk(configMap, { data: { a: '2' }, immutable: true }), cmOld)).to.have.length(1);
    expect(
      configMap.validateUpdate!(mk(configMap, { data: { a: '2' } }), mk(configMap, { data: { a: '1' } })),
    ).to.deep.equal([]);
  });
  it('forbids a key in both data and binaryData', () => {
    expect(fields(configMap, mk(configMap, { data: { k: 'v' }, binaryData: { k: 'AA==' } }))).to.deep.equal(['data']);
  });
});

describe('NetworkPolicy', () => {
  it('defaults protocol and policyTypes', () => {
    const o = defaulted(
      networkPolicy,
      mk(networkPolicy, { spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] } }),
    );
    expect((o.spec as any).policyTypes).to.deep.equal(['Ingress', 'Egress']);
    expect((o.spec as any).egress[0].ports[0].protocol).to.equal('TCP');
    const ingressOnly = defaulted(networkPolicy, mk(networkPolicy, { spec: { podSelector: {} } }));
    expect((ingressOnly.spec as any).policyTypes).to.deep.equal(['Ingress']);
  });
  it('reports peer, ipBlock and port errors', () => {
    const o = mk(networkPolicy, {
      spec: {
        podSelector: {},
        ingress: [
          {
            from: [
              { ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24'] }, podSelector: {} },
              {},
              { ipBlock: { cidr: 'nope' } },
            ],
            ports: [{ port: 'http', endPort: 90 }, { endPort: 90 }, { port: 100, endPort: 90 }, { port: 0 }],
          },
        ],
      },
    });
    expect(fields(networkPolicy, o)).to.have.members([
      'spec.ingress[0].from[0]',
      'spec.ingress[0].from[0].ipBlock.except[0]',
      'spec.ingress[0].from[1]',
      'spec.ingress[0].from[2].ipBlock.cidr',
      'spec.ingress[0].ports[0].endPort',
      'spec.ingress[0].ports[1].port',
      'spec.ingress[0].ports[2].endPort',
      'spec.ingress[0].ports[3].port',
    ]);
  });
  it('requires podSelector', () => {
    expect(fields(networkPolicy, mk(networkPolicy, { spec: {} }))).to.deep.equal(['spec.podSelector']);
  });
});

describe('ReplicaSet', () => {
  it('defaults replicas to 1 but keeps an explicit 0', () => {
    expect(defaulted(replicaSet, mk(replicaSet, rsBody)).spec as any).to.include({ replicas: 1, minReadySeconds: 0 });
    const zero = mk(replicaSet, rsBody);
    (zero.spec as any).replicas = 0;
    expect((defaulted(replicaSet, zero).spec as any).replicas).to.equal(0);
  });
  it('requires a selector matching the template labels', () => {
    const o = mk(replicaSet, rsBody);
    (o.spec as any).selector = { matchLabels: { app: 'other' } };
    expect(messages(replicaSet, o)).to.deep.equal([
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
    delete (o.spec as any).selector;
    expect(fields(replicaSet, o)).to.deep.equal(['spec.selector']);
  });
  it('reports negative replicas and containers without image', () => {
    const o = mk(replicaSet, rsBody);
    (o.spec as any).replicas = -1;
    (o.spec as any).template.spec.containers = [{ name: 'c' }];
    expect(fields(replicaSet, o)).to.have.members(['spec.replicas', 'spec.template.spec.containers[0].image']);
  });
  it('makes the selector immutable', () => {
    const old = mk(replicaSet, rsBody);
    const next = mk(replicaSet, rsBody);
    (next.spec as any).selector = { matchLabels: { app: 'web', tier: 'x' } };
    (next.spec as any).template.metadata.labels.tier = 'x';
    expect(
      createKindValidator(replicaSet)
        .validateUpdate(next, old)
        .map((e) => e.field),
    ).to.deep.equal(['spec.selector']);
  });
  it("defaults missing or empty labels to the template's, and leaves labels of another type to validation", () => {
    expect(defaulted(replicaSet, mk(replicaSet, rsBody)).metadata.labels).to.deep.equal({ app: 'web' });
    const empty = mk(replicaSet, rsBody);
    empty.metadata.labels = {};
    expect(defaulted(replicaSet, empty).metadata.labels).to.deep.equal({ app: 'web' });
    const wrongType = mk(replicaSet, rsBody);
    (wrongType.metadata as any).labels = 'invalid';
    expect(defaulted(replicaSet, wrongType).metadata.labels).to.equal('invalid');
    expect(fields(replicaSet, wrongType)).to.include('metadata.labels');
  });
  it('starts with status.replicas 0 and reads a status without replicas as 0', () => {
    const created = mk(replicaSet, { ...rsBody, status: { replicas: 4 } });
    replicaSet.prepareForCreate!(created);
    expect(created.status).to.deep.equal({ replicas: 0 });
    expect(defaulted(replicaSet, mk(replicaSet, { ...rsBody, status: { readyReplicas: 1 } })).status).to.deep.equal({
      readyReplicas: 1,
      replicas: 0,
    });
  });
  it('selects on status.replicas', () => {
    expect(replicaSet.selectableFields!(mk(replicaSet, { status: { replicas: 3 } }))).to.deep.equal({
      'status.replicas': '3',
    });
  });
});

describe('CronJob', () => {
  it('applies defaults', () => {
    expect(defaulted(cronJob, mk(cronJob, cjBody)).spec).to.include({
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
  });
  it('validates schedule, time zone, policy and limits', () => {
    const o = mk(cronJob, {
      spec: {
        schedule: '61 * * * *',
        timeZone: 'Mars/Olympus',
        concurrencyPolicy: 'Sometimes',
        failedJobsHistoryLimit: -1,
        jobTemplate: {},
      },
    });
    expect(fields(cronJob, o)).to.have.members([
      'spec.schedule',
      'spec.timeZone',
      'spec.concurrencyPolicy',
      'spec.failedJobsHistoryLimit',
    ]);
    for (const ok of ['@hourly', '0 0 1 jan mon', '*/15 9-17 * * 1-5'])
      expect(fields(cronJob, mk(cronJob, { spec: { ...cjBody.spec, schedule: ok } })), ok).to.deep.equal([]);
    for (const bad of ['* * * *', '@sometimes', 'TZ=UTC * * * * *'])
      expect(fields(cronJob, mk(cronJob, { spec: { ...cjBody.spec, schedule: bad } })), bad).to.deep.equal([
        'spec.schedule',
      ]);
    for (const tz of ['UTC', 'Etc/UTC', 'America/New_York'])
      expect(fields(cronJob, mk(cronJob, { spec: { ...cjBody.spec, timeZone: tz } })), tz).to.deep.equal([]);
  });
  it('requires schedule and jobTemplate', () => {
    expect(fields(cronJob, mk(cronJob, { spec: {} }))).to.have.members(['spec.schedule', 'spec.jobTemplate']);
  });
});

describe('RBAC', () => {
  it('requires verbs and resources or non-resource URLs', () => {
    const o = mk(role, {
      rules: [
        { apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'] },
        { verbs: ['get'], nonResourceURLs: ['/x'] },
      ],
    });
    expect(messages(role, o)).to.have.members([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[1].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[1].resources: Required value: resource rules must supply at least one resource',
      'rules[2].nonResourceURLs: Invalid value: ["/x"]: namespaced rules cannot apply to non-resource URLs',
    ]);
  });
  it('requires at least one aggregation selector when aggregationRule is set', () => {
    expect(fields(clusterRole, mk(clusterRole, { aggregationRule: {} }))).to.deep.equal([
      'aggregationRule.clusterRoleSelectors',
    ]);
  });
  it('defaults subject apiGroups, leaving out an empty one as upstream JSON does', () => {
    const o = defaulted(
      roleBinding,
      mk(roleBinding, {
        roleRef: rbBody.roleRef,
        subjects: [
          { kind: 'User', name: 'a' },
          { kind: 'ServiceAccount', name: 'b' },
          { kind: 'ServiceAccount', name: 'c', apiGroup: '' },
        ],
      }),
    );
    expect(o.subjects).to.deep.equal([
      { kind: 'User', name: 'a', apiGroup: 'rbac.authorization.platform.io' },
      { kind: 'ServiceAccount', name: 'b' },
      { kind: 'ServiceAccount', name: 'c' },
    ]);
  });
  it('validates roleRef and subjects', () => {
    const o = mk(clusterRoleBinding, {
      roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'ServiceAccount', name: 'sa', apiGroup: '' },
        { kind: 'User', name: 'u', apiGroup: 'rbac.authorization.platform.io', namespace: 'ns' },
        { kind: 'Robot', name: 'r' },
      ],
    });
    expect(fields(clusterRoleBinding, o)).to.have.members([
      'roleRef.kind',
      'subjects[0].namespace',
      'subjects[1].namespace',
      'subjects[2].kind',
    ]);
    expect(fields(roleBinding, mk(roleBinding, { subjects: [] }))).to.deep.equal(['roleRef']);
  });
  it('makes roleRef immutable', () => {
    const old = mk(roleBinding, rbBody);
    const next = mk(roleBinding, { ...rbBody, roleRef: { ...rbBody.roleRef, name: 'other' } });
    const errs = createKindValidator(roleBinding).validateUpdate(next, old);
    expect(errs.map(fieldErrorMessage)).to.deep.equal([
      'roleRef: Invalid value: {"apiGroup":"rbac.authorization.platform.io","kind":"Role","name":"other"}: cannot change roleRef',
    ]);
  });
});
