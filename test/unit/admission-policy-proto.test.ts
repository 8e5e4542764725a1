// The admissionregistration kinds' protobuf form: upstream's field numbers, with Rule and RuleWithOperations embedded
// (inline in JSON, nested on the wire) as Go embeds them; a round trip alone would not notice a wrong number.
import { expect } from 'chai';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: 'p', generation: 2, creationTimestamp: '2024-05-01T10:00:00Z' },
  spec: {
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConstraints: {
      namespaceSelector: { matchLabels: { env: 'prod' } },
      objectSelector: {},
      resourceRules: [
        {
          resourceNames: ['a'],
          operations: ['CREATE'],
          apiGroups: [''],
          apiVersions: ['v1'],
          resources: ['configmaps'],
          scope: '*',
        },
      ],
      excludeResourceRules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['secrets'] }],
      matchPolicy: 'Equivalent',
    },
    validations: [
      { expression: 'true', message: 'm', reason: 'Forbidden', messageExpression: "'x'" },
      { expression: 'false' },
    ],
    failurePolicy: 'Fail',
    auditAnnotations: [{ key: 'k', valueExpression: "'v'" }],
    matchConditions: [{ name: 'c', expression: 'true' }],
    variables: [{ name: 'v', expression: '1' }],
  },
  status: {
    observedGeneration: 2,
    typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'w' }] },
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        observedGeneration: 2,
        lastTransitionTime: '2024-05-02T11:30:15Z',
        reason: 'Compiled',
        message: '',
      },
    ],
  },
};

const binding = {
  apiVersion: 'admissionregistration.platform.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: 'b' },
  spec: {
    policyName: 'p',
    paramRef: { name: 'n', namespace: 'ns', parameterNotFoundAction: 'Deny' },
    matchResources: { matchPolicy: 'Exact' },
    validationActions: ['Warn', 'Audit'],
  },
};

describe('ValidatingAdmissionPolicy protobuf', () => {
  it('nests the embedded rule structs under upstream field numbers', () => {
    const one = {
      ...policy,
      spec: {
        matchConstraints: {
          resourceRules: [{ resourceNames: ['a'], operations: ['C'], apiGroups: ['g'] }],
          matchPolicy: 'E',
        },
      },
      status: undefined,
    };
    delete one.status;
    const match = Buffer.from([
      ...[0x1a, 0x0d], // 3 resourceRules
      ...[0x0a, 0x01, 0x61], // 1 resourceNames
      ...[0x12, 0x08, 0x0a, 0x01, 0x43], // 2 ruleWithOperations {1 operations
      ...[0x12, 0x03, 0x0a, 0x01, 0x67], // 2 rule {1 apiGroups}}
      ...[0x3a, 0x01, 0x45], // 7 matchPolicy
    ]);
    const spec = Buffer.concat([Buffer.from([0x12, match.length]), match]); // spec 2 matchConstraints
    expect(encodeProtobufObject(one).includes(Buffer.concat([Buffer.from([0x12, spec.length]), spec]))).to.equal(true);
  });

  it('binding spec: policyName 1, paramRef 2, matchResources 3, validationActions 4', () => {
    const bytes = encodeProtobufObject({ ...binding, spec: { policyName: 'p', validationActions: ['Warn'] } });
    const spec = Buffer.from([0x0a, 0x01, 0x70, 0x22, 0x04, ...Buffer.from('Warn')]);
    expect(bytes.includes(Buffer.concat([Buffer.from([0x12, spec.length]), spec]))).to.equal(true);
  });

  it('both kinds and their lists come back identical', () => {
    expect(decodeProtobufObject(encodeProtobufObject(policy))).to.deep.equal(policy);
    expect(decodeProtobufObject(encodeProtobufObject(binding))).to.deep.equal(binding);
    const list = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBindingList',
      metadata: { resourceVersion: '7' },
      items: [{ metadata: binding.metadata, spec: binding.spec }],
    };
    expect(decodeProtobufObject(encodeProtobufObject(list))).to.deep.equal(list);
  });
});

describe('webhook configuration protobuf', () => {
  const webhook = {
    name: 'check.example.com',
    clientConfig: {
      service: { namespace: 'hooks', name: 'svc', path: '/validate', port: 8443 },
      caBundle: Buffer.from('-----BEGIN CERTIFICATE-----').toString('base64'),
    },
    rules: [
      { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], scope: '*' },
    ],
    failurePolicy: 'Ignore',
    matchPolicy: 'Equivalent',
    namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] },
    objectSelector: {},
    sideEffects: 'NoneOnDryRun',
    timeoutSeconds: 5,
    admissionReviewVersions: ['v1', 'v1beta1'],
    matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
  };
  const validating = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'v', generation: 1, creationTimestamp: '2024-05-01T10:00:00Z' },
    webhooks: [webhook, { ...webhook, name: 'url.example.com', clientConfig: { url: 'https://hooks.example.com/v' } }],
  };
  const mutating = {
    apiVersion: 'admissionregistration.platform.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'm' },
    webhooks: [{ ...webhook, reinvocationPolicy: 'IfNeeded' }],
  };
  const webhooksField = (hook: number[]) => Buffer.from([0x12, hook.length, ...hook]);
  const tail = [
    ...[0x0a, 0x01, 0x61], // 1 name
    ...[0x12, 0x03, 0x1a, 0x01, 0x75], // 2 clientConfig {3 url}
    ...[0x1a, 0x08, 0x0a, 0x01, 0x43, 0x12, 0x03, 0x0a, 0x01, 0x67], // 3 rules {1 operations, 2 rule {1 apiGroups}}
  ];
  const condition = [0x0a, 0x01, 0x6e, 0x12, 0x01, 0x65]; // 1 name, 2 expression

  it('ValidatingWebhook: objectSelector 10, matchConditions 11; the rule nested as in RuleWithOperations', () => {
    const hook = {
      name: 'a',
      clientConfig: { url: 'u' },
      rules: [{ operations: ['C'], apiGroups: ['g'] }],
      objectSelector: {},
      matchConditions: [{ name: 'n', expression: 'e' }],
    };
    const bytes = encodeProtobufObject({ ...validating, metadata: { name: 'v' }, webhooks: [hook] });
    const expected = webhooksField([...tail, ...[0x52, 0x00], ...[0x5a, condition.length, ...condition]]);
    expect(bytes.includes(expected)).to.equal(true);
  });

  it('MutatingWebhook: reinvocationPolicy 10, objectSelector 11, matchConditions 12', () => {
    const hook = {
      name: 'a',
      clientConfig: { url: 'u' },
      rules: [{ operations: ['C'], apiGroups: ['g'] }],
      reinvocationPolicy: 'N',
      objectSelector: {},
      matchConditions: [{ name: 'n', expression: 'e' }],
    };
    const bytes = encodeProtobufObject({ ...mutating, webhooks: [hook] });
    const expected = webhooksField([
      ...tail,
      ...[0x52, 0x01, 0x4e],
      ...[0x5a, 0x00],
      ...[0x62, condition.length, ...condition],
    ]);
    expect(bytes.includes(expected)).to.equal(true);
  });

  it('WebhookClientConfig: service 1, caBundle 2 (bytes); ServiceReference: namespace 1, name 2, path 3, port 4', () => {
    const hook = {
      name: 'a',
      clientConfig: { service: { namespace: 's', name: 'n', path: '/p', port: 8443 }, caBundle: 'Q0E=' },
    };
    const bytes = encodeProtobufObject({ ...validating, metadata: { name: 'v' }, webhooks: [hook] });
    const ref = [0x0a, 0x01, 0x73, 0x12, 0x01, 0x6e, 0x1a, 0x02, 0x2f, 0x70, 0x20, 0xfb, 0x41];
    const clientConfig = [0x0a, ref.length, ...ref, 0x12, 0x02, 0x43, 0x41];
    expect(bytes.includes(Buffer.from([0x12, clientConfig.length, ...clientConfig]))).to.equal(true);
  });

  it('both kinds and their lists come back identical', () => {
    expect(decodeProtobufObject(encodeProtobufObject(validating))).to.deep.equal(validating);
    expect(decodeProtobufObject(encodeProtobufObject(mutating))).to.deep.equal(mutating);
    for (const [kind, item] of [
      ['ValidatingWebhookConfigurationList', validating],
      ['MutatingWebhookConfigurationList', mutating],
    ] as const) {
      const list = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: { resourceVersion: '9' },
        items: [{ metadata: item.metadata, webhooks: item.webhooks }],
      };
      expect(decodeProtobufObject(encodeProtobufObject(list))).to.deep.equal(list);
    }
  });
});
