// One valid object of every served type, with the path it is read back from and a field that must survive: the
// end-to-end tests create, apply and list them with the real kubectl.
const RBAC = 'rbac.authorization.platform.io';

/** One valid object of every served type, with the path it is read back from and a field that must survive. */
export const everyType = (ns: string) => [
  {
    resource: 'namespaces',
    printed: 'namespace',
    path: `/api/v1/namespaces/${ns}`,
    obj: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { team: 'e2e' } } },
    check: (o: any) => o.metadata.labels.team === 'e2e',
  },
  {
    resource: 'nodes',
    printed: 'node',
    path: `/api/v1/nodes/${ns}-node`,
    obj: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `${ns}-node` },
      spec: { podCIDR: '10.244.1.0/24', taints: [{ key: 'dedicated', value: 'e2e', effect: 'NoSchedule' }] },
    },
    check: (o: any) => o.spec.taints[0].key === 'dedicated',
  },
  {
    resource: 'resourcequotas',
    printed: 'resourcequota',
    path: `/api/v1/namespaces/${ns}/resourcequotas/compute`,
    obj: {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'compute', namespace: ns },
      spec: { hard: { 'requests.cpu': '2', 'requests.memory': '4Gi', pods: '10' } },
    },
    check: (o: any) => o.spec.hard['requests.memory'] === '4Gi',
  },
  {
    resource: 'networkpolicies',
    printed: 'networkpolicy.networking.platform.io',
    path: `/apis/networking.platform.io/v1/namespaces/${ns}/networkpolicies/allow-frontend`,
    obj: {
      apiVersion: 'networking.platform.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'allow-frontend', namespace: ns },
      spec: {
        podSelector: { matchLabels: { app: 'api' } },
        policyTypes: ['Ingress'],
        ingress: [
          {
            from: [
              { podSelector: { matchLabels: { app: 'frontend' } } },
              { ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.5.0/24'] } },
            ],
            ports: [{ protocol: 'TCP', port: 8080 }],
          },
        ],
      },
    },
    check: (o: any) => o.spec.ingress[0].ports[0].port === 8080,
  },
  {
    resource: 'replicasets',
    printed: 'replicaset.apps',
    path: `/apis/apps/v1/namespaces/${ns}/replicasets/web`,
    obj: {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: ns, labels: { app: 'web' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
        },
      },
    },
    check: (o: any) => o.spec.replicas === 2 && o.spec.template.spec.containers[0].image === 'nginx:1.27',
  },
  {
    resource: 'cronjobs',
    printed: 'cronjob.batch',
    path: `/apis/batch/v1/namespaces/${ns}/cronjobs/nightly`,
    obj: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly', namespace: ns },
      spec: {
        schedule: '30 2 * * *',
        concurrencyPolicy: 'Forbid',
        jobTemplate: {
          spec: {
            template: {
              spec: {
                restartPolicy: 'OnFailure',
                containers: [{ name: 'report', image: 'busybox:1.36', command: ['sh', '-c', 'date'] }],
              },
            },
          },
        },
      },
    },
    check: (o: any) => o.spec.schedule === '30 2 * * *',
  },
  {
    resource: 'secrets',
    printed: 'secret',
    path: `/api/v1/namespaces/${ns}/secrets/db-credentials`,
    obj: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-credentials', namespace: ns },
      type: 'Opaque',
      data: { password: Buffer.from('s3cr3t').toString('base64') },
      stringData: { username: 'admin' },
    },
    check: (o: any) =>
      o.data.password === Buffer.from('s3cr3t').toString('base64') &&
      o.data.username === Buffer.from('admin').toString('base64'),
  },
  {
    resource: 'configmaps',
    printed: 'configmap',
    path: `/api/v1/namespaces/${ns}/configmaps/app-settings`,
    obj: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app-settings', namespace: ns },
      data: { 'log.level': 'debug' },
    },
    check: (o: any) => o.data['log.level'] === 'debug',
  },
  {
    resource: 'serviceaccounts',
    printed: 'serviceaccount',
    path: `/api/v1/namespaces/${ns}/serviceaccounts/builder`,
    obj: {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'builder', namespace: ns },
      automountServiceAccountToken: false,
    },
    check: (o: any) => o.automountServiceAccountToken === false,
  },
  {
    resource: 'roles',
    printed: `role.${RBAC}`,
    path: `/apis/${RBAC}/v1/namespaces/${ns}/roles/cm-reader`,
    obj: {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: { name: 'cm-reader', namespace: ns },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    },
    check: (o: any) => o.rules[0].resources[0] === 'configmaps',
  },
  {
    resource: 'clusterroles',
    printed: `clusterrole.${RBAC}`,
    path: `/apis/${RBAC}/v1/clusterroles/${ns}-node-viewer`,
    obj: {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: `${ns}-node-viewer` },
      rules: [
        { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      ],
    },
    check: (o: any) => o.rules[1].nonResourceURLs[0] === '/healthz',
  },
  {
    resource: 'rolebindings',
    printed: `rolebinding.${RBAC}`,
    path: `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings/builder-reads-cm`,
    obj: {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'builder-reads-cm', namespace: ns },
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'cm-reader' },
      subjects: [
        { kind: 'ServiceAccount', name: 'builder', namespace: ns },
        { kind: 'User', apiGroup: RBAC, name: 'alice' },
      ],
    },
    check: (o: any) => o.roleRef.name === 'cm-reader' && o.subjects.length === 2,
  },
  {
    resource: 'clusterrolebindings',
    printed: `clusterrolebinding.${RBAC}`,
    path: `/apis/${RBAC}/v1/clusterrolebindings/${ns}-ops-view-nodes`,
    obj: {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: `${ns}-ops-view-nodes` },
      roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `${ns}-node-viewer` },
      subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'ops' }],
    },
    check: (o: any) => o.subjects[0].name === 'ops',
  },
  {
    // A remote one naming a Service nothing resolves: stored and listed whatever its availability.
    resource: 'apiservices',
    printed: `apiservice.apiregistration.platform.io`,
    path: `/apis/apiregistration.platform.io/v1/apiservices/v1alpha1.${ns}.example.io`,
    obj: {
      apiVersion: 'apiregistration.platform.io/v1',
      kind: 'APIService',
      metadata: { name: `v1alpha1.${ns}.example.io` },
      spec: {
        group: `${ns}.example.io`,
        version: 'v1alpha1',
        service: { namespace: ns, name: 'api', port: 8443 },
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 1000,
        versionPriority: 15,
      },
    },
    check: (o: any) => o.spec.service.port === 8443 && o.spec.groupPriorityMinimum === 1000,
  },
  ...(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'] as const).map((kind) => ({
    // Its rules name a group nothing serves, and failing calls are ignored: no other write ever reaches the webhook.
    resource: `${kind.toLowerCase()}s`,
    printed: `${kind.toLowerCase()}.admissionregistration.platform.io`,
    path: `/apis/admissionregistration.platform.io/v1/${kind.toLowerCase()}s/${ns}-hooks`,
    obj: {
      apiVersion: 'admissionregistration.platform.io/v1',
      kind,
      metadata: { name: `${ns}-hooks` },
      webhooks: [
        {
          name: `check.${ns}.example.io`,
          clientConfig: { service: { namespace: ns, name: 'webhook', path: '/check' } },
          rules: [
            {
              operations: ['CREATE'],
              apiGroups: [`${ns}.example.io`],
              apiVersions: ['v1'],
              resources: ['*'],
              scope: '*',
            },
          ],
          failurePolicy: 'Ignore',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    },
    check: (o: any) => o.webhooks[0].clientConfig.service.port === 443 && o.webhooks[0].timeoutSeconds === 10,
  })),
  {
    resource: 'validatingadmissionpolicies',
    printed: 'validatingadmissionpolicy.admissionregistration.platform.io',
    path: `/apis/admissionregistration.platform.io/v1/validatingadmissionpolicies/${ns}-replica-limit`,
    obj: {
      apiVersion: 'admissionregistration.platform.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: `${ns}-replica-limit` },
      spec: {
        failurePolicy: 'Fail',
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [
            { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['replicasets'] },
          ],
        },
        variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
        validations: [
          {
            expression: 'variables.replicas <= int(params.data.max)',
            messageExpression: "'at most ' + params.data.max",
          },
        ],
        auditAnnotations: [{ key: 'replicas', valueExpression: 'string(variables.replicas)' }],
      },
    },
    check: (o: any) => o.spec.variables[0].name === 'replicas' && o.spec.matchConstraints.matchPolicy === 'Equivalent',
  },
  {
    // Bound to a namespace of its own only: the other e2e tests' ReplicaSets stay unaffected.
    resource: 'validatingadmissionpolicybindings',
    printed: 'validatingadmissionpolicybinding.admissionregistration.platform.io',
    path: `/apis/admissionregistration.platform.io/v1/validatingadmissionpolicybindings/${ns}-replica-limit`,
    obj: {
      apiVersion: 'admissionregistration.platform.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: `${ns}-replica-limit` },
      spec: {
        policyName: `${ns}-replica-limit`,
        paramRef: { name: 'replica-limit', namespace: ns, parameterNotFoundAction: 'Allow' },
        validationActions: ['Warn', 'Audit'],
        matchResources: { namespaceSelector: { matchLabels: { 'platform.io/metadata.name': `${ns}-policed` } } },
      },
    },
    check: (o: any) => o.spec.validationActions.join() === 'Warn,Audit' && o.spec.paramRef.name === 'replica-limit',
  },
  {
    resource: 'customresourcedefinitions',
    printed: 'customresourcedefinition.apiextensions.platform.io',
    path: `/apis/apiextensions.platform.io/v1/customresourcedefinitions/widgets.${ns}.example.io`,
    obj: {
      apiVersion: 'apiextensions.platform.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${ns}.example.io` },
      spec: {
        group: `${ns}.example.io`,
        names: { plural: 'widgets', kind: 'Widget', shortNames: ['wdg'] },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } },
              },
            },
          },
        ],
      },
    },
    check: (o: any) => o.spec.names.listKind === 'WidgetList' && o.spec.conversion.strategy === 'None',
  },
  {
    resource: 'prioritylevelconfigurations',
    printed: 'prioritylevelconfiguration.flowcontrol.apiserver.platform.io',
    path: `/apis/flowcontrol.apiserver.platform.io/v1/prioritylevelconfigurations/${ns}-tenant`,
    obj: {
      apiVersion: 'flowcontrol.apiserver.platform.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: `${ns}-tenant` },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 0,
          limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4 } },
        },
      },
    },
    check: (o: any) =>
      o.spec.limited.nominalConcurrencyShares === 0 && o.spec.limited.limitResponse.queuing.queueLengthLimit === 50,
  },
  {
    resource: 'flowschemas',
    printed: 'flowschema.flowcontrol.apiserver.platform.io',
    path: `/apis/flowcontrol.apiserver.platform.io/v1/flowschemas/${ns}-tenant`,
    obj: {
      apiVersion: 'flowcontrol.apiserver.platform.io/v1',
      kind: 'FlowSchema',
      metadata: { name: `${ns}-tenant` },
      spec: {
        priorityLevelConfiguration: { name: `${ns}-tenant` },
        distinguisherMethod: { type: 'ByNamespace' },
        rules: [
          {
            subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: ns, name: '*' } }],
            resourceRules: [{ verbs: ['list', 'watch'], apiGroups: ['*'], resources: ['*'], namespaces: [ns] }],
          },
        ],
      },
    },
    check: (o: any) => o.spec.matchingPrecedence === 1000 && o.spec.rules[0].subjects[0].serviceAccount.name === '*',
  },
];
