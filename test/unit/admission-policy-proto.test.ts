// ValidatingAdmissionPolicy's protobuf form: upstream's field numbers, with Rule and RuleWithOperations embedded
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
