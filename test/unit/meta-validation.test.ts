import { expect } from 'chai';
import { fieldErrorMessage, fieldErrors, FieldPath, type FieldError } from '../../api/meta/field-errors.js';
import {
  dns1123Label,
  dns1123Subdomain,
  pathSegmentName,
  qualifiedName,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../../api/meta/validation.js';

const namespaced = { namespaced: true, nameValidator: dns1123Subdomain };
const cluster = { namespaced: false, nameValidator: dns1123Subdomain };
const summary = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);

describe('name rules', () => {
  it('checks DNS-1123 subdomains and labels with kube details', () => {
    expect(dns1123Subdomain('a.b-c')).to.deep.equal([]);
    expect(dns1123Subdomain('A')[0]).to.equal(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
    expect(dns1123Subdomain('a'.repeat(254))).to.deep.equal(['must be no more than 253 characters']);
    expect(dns1123Label('a.b')[0]).to.equal(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
    expect(dns1123Label('a'.repeat(64))).to.deep.equal(['must be no more than 63 characters']);
    expect(dns1123Label('a'.repeat(63))).to.deep.equal([]);
  });

  it('checks path segment names', () => {
    expect(pathSegmentName('Any Thing:ok')).to.deep.equal([]);
    expect(pathSegmentName('..')).to.deep.equal(["may not be '..'"]);
    expect(pathSegmentName('a/b%c')).to.deep.equal(["may not contain '/'", "may not contain '%'"]);
  });

  it('checks qualified names', () => {
    expect(qualifiedName('example.com/My_name.1')).to.deep.equal([]);
    expect(qualifiedName('/a')).to.deep.equal(['prefix part must be non-empty']);
    expect(qualifiedName('a/')).to.have.length(2);
    expect(qualifiedName('a/b/c')[0]).to.match(/^a qualified name must consist of/);
  });
});

describe('field error messages', () => {
  it('render "too long" without the value and "too many" with the count, as upstream\'s field errors do', () => {
    expect(fieldErrorMessage(fieldErrors.tooLong('fieldManager', 'x'.repeat(129), 128))).to.equal(
      'fieldManager: Too long: may not be more than 128 bytes',
    );
    expect(fieldErrorMessage(fieldErrors.tooLong('', '', 1))).to.equal(': Too long: may not be more than 1 byte');
    expect(fieldErrorMessage(fieldErrors.tooMany('jwt', 65, 64))).to.equal(
      'jwt: Too many: 65: must have at most 64 items',
    );
    expect(fieldErrorMessage(fieldErrors.tooMany('audiences', -1, 1))).to.equal(
      'audiences: Too many: must have at most 1 item',
    );
  });
});

describe('validateObjectMeta', () => {
  it('accepts a complete namespaced object', () => {
    const meta = {
      name: 'web',
      namespace: 'default',
      labels: { app: 'web', 'example.com/tier': '' },
      annotations: { 'Example.com/Note': 'anything at all' },
      finalizers: ['example.com/cleanup'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }],
    };
    expect(validateObjectMeta(meta, namespaced)).to.deep.equal([]);
  });

  it('requires a name unless generateName is set, and checks both with the kind rule', () => {
    const errs = validateObjectMeta({ namespace: 'ns' }, namespaced);
    expect(errs).to.have.length(1);
    expect(fieldErrorMessage(errs[0])).to.equal('metadata.name: Required value: name or generateName is required');
    expect(validateObjectMeta({ generateName: 'web-', namespace: 'ns' }, namespaced)).to.deep.equal([]);
    expect(
      summary(validateObjectMeta({ generateName: 'Web-', name: 'Bad', namespace: 'ns' }, namespaced)),
    ).to.deep.equal(['FieldValueInvalid metadata.generateName', 'FieldValueInvalid metadata.name']);
    expect(
      validateObjectMeta({ name: 'UPPER:ok' }, { namespaced: false, nameValidator: pathSegmentName }),
    ).to.deep.equal([]);
  });

  it('requires a valid namespace on namespaced kinds and forbids one on cluster-scoped kinds', () => {
    expect(fieldErrorMessage(validateObjectMeta({ name: 'a' }, namespaced)[0])).to.equal(
      'metadata.namespace: Required value',
    );
    expect(summary(validateObjectMeta({ name: 'a', namespace: 'Bad.NS' }, namespaced))).to.deep.equal([
      'FieldValueInvalid metadata.namespace',
    ]);
    const errs = validateObjectMeta({ name: 'a', namespace: 'x' }, cluster);
    expect(fieldErrorMessage(errs[0])).to.equal('metadata.namespace: Forbidden: not allowed on this type');
    expect(validateObjectMeta({ name: 'a' }, cluster)).to.deep.equal([]);
  });

  it('reports bad labels on the labels path with the offending key or value', () => {
    const errs = validateObjectMeta({ name: 'a', labels: { 'bad key': 'ok', good: '-bad' } }, cluster);
    expect(errs.map((e) => [e.field, e.value])).to.deep.equal([
      ['metadata.labels', 'bad key'],
      ['metadata.labels', '-bad'],
    ]);
  });

  it('checks annotation keys and their total size', () => {
    expect(summary(validateObjectMeta({ name: 'a', annotations: { 'a/b/c': 'x' } }, cluster))).to.deep.equal([
      'FieldValueInvalid metadata.annotations',
    ]);
    const big = { name: 'a', annotations: { k: 'x'.repeat(256 * 1024) } };
    expect(summary(validateObjectMeta(big, cluster))).to.deep.equal(['FieldValueTooLong metadata.annotations']);
    // As upstream words it: the too-long value is never echoed.
    expect(validateObjectMeta(big, cluster).map(fieldErrorMessage)).to.deep.equal([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
    expect(validateObjectMeta({ name: 'a', annotations: { k: 'x'.repeat(256 * 1024 - 1) } }, cluster)).to.deep.equal(
      [],
    );
  });

  it('checks finalizers and owner references', () => {
    const errs = validateObjectMeta(
      {
        name: 'a',
        finalizers: ['ok/one', 'bad name', 'ok/one'],
        ownerReferences: [
          { apiVersion: 'apps/', kind: '', name: 'x', uid: '' },
          { apiVersion: 'v1', kind: 'A', name: 'a', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'B', name: 'b', uid: '2', controller: true },
        ],
      },
      cluster,
    );
    expect(summary(errs)).to.deep.equal([
      'FieldValueInvalid metadata.ownerReferences[0].apiVersion',
      'FieldValueInvalid metadata.ownerReferences[0].kind',
      'FieldValueInvalid metadata.ownerReferences[0].uid',
      'FieldValueInvalid metadata.ownerReferences',
      'FieldValueInvalid metadata.finalizers',
      'FieldValueDuplicate metadata.finalizers[2]',
    ]);
  });

  it('uses the given path root', () => {
    const errs = validateObjectMeta(
      {},
      { ...cluster, path: FieldPath.root('spec').child('template').child('metadata') },
    );
    expect(errs[0].field).to.equal('spec.template.metadata.name');
  });
});

describe('validateObjectMetaUpdate', () => {
  const old = { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', generation: 2 };

  it('accepts an update that keeps identity fields', () => {
    expect(validateObjectMetaUpdate({ ...old, labels: { x: 'y' }, generation: 3 }, old)).to.deep.equal([]);
  });

  it('reports every changed immutable field', () => {
    const errs = validateObjectMetaUpdate(
      { name: 'b', namespace: 'other', uid: 'u2', creationTimestamp: '2025-01-01T00:00:00Z', generation: 2 },
      old,
    );
    expect(errs.map(fieldErrorMessage)).to.deep.equal([
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "other": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable',
    ]);
  });

  it('forbids decrementing generation and adding finalizers during deletion', () => {
    const deleting = { ...old, deletionTimestamp: '2024-02-01T00:00:00Z', finalizers: ['a/x'] };
    const errs = validateObjectMetaUpdate({ ...deleting, generation: 1, finalizers: ['a/x', 'b/y'] }, deleting);
    expect(summary(errs)).to.deep.equal([
      'FieldValueInvalid metadata.generation',
      'FieldValueForbidden metadata.finalizers',
    ]);
    expect(errs[1].detail).to.contain('"b/y"');
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting)).to.deep.equal([]);
  });

  it('validates labels on update too', () => {
    expect(summary(validateObjectMetaUpdate({ ...old, labels: { 'a b': 'c' } }, old))).to.deep.equal([
      'FieldValueInvalid metadata.labels',
    ]);
  });
});
