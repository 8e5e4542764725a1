// Table columns of a custom kind from its version's additionalPrinterColumns, as upstream's CRD table convertor: the
// column's JSONPath is evaluated against the object and its first result becomes the cell, typed by the column's type
// (a date shown as an age, as kubectl shows it); a column that finds nothing is an empty cell. A version without
// columns gets upstream's single Age column.
import { isObject, type KObject } from '../../meta/types.js';
import type { TableColumn } from '../../scheme.js';
import { AGE_DESCRIPTION, ageOf } from '../../common/printers.js';
import type { PrinterColumn } from './crd-types.js';

type Step =
  { field: string } | { index: number } | { all: true } | { filter: string[]; op: '==' | '!='; literal: unknown };

const FILTER = /^\[\?\(@((?:\.[^.=!()\s]+)+)\s*(==|!=)\s*("(?:[^"\\]|\\.)*"|'[^']*'|-?\d+(?:\.\d+)?|true|false)\)\]/;

function literalOf(text: string): unknown {
  if (text.startsWith("'")) return text.slice(1, -1);
  return JSON.parse(text) as unknown;
}

/** The steps of the JSONPath subset definitions use; undefined for anything beyond it. */
export function parsePrinterPath(path: string): Step[] | undefined {
  const steps: Step[] = [];
  let rest = path.trim().replace(/^\{(.*)\}$/, '$1');
  while (rest !== '') {
    let m: RegExpExecArray | null;
    if ((m = /^\.([^.[\]]+)/.exec(rest))) steps.push({ field: m[1] });
    else if ((m = /^\['([^']*)'\]/.exec(rest))) steps.push({ field: m[1] });
    else if ((m = /^\[(\d+)\]/.exec(rest))) steps.push({ index: Number(m[1]) });
    else if ((m = /^\[\*\]/.exec(rest))) steps.push({ all: true });
    else if ((m = FILTER.exec(rest)))
      steps.push({ filter: m[1].slice(1).split('.'), op: m[2] as '==' | '!=', literal: literalOf(m[3]) });
    else return undefined;
    rest = rest.slice(m[0].length);
  }
  return steps;
}

function fieldOf(value: unknown, fields: string[]): unknown {
  let at = value;
  for (const f of fields) at = isObject(at) ? at[f] : undefined;
  return at;
}

/** Every value the path reaches, in order. */
export function evaluatePrinterPath(steps: Step[], value: unknown): unknown[] {
  let current: unknown[] = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of current) {
      if ('field' in step) {
        if (isObject(v) && Object.hasOwn(v, step.field)) next.push(v[step.field]);
      } else if ('index' in step) {
        if (Array.isArray(v) && step.index < v.length) next.push(v[step.index]);
      } else if ('all' in step) {
        if (Array.isArray(v)) next.push(...(v as unknown[]));
        else if (isObject(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const item of v as unknown[]) {
          const equal = fieldOf(item, step.filter) === step.literal;
          if (equal === (step.op === '==')) next.push(item);
        }
      }
    }
    current = next;
  }
  return current;
}

function cellOf(type: string, value: unknown): unknown {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? ageOf(value) : null;
    default:
      // A string column prints any value: strings as they are, anything else as its JSON.
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

const COLUMN_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'date']);

function columnOf(c: PrinterColumn): TableColumn {
  const steps = parsePrinterPath(c.jsonPath);
  return {
    name: c.name,
    type: (COLUMN_TYPES.has(c.type) ? c.type : 'string') as TableColumn['type'],
    format: c.format,
    description: c.description ?? '',
    priority: c.priority,
    cell(obj: KObject) {
      const [first] = steps ? evaluatePrinterPath(steps, obj) : [];
      return first === undefined || first === null ? null : cellOf(c.type, first);
    },
  };
}

const AGE: PrinterColumn = {
  name: 'Age',
  type: 'date',
  description: AGE_DESCRIPTION,
  priority: 0,
  jsonPath: '.metadata.creationTimestamp',
};

/** The columns after Name. */
export function printerColumnsOf(columns: PrinterColumn[]): TableColumn[] {
  return (columns.length > 0 ? columns : [AGE]).map(columnOf);
}
