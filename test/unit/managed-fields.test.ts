// Field sets and the schema-driven walks behind server-side apply: FieldsV1 round trips, the paths an object sets
// under each list and map type, comparisons, merges and removals.
import { expect } from 'chai';
import { FieldSet, pathString } from '../../gateway/registry/managed-fields/field-set.js';
import { compare, merge, removePaths, toFieldSet } from '../../gateway/registry/managed-fields/typed.js';
import type { JSONSchema } from '../../api/schema.js';

const schema: JSONSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { app: { type: 'string' } } },
        args: { type: 'array', items: { type: 'string' } },
        finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: {
            type: 'object',
            properties: {
              port: { type: 'integer' },
              protocol: { type: 'string', default: 'TCP' },
              name: { type: 'string' },
            },
          },
        },
      },
    },
  },
};

const paths = (set: FieldSet) => [...set.paths()].map(pathString);

describe('managed fields', () => {
  describe('FieldsV1', () => {
    it('round-trips members, children and the "." marker', () => {
      const v1 = {
        'f:data': { '.': {}, 'f:a': {} },
        'f:metadata': { 'f:labels': { 'f:x': {} } },
        'f:spec': { 'f:list': { 'k:{"name":"a"}': { '.': {}, 'f:image': {} } } },
      };
      const set = FieldSet.fromFieldsV1(v1);
      expect(set.toFieldsV1()).to.deep.equal(v1);
      expect(paths(set)).to.deep.equal([
        '.data',
        '.data.a',
        '.metadata.labels.x',
        '.spec.list[name="a"]',
        '.spec.list[name="a"].image',
      ]);
    });

    it('refuses what is not FieldsV1, naming where', () => {
      expect(() => FieldSet.fromFieldsV1([])).to.throw('expected an object');
      expect(() => FieldSet.fromFieldsV1({ 'x:y': {} })).to.throw('unknown path element "x:y"');
      expect(() => FieldSet.fromFieldsV1({ 'f:a': { 'f:b': 1 } })).to.throw('expected an object at f:a/f:b');
    });

    it('reads key, value and index elements however their JSON is spaced or ordered, as the server writes them', () => {
      const set = FieldSet.fromFieldsV1({
        'f:ports': {
          'k:{"protocol":"TCP", "port":80}': { '.': {}, 'f:name': {} },
          'k:{"port":80,"protocol":"TCP"}': { 'f:targetPort': {} },
        },
        'f:finalizers': { 'v: "a"': {} },
        'f:args': { 'i:01': {} },
      });
      expect(set.toFieldsV1()).to.deep.equal({
        'f:args': { 'i:1': {} },
        'f:finalizers': { 'v:"a"': {} },
        'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:targetPort': {} } },
      });
      expect(set.has(['f:ports', 'k:{"port":80,"protocol":"TCP"}', 'f:name'])).to.equal(true);
      expect(() => FieldSet.fromFieldsV1({ 'f:ports': { 'k:{port}': {} } })).to.throw(
        'invalid path element "k:{port}" at f:ports/',
      );
      expect(() => FieldSet.fromFieldsV1({ 'k:[1]': {} })).to.throw('invalid path element "k:[1]"');
    });

    it('computes unions, differences, intersections and prefixes', () => {
      const a = FieldSet.fromPaths([['f:a'], ['f:b', 'f:c']]);
      const b = FieldSet.fromPaths([['f:b', 'f:c'], ['f:d']]);
      expect(paths(a.union(b))).to.deep.equal(['.a', '.b.c', '.d']);
      expect(paths(a.difference(b))).to.deep.equal(['.a']);
      expect(paths(a.intersection(b))).to.deep.equal(['.b.c']);
      expect(a.hasPrefix(['f:b'])).to.equal(true);
      expect(a.hasPrefix(['f:z'])).to.equal(false);
    });
  });

  describe('toFieldSet', () => {
    it('owns leaves, map entries, atomic values whole, set values and keyed elements (defaults filling keys)', () => {
      const obj = {
        spec: {
          replicas: 2,
          labels: { a: 'x' },
          selector: { app: 'y' },
          args: ['-v'],
          finalizers: ['f1'],
          ports: [{ port: 80, name: 'http' }],
        },
      };
      expect(paths(toFieldSet(obj, schema))).to.deep.equal([
        '.spec.args',
        '.spec.finalizers[="f1"]',
        '.spec.labels.a',
        '.spec.ports[port=80,protocol="TCP"]',
        '.spec.ports[port=80,protocol="TCP"].name',
        '.spec.ports[port=80,protocol="TCP"].port',
        '.spec.replicas',
        '.spec.selector',
      ]);
    });
  });

  describe('compare', () => {
    it('reports added, modified and removed paths, with new maps and elements as paths of their own', () => {
      const before = { spec: { replicas: 1, args: ['a'], ports: [{ port: 80, protocol: 'TCP' }] } };
      const after = { spec: { replicas: 2, args: ['a'], labels: { k: 'v' }, ports: [{ port: 81, protocol: 'TCP' }] } };
      const diff = compare(before, after, schema);
      expect(paths(diff.modified)).to.deep.equal(['.spec.replicas']);
      expect(paths(diff.added)).to.deep.equal([
        '.spec.labels',
        '.spec.labels.k',
        '.spec.ports[port=81,protocol="TCP"]',
        '.spec.ports[port=81,protocol="TCP"].port',
        '.spec.ports[port=81,protocol="TCP"].protocol',
      ]);
      expect(paths(diff.removed)).to.include('.spec.ports[port=80,protocol="TCP"]');
    });
  });

  describe('merge', () => {
    it('merges granular maps and keyed lists, replaces atomic values and unions sets', () => {
      const live = {
        spec: {
          replicas: 1,
          labels: { a: '1' },
          selector: { app: 'x' },
          args: ['a', 'b'],
          finalizers: ['f1'],
          ports: [{ port: 80, protocol: 'TCP', name: 'http' }],
        },
      };
      const config = {
        spec: {
          labels: { b: '2' },
          selector: { app: 'y' },
          args: ['c'],
          finalizers: ['f2'],
          ports: [
            { port: 80, protocol: 'TCP', name: 'web' },
            { port: 443, protocol: 'TCP' },
          ],
        },
      };
      expect(merge(live, config, schema)).to.deep.equal({
        spec: {
          replicas: 1,
          labels: { a: '1', b: '2' },
          selector: { app: 'y' },
          args: ['c'],
          finalizers: ['f1', 'f2'],
          ports: [
            { port: 80, protocol: 'TCP', name: 'web' },
            { port: 443, protocol: 'TCP' },
          ],
        },
      });
    });

    it('keeps live elements the config does not mention in their place', () => {
      const s: JSONSchema = {
        type: 'object',
        properties: { l: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } },
      };
      expect(merge({ l: ['a', 'b', 'c'] }, { l: ['c', 'd'] }, s)).to.deep.equal({ l: ['a', 'b', 'c', 'd'] });
    });
  });

  describe('removePaths', () => {
    it('removes fields, map entries and list elements by key or value', () => {
      const obj = {
        spec: {
          replicas: 1,
          labels: { a: '1', b: '2' },
          finalizers: ['f1', 'f2'],
          ports: [
            { port: 80, protocol: 'TCP' },
            { port: 443, protocol: 'TCP' },
          ],
        },
      };
      removePaths(
        obj,
        [
          ['f:spec', 'f:replicas'],
          ['f:spec', 'f:labels', 'f:a'],
          ['f:spec', 'f:finalizers', 'v:"f1"'],
          ['f:spec', 'f:ports', 'k:{"port":443,"protocol":"TCP"}'],
        ],
        schema,
      );
      expect(obj).to.deep.equal({
        spec: { labels: { b: '2' }, finalizers: ['f2'], ports: [{ port: 80, protocol: 'TCP' }] },
      });
    });
  });
});
