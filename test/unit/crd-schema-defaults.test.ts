// Defaulting custom objects from their schema: absent fields only, inside objects, list items and maps, a default's
// own nested defaults, and the value itself kept when nothing was missing (stored objects are shared, never changed).
import { expect } from 'chai';
import { withSchemaDefaults } from '../../api/apiextensions/v1/schema-defaults.js';

const schema = {
  type: 'object',
  properties: {
    mode: { type: 'string', default: 'auto' },
    limits: { type: 'object', default: {}, properties: { cpu: { type: 'integer', default: 2 } } },
    ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } } },
    labels: { type: 'object', additionalProperties: { type: 'object', properties: { on: { default: true } } } },
  },
};

describe('custom object defaults', () => {
  it('fills absent fields in objects, list items and maps, and the defaults inside a default', () => {
    const value = { ports: [{ port: 80 }, { protocol: 'UDP' }], labels: { a: {} } };
    expect(withSchemaDefaults(schema, value)).to.deep.equal({
      mode: 'auto',
      limits: { cpu: 2 },
      ports: [{ port: 80, protocol: 'TCP' }, { protocol: 'UDP' }],
      labels: { a: { on: true } },
    });
    expect(value).to.deep.equal({ ports: [{ port: 80 }, { protocol: 'UDP' }], labels: { a: {} } });
  });

  it('keeps present values, explicit zero values included, and returns the same value when nothing was missing', () => {
    const value = { mode: '', limits: { cpu: 0 }, ports: [], labels: {} };
    expect(withSchemaDefaults(schema, value)).to.equal(value);
  });

  it('gives each object its own copy of a default', () => {
    const one = withSchemaDefaults(schema, {}) as { limits: { cpu: number } };
    one.limits.cpu = 9;
    expect((withSchemaDefaults(schema, {}) as { limits: { cpu: number } }).limits.cpu).to.equal(2);
  });

  it('finds a default however deep it stands, and leaves subtrees without one untouched', () => {
    const deep = {
      type: 'object',
      properties: {
        plain: {
          type: 'object',
          properties: { a: { type: 'string' }, list: { type: 'array', items: { type: 'string' } } },
        },
        groups: {
          type: 'object',
          additionalProperties: {
            type: 'array',
            items: { type: 'object', properties: { weight: { type: 'integer', default: 1 } } },
          },
        },
      },
    };
    const plain = { a: 'x', list: ['y'] };
    const out = withSchemaDefaults(deep, { plain, groups: { g: [{}, { weight: 5 }] } }) as Record<string, unknown>;
    expect(out).to.deep.equal({ plain: { a: 'x', list: ['y'] }, groups: { g: [{ weight: 1 }, { weight: 5 }] } });
    expect(out.plain).to.equal(plain);
    // Asked again (the answer per schema node is remembered), the same result.
    expect(withSchemaDefaults(deep, { groups: { h: [{}] } })).to.deep.equal({ groups: { h: [{ weight: 1 }] } });
  });
});
