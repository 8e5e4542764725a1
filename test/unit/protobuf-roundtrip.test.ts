// Every kind with a protobuf form goes JSON → protobuf → JSON and comes back identical: realistic objects that use
// every kind of field (timestamps, quantities, int-or-string, managed fields, bytes, maps, pointers set to zero).
import { expect } from 'chai';
import { decodeProtobufObject, encodeProtobufObject, protobufCovers } from '../../api/proto/object-codec.js';

const T1 = '2024-05-01T10:00:00Z';
const T2 = '2024-05-02T11:30:15Z';

function meta(name: string, namespace?: string): Record<string, unknown> {
  const m: Record<string, unknown> = {
    name,
    uid: '6f1c2a9e-3b1d-4c55-9a0e-2f1b7c0d4e11',
    resourceVersion: '12345',
    generation: 2,
    creationTimestamp: T1,
    labels: { app: 'web', tier: 'front' },
    annotations: { 'example.com/note': 'hello' },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'owner',
        uid: 'a-b-c',
        controller: true,
        blockOwnerDeletion: false,
      },
    ],
    finalizers: ['example.com/keep'],
    managedFields: [
      {
        manager: 'kubectl-client-side-apply',
        operation: 'Update',
        apiVersion: 'v1',
        time: T2,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ],
  };
  if (namespace) m.namespace = namespace;
  return m;
}

const podTemplate = {
  metadata: { labels: { app: 'web' }, creationTimestamp: null },
  spec: {
    initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'true'] }],
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        args: ['-g', 'daemon off;'],
        workingDir: '/srv',
        ports: [
          { name: 'http', containerPort: 80, protocol: 'TCP' },
          { containerPort: 0, hostPort: 8080 },
        ],
        env: [
          { name: 'PLAIN', value: 'x' },
          { name: 'EMPTY' },
          { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', optional: false } } },
          { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
          { name: 'FROM_FIELD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        ],
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m' } },
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        tty: true,
        envFrom: [{ prefix: 'CM_', configMapRef: { name: 'cm', optional: true } }, { secretRef: { name: 's' } }],
        volumeMounts: [
          { name: 'data', mountPath: '/data', readOnly: true, subPath: 'x', mountPropagation: 'None' },
          { name: 'cfg', mountPath: '/etc/cfg' },
        ],
        livenessProbe: {
          httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: '' }] },
          initialDelaySeconds: 3,
          periodSeconds: 10,
          terminationGracePeriodSeconds: 0,
        },
        readinessProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 1 },
        startupProbe: { exec: { command: ['cat', '/tmp/ready'] }, failureThreshold: 30 },
        lifecycle: { preStop: { sleep: { seconds: 5 } }, postStart: { exec: { command: ['true'] } } },
        securityContext: {
          runAsUser: 0,
          runAsNonRoot: false,
          privileged: false,
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
          seccompProfile: { type: 'RuntimeDefault' },
        },
      },
      {
        name: 'sidecar',
        image: 'envoy',
        livenessProbe: { grpc: { port: 9901, service: '' } },
        env: [
          {
            name: 'CPU',
            valueFrom: { resourceFieldRef: { containerName: 'web', resource: 'limits.cpu', divisor: '1m' } },
          },
        ],
      },
    ],
    volumes: [
      { name: 'data', persistentVolumeClaim: { claimName: 'data-pvc' } },
      {
        name: 'cfg',
        configMap: { name: 'cm', items: [{ key: 'a', path: 'a.conf', mode: 0 }], defaultMode: 420, optional: false },
      },
      { name: 'creds', secret: { secretName: 's', defaultMode: 256 } },
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
      { name: 'host', hostPath: { path: '/var/log', type: '' } },
      { name: 'none' },
    ],
    securityContext: {
      runAsUser: 1000,
      runAsGroup: 0,
      fsGroup: 2000,
      supplementalGroups: [0, 3000],
      sysctls: [{ name: 'net.ipv4.ip_forward', value: '0' }],
      seLinuxOptions: { level: 's0:c1,c2' },
      fsGroupChangePolicy: 'OnRootMismatch',
    },
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {
              matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }],
              matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n1'] }],
            },
          ],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 0, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
        ],
      },
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname', namespaces: ['a'] },
        ],
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 50, podAffinityTerm: { topologyKey: 'zone', namespaceSelector: {} } },
        ],
      },
    },
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'web' } },
        minDomains: 0,
        matchLabelKeys: ['pod-template-hash'],
      },
    ],
    hostAliases: [{ ip: '127.0.0.1', hostnames: ['foo.local'] }],
    dnsConfig: {
      nameservers: ['1.1.1.1'],
      searches: ['svc.local'],
      options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }],
    },
    readinessGates: [{ conditionType: 'example.com/ready' }],
    os: { name: 'linux' },
    schedulingGates: [{ name: 'example.com/wait' }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 0,
    activeDeadlineSeconds: 600,
    dnsPolicy: 'ClusterFirst',
    nodeSelector: { disk: 'ssd' },
    serviceAccountName: 'default',
    automountServiceAccountToken: false,
    hostNetwork: true,
    imagePullSecrets: [{ name: 'regcred' }],
    schedulerName: 'default-scheduler',
    priority: 0,
    enableServiceLinks: true,
    tolerations: [
      { key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 0 },
      { operator: 'Exists' },
    ],
    overhead: { cpu: '10m' },
  },
};

const selector = {
  matchLabels: { app: 'web' },
  matchExpressions: [
    { key: 'tier', operator: 'In', values: ['front', 'back'] },
    { key: 'x', operator: 'Exists' },
  ],
};

const OBJECTS: Record<string, Record<string, unknown>> = {
  Namespace: {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { ...meta('team-a'), deletionTimestamp: T2, deletionGracePeriodSeconds: 0 },
    spec: { finalizers: ['kubernetes'] },
    status: {
      phase: 'Terminating',
      conditions: [
        {
          type: 'NamespaceDeletionContentFailure',
          status: 'False',
          lastTransitionTime: T2,
          reason: 'ContentDeleted',
          message: 'All content successfully deleted',
        },
      ],
    },
  },
  Node: {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: meta('node-1'),
    spec: {
      podCIDR: '10.0.1.0/24',
      podCIDRs: ['10.0.1.0/24', 'fd00::/64'],
      providerID: 'aws:///i-1',
      unschedulable: true,
      taints: [
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule', timeAdded: T1 },
        { key: 'k', effect: 'NoExecute' },
      ],
      configSource: { configMap: { namespace: 'kube-system', name: 'kubelet', kubeletConfigKey: 'kubelet' } },
    },
    status: {
      capacity: { cpu: '4', memory: '16Gi', pods: '110' },
      allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastHeartbeatTime: T2,
          lastTransitionTime: T1,
          reason: 'KubeletReady',
          message: 'ok',
        },
      ],
      addresses: [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'Hostname', address: 'node-1' },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'm',
        systemUUID: 'u',
        bootID: 'b',
        kernelVersion: '6.1',
        osImage: 'Debian',
        containerRuntimeVersion: 'containerd://1.7',
        kubeletVersion: 'v1.32.0',
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      images: [{ names: ['nginx@sha256:abc', 'nginx:1.27'], sizeBytes: 67_000_000_123 }],
      volumesInUse: ['vol-a'],
      volumesAttached: [{ name: 'vol-a', devicePath: '/dev/xvdb' }],
      runtimeHandlers: [{ name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }],
      features: { supplementalGroupsPolicy: true },
    },
  },
  ResourceQuota: {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: meta('quota', 'team-a'),
    spec: {
      hard: { pods: '10', 'requests.cpu': '2', 'limits.memory': '2Gi' },
      scopes: ['NotTerminating'],
      scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
    },
    status: { hard: { pods: '10' }, used: { pods: '0' } },
  },
  Secret: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta('creds', 'team-a'),
    immutable: true,
    type: 'Opaque',
    data: {
      password: Buffer.from('s3cr3t').toString('base64'),
      binary: Buffer.from([0, 255, 1, 128]).toString('base64'),
      empty: '',
    },
  },
  ConfigMap: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta('settings', 'team-a'),
    immutable: false,
    data: { 'app.properties': 'a=b\nc=d\n', empty: '' },
    binaryData: { blob: Buffer.from('\u0000\u0001').toString('base64') },
  },
  ServiceAccount: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: meta('builder', 'team-a'),
    secrets: [
      {
        name: 'builder-token',
        namespace: 'team-a',
        kind: 'Secret',
        uid: 'x',
        apiVersion: 'v1',
        resourceVersion: '1',
        fieldPath: 'f',
      },
    ],
    imagePullSecrets: [{ name: 'regcred' }],
    automountServiceAccountToken: false,
  },
  NetworkPolicy: {
    apiVersion: 'networking.platform.io/v1',
    kind: 'NetworkPolicy',
    metadata: meta('deny', 'team-a'),
    spec: {
      podSelector: selector,
      ingress: [
        {
          ports: [
            { protocol: 'TCP', port: 80 },
            { protocol: 'UDP', port: 'dns', endPort: 0 },
          ],
          from: [
            { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } },
            { namespaceSelector: {}, podSelector: { matchLabels: { role: 'client' } } },
          ],
        },
      ],
      egress: [{ to: [{ podSelector: {} }] }, {}],
      policyTypes: ['Ingress', 'Egress'],
    },
  },
  ReplicaSet: {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: meta('web-5d4f', 'team-a'),
    spec: { replicas: 0, minReadySeconds: 5, selector, template: podTemplate },
    status: {
      replicas: 0,
      fullyLabeledReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      observedGeneration: 2,
      conditions: [
        { type: 'ReplicaFailure', status: 'True', lastTransitionTime: T1, reason: 'FailedCreate', message: 'quota' },
      ],
    },
  },
  CronJob: {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: meta('nightly', 'team-a'),
    spec: {
      schedule: '0 3 * * *',
      timeZone: 'Europe/Paris',
      startingDeadlineSeconds: 0,
      concurrencyPolicy: 'Forbid',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 0,
      jobTemplate: {
        metadata: { name: 'nightly', creationTimestamp: null, labels: { job: 'nightly' } },
        spec: {
          parallelism: 1,
          completions: 1,
          backoffLimit: 6,
          activeDeadlineSeconds: 3600,
          ttlSecondsAfterFinished: 0,
          completionMode: 'NonIndexed',
          suspend: false,
          template: { ...podTemplate, spec: { ...podTemplate.spec, restartPolicy: 'OnFailure' } },
        },
      },
    },
    status: {
      active: [
        { kind: 'Job', namespace: 'team-a', name: 'nightly-1', uid: 'j', apiVersion: 'batch/v1', resourceVersion: '7' },
      ],
      lastScheduleTime: T1,
      lastSuccessfulTime: T2,
    },
  },
  Role: {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'Role',
    metadata: meta('reader', 'team-a'),
    rules: [
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'secrets'], resourceNames: ['a'] },
    ],
  },
  ClusterRole: {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'ClusterRole',
    metadata: meta('aggregate'),
    rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/version'] }],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] },
  },
  RoleBinding: {
    apiVersion: 'rbac.authorization.platform.io/v1',
    kind: 'RoleBinding',
    metadata: meta('read', 'team-a'),
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'alice' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'team-a' },
    ],
    roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: 'reader' },
  },
  ClusterRoleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: meta('admins'),
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  },
  Event: {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: meta('web.17a2b3c4d5e6f708', 'a'),
    involvedObject: {
      kind: 'ReplicaSet',
      namespace: 'a',
      name: 'web',
      uid: 'u-1',
      apiVersion: 'apps/v1',
      resourceVersion: '7',
      fieldPath: 'spec',
    },
    reason: 'Scaled',
    message: 'scaled up',
    source: { component: 'replicaset-controller', host: 'cp-1' },
    firstTimestamp: T1,
    lastTimestamp: T2,
    count: 3,
    type: 'Normal',
    eventTime: '2024-05-01T10:00:00.123456Z',
    series: { count: 2, lastObservedTime: '2024-05-02T11:30:15.000001Z' },
    action: 'Scale',
    related: { kind: 'Pod', name: 'web-1', namespace: 'a' },
    reportingComponent: '',
    reportingInstance: 'cp-1',
  },
};

const REVIEWS: Record<string, unknown>[] = [
  {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
    metadata: { creationTimestamp: null },
    status: {
      userInfo: {
        username: 'alice',
        uid: 'u-1',
        groups: ['dev', 'system:authenticated'],
        extra: { scopes: ['a', 'b'], empty: [] },
      },
    },
  },
  {
    apiVersion: 'authentication.platform.io/v1',
    kind: 'TokenRequest',
    metadata: { name: 'builder', namespace: 'team-a', creationTimestamp: T1 },
    spec: {
      audiences: ['https://api'],
      expirationSeconds: 3600,
      boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'x' },
    },
    status: { token: 'header.payload.signature', expirationTimestamp: T2 },
  },
  {
    apiVersion: 'authentication.platform.io/v1',
    kind: 'TokenReview',
    metadata: { creationTimestamp: null },
    spec: { token: 'abc', audiences: ['api'] },
    status: {
      authenticated: true,
      user: { username: 'system:serviceaccount:a:b', groups: ['system:serviceaccounts'] },
      audiences: ['api'],
      error: 'none',
    },
  },
  {
    apiVersion: 'authorization.platform.io/v1',
    kind: 'SubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: {
      resourceAttributes: {
        namespace: 'a',
        verb: 'list',
        group: 'apps',
        version: 'v1',
        resource: 'replicasets',
        subresource: 'status',
        name: 'x',
        fieldSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] },
        labelSelector: { requirements: [{ key: 'tier', operator: 'NotIn', values: ['x'] }] },
      },
      user: 'alice',
      groups: ['dev'],
      extra: { 'example.com/x': ['1'] },
      uid: 'u',
    },
    status: { allowed: false, denied: true, reason: 'no rule', evaluationError: 'e' },
  },
  {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    status: { allowed: true },
  },
  {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'LocalSubjectAccessReview',
    metadata: { namespace: 'a', creationTimestamp: null },
    spec: { resourceAttributes: { namespace: 'a', verb: 'get', resource: 'pods' }, user: 'bob' },
    status: { allowed: false },
  },
  {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata: { creationTimestamp: null },
    spec: { namespace: 'a' },
    status: {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*'] }],
      incomplete: false,
    },
  },
];

const META_OBJECTS: Record<string, unknown>[] = [
  {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'configmaps "x" is invalid',
    reason: 'Invalid',
    code: 422,
    details: {
      name: 'x',
      kind: 'configmaps',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'data' }],
      retryAfterSeconds: 1,
    },
  },
  {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: 'x', group: 'apps', kind: 'replicasets', uid: 'u' },
  },
  {
    kind: 'DeleteOptions',
    apiVersion: 'meta.k8s.io/v1',
    gracePeriodSeconds: 0,
    propagationPolicy: 'Background',
    orphanDependents: false,
    preconditions: { uid: 'u', resourceVersion: '5' },
    dryRun: ['All'],
  },
  { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: meta('x', 'a') },
  {
    kind: 'PartialObjectMetadataList',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '9' },
    items: [{ metadata: meta('y') }],
  },
];

const roundTrip = (obj: unknown): unknown => decodeProtobufObject(encodeProtobufObject(obj));

describe('protobuf round trip', () => {
  for (const [kind, obj] of Object.entries(OBJECTS)) {
    it(`${kind}: object and list come back identical`, () => {
      expect(roundTrip(obj)).to.deep.equal(obj);
      const list = {
        apiVersion: obj.apiVersion,
        kind: `${kind}List`,
        metadata: { resourceVersion: '99', continue: 'tok', remainingItemCount: 0 },
        items: [obj, { ...obj, metadata: { name: 'second', creationTimestamp: T2 } }].map(
          ({ apiVersion: _a, kind: _k, ...rest }) => rest,
        ),
      };
      expect(roundTrip(list)).to.deep.equal(list);
    });
  }

  it('events.k8s.io/v1 Event and EventList come back identical', () => {
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: meta('web.17a2b3c4d5e6f709', 'a'),
      eventTime: '2024-05-01T10:00:00.123456Z',
      series: { count: 2, lastObservedTime: '2024-05-02T11:30:15.000001Z' },
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Scale',
      reason: 'Scaled',
      regarding: { kind: 'ReplicaSet', namespace: 'a', name: 'web' },
      related: { kind: 'Pod', name: 'web-1' },
      note: 'scaled up',
      type: 'Normal',
      deprecatedSource: { component: 'old' },
      deprecatedFirstTimestamp: T1,
      deprecatedLastTimestamp: T2,
      deprecatedCount: 4,
    };
    expect(roundTrip(event)).to.deep.equal(event);
    const list = {
      apiVersion: 'events.platform.io/v1',
      kind: 'EventList',
      metadata: { resourceVersion: '3' },
      items: [{ metadata: meta('x', 'a'), regarding: {} }],
    };
    expect(roundTrip(list)).to.deep.equal(list);
  });

  for (const review of REVIEWS) {
    it(`${String(review.kind)} (${String(review.apiVersion)}) comes back identical`, () => {
      expect(roundTrip(review)).to.deep.equal(review);
    });
  }

  for (const obj of META_OBJECTS) {
    it(`${String(obj.kind)} comes back identical`, () => {
      expect(roundTrip(obj)).to.deep.equal(obj);
    });
  }

  it('keeps the envelope typeMeta equal to the JSON apiVersion, for platform groups and k8s.io aliases alike', () => {
    for (const apiVersion of ['networking.platform.io/v1', 'networking.k8s.io/v1']) {
      const bytes = encodeProtobufObject({ ...OBJECTS.NetworkPolicy, apiVersion });
      expect(bytes.subarray(0, 4)).to.deep.equal(Buffer.from('k8s\0', 'latin1'));
      expect(bytes.includes(Buffer.from(apiVersion))).to.equal(true);
      expect((decodeProtobufObject(bytes) as any).apiVersion).to.equal(apiVersion);
    }
  });

  it('covers the built-in kinds only', () => {
    expect(protobufCovers('v1', 'ConfigMap')).to.equal(true);
    expect(protobufCovers('v1', 'ConfigMapList')).to.equal(true);
    expect(protobufCovers('rbac.authorization.k8s.io/v1', 'Role')).to.equal(true);
    expect(protobufCovers('v1', 'Status')).to.equal(true);
    expect(protobufCovers('stable.example.com/v1', 'CronTab')).to.equal(false);
    expect(protobufCovers('example.com/v1', 'Status')).to.equal(false);
    expect(protobufCovers('meta.k8s.io/v1', 'Table')).to.equal(false);
    expect(protobufCovers('v1', 'Pod')).to.equal(false);
    expect(protobufCovers('apps/v2', 'ReplicaSet')).to.equal(false);
    expect(protobufCovers('v1', 'toString')).to.equal(false);
  });
});
