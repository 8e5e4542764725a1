// Printer columns of custom kinds: the JSONPath subset definitions use (fields, quoted keys, indexes, wildcards and
// the equality filters cert-manager-style columns rely on), cells typed by the column, and upstream's Age column
// for a version that declares none.
import { expect } from 'chai';
import { evaluatePrinterPath, parsePrinterPath, printerColumnsOf } from '../../api/apiextensions/v1/printer-columns.js';
import type { KObject } from '../../api/meta/types.js';

const obj: KObject = {
  apiVersion: 'certs.example.com/v1',
  kind: 'Certificate',
  metadata: { name: 'c' },
  spec: { secretName: 's', 'dotted.key': 'd', replicas: 3, ratio: 0.5, ca: true, list: ['a', 'b'] },
  status: {
    conditions: [
      { type: 'Issuing', status: 'False' },
      { type: 'Ready', status: 'True' },
    ],
  },
};

/** The object created 90 s ago, as of now (the file may run long after it was loaded). */
const aged = (): KObject => ({
  ...obj,
  metadata: { ...obj.metadata, creationTimestamp: new Date(Date.now() - 90_000).toISOString() },
});

const at = (path: string): unknown[] => evaluatePrinterPath(parsePrinterPath(path)!, obj);

describe('custom kind printer columns', () => {
  it('evaluates fields, quoted keys, indexes, wildcards and equality filters', () => {
    expect(at('.spec.secretName')).to.deep.equal(['s']);
    expect(at(".spec['dotted.key']")).to.deep.equal(['d']);
    expect(at('.spec.list[1]')).to.deep.equal(['b']);
    expect(at('.spec.list[*]')).to.deep.equal(['a', 'b']);
    expect(at('.status.conditions[?(@.type=="Ready")].status')).to.deep.equal(['True']);
    expect(at(".status.conditions[?(@.type!='Ready')].type")).to.deep.equal(['Issuing']);
    expect(at('.spec.missing')).to.deep.equal([]);
    expect(at('.spec.list[5]')).to.deep.equal([]);
    expect(parsePrinterPath('.spec[?(@.x > 1)]')).to.equal(undefined);
  });

  it('types each cell by its column, leaves a column that finds nothing empty, and shows a date as an age', () => {
    const columns = printerColumnsOf([
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 0 },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
      { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio', priority: 0 },
      { name: 'CA', type: 'boolean', jsonPath: '.spec.ca', priority: 0 },
      { name: 'List', type: 'string', jsonPath: '.spec.list', priority: 0 },
      { name: 'Wrong', type: 'integer', jsonPath: '.spec.secretName', priority: 0 },
      { name: 'Missing', type: 'string', jsonPath: '.spec.nothing', priority: 0 },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', priority: 0 },
    ]);
    const now = aged();
    const cells = columns.map((c) => c.cell(now));
    expect(cells.slice(0, -1)).to.deep.equal(['True', 3, 0.5, true, '["a","b"]', null, null]);
    expect(cells.at(-1)).to.match(/^9\ds$/);
    expect(columns[1]).to.include({ name: 'Replicas', type: 'integer', priority: 1 });
  });

  it('gives a version without columns the Age column', () => {
    const [age, ...rest] = printerColumnsOf([]);
    expect(rest).to.deep.equal([]);
    expect(age).to.include({ name: 'Age', type: 'date', priority: 0 });
    expect(age.cell(aged())).to.match(/^9\ds$/);
  });
});
