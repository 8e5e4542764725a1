// CustomResourceDefinition's protobuf form: upstream's field numbers, the x-kubernetes-* keys under their JSON
// names, the JSON values (default, enum, example) carried as their text, and the schema-or-boolean and
// schema-or-array unions as Go writes them. A round trip alone would not notice a wrong number, so some bytes are
// checked too.
import { expect } from 'chai';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';

const schema = {
  type: 'object',
  description: 'Foo',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      additionalProperties: false,
      properties: {
        replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 10.5, exclusiveMaximum: true, default: 1 },
        mode: { type: 'string', enum: ['a', 'b', null], nullable: true, pattern: '^[ab]$', example: 'a' },
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'granular' },
        ports: {
          type: 'array',
          maxItems: 4,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 0 } } },
        },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
        config: { type: 'object', default: { a: [1, 'x', { b: null }] } },
      },
      'x-kubernetes-validations': [
        {
          rule: 'self.replicas >= oldSelf.replicas',
          message: 'no shrinking',
          messageExpression: '"was " + string(oldSelf.replicas)',
          reason: 'FieldValueForbidden',
          fieldPath: '.replicas',
          optionalOldSelf: false,
        },
      ],
    },
    status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'foos.example.com', generation: 1, finalizers: ['customresourcecleanup.apiextensions.k8s.io'] },
  spec: {
    group: 'example.com',
    names: {
      plural: 'foos',
      singular: 'foo',
      shortNames: ['fo'],
      kind: 'Foo',
      listKind: 'FooList',
      categories: ['all'],
    },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        deprecated: true,
        deprecationWarning: 'use v2',
        schema: { openAPIV3Schema: schema },
        subresources: {
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        },
        additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', priority: 1, jsonPath: '.spec.replicas' }],
        selectableFields: [{ jsonPath: '.spec.mode' }],
      },
      { name: 'v2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
    conversion: {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { namespace: 'ns', name: 'conv', path: '/convert', port: 8443 }, caBundle: 'AAEC' },
        conversionReviewVersions: ['v1', 'v1beta1'],
      },
    },
  },
  status: {
    conditions: [
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: '2026-01-02T03:04:05Z',
        reason: 'InitialNamesAccepted',
        message: 'ok',
      },
    ],
    acceptedNames: { plural: 'foos', kind: 'Foo' },
    storedVersions: ['v1'],
  },
};

describe('CustomResourceDefinition protobuf', () => {
  it('comes back identical, schema unions and JSON values included', () => {
    expect(decodeProtobufObject(encodeProtobufObject(crd))).to.deep.equal(crd);
    const list = {
      apiVersion: 'apiextensions.platform.io/v1',
      kind: 'CustomResourceDefinitionList',
      metadata: { resourceVersion: '9' },
      items: [{ metadata: crd.metadata, spec: crd.spec }],
    };
    expect(decodeProtobufObject(encodeProtobufObject(list))).to.deep.equal(list);
  });

  it('writes upstream field numbers: x-kubernetes-list-type 42, additionalProperties 30 as {allows false}, maximum 9 as a double', () => {
    const bytes = (s: Record<string, unknown>) =>
      encodeProtobufObject({
        ...crd,
        spec: { versions: [{ name: 'v', schema: { openAPIV3Schema: s } }] },
        status: undefined,
      });
    const listType = bytes({ 'x-kubernetes-list-type': 'set' });
    expect(listType.includes(Buffer.from([0xd2, 0x02, 0x03, ...Buffer.from('set')]))).to.equal(true);
    const closed = bytes({ additionalProperties: false });
    expect(closed.includes(Buffer.from([0xf2, 0x01, 0x02, 0x08, 0x00]))).to.equal(true);
    const max = Buffer.alloc(8);
    max.writeDoubleLE(10.5);
    expect(bytes({ maximum: 10.5 }).includes(Buffer.concat([Buffer.from([0x49]), max]))).to.equal(true);
    const dflt = bytes({ default: { a: 1 } });
    expect(dflt.includes(Buffer.from([0x42, 0x09, 0x0a, 0x07, ...Buffer.from('{"a":1}')]))).to.equal(true);
  });

  it('refuses a value that has no wire form with a 500 naming the field', () => {
    const bad = structuredClone(crd) as any;
    bad.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.maximum = 'ten';
    expect(() => encodeProtobufObject(bad)).to.throw(
      /properties\.spec\.properties\.replicas\.maximum: must be a number/,
    );
    bad.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.maximum = 1;
    bad.spec.versions[0].schema.openAPIV3Schema.additionalProperties = 'yes';
    expect(() => encodeProtobufObject(bad)).to.throw(/additionalProperties: must be a schema object/);
  });
});
