// Field selectors (`metadata.name=x,status.phase!=Active`) as kube-apiserver parses them, with its escaping rules.
import { errors } from './errors.js';

function parseError(message: string): never {
  throw errors.badRequest(message);
}

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  /** A field missing from `fields` counts as the empty string, as kube's fields.Set does. */
  matches(fields: Record<string, string>): boolean;
  toString(): string;
}

function escapeFieldValue(v: string): string {
  return v.replace(/[\\,=]/g, (c) => `\\${c}`);
}

class TermsSelector implements FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  constructor(reqs: FieldRequirement[]) {
    this.requirements = reqs;
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(fields: Record<string, string>): boolean {
    return this.requirements.every((r) => {
      const have = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] : '';
      return r.operator === '!=' ? have !== r.value : have === r.value;
    });
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

/** Splits on commas not escaped by a backslash, keeping escapes in place for the value unescaping. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

/** The first operator occurrence splits the term; keys cannot hold escapes, values can. */
function splitTerm(term: string): [string, FieldOperator, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term[i] === '\\') {
      i++;
      continue;
    }
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function unescapeFieldValue(v: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i];
    if (c === '\\') {
      const n = v[i + 1];
      if (n !== '\\' && n !== ',' && n !== '=')
        parseError(`invalid field selector: invalid escape sequence: ${v.slice(i, i + 2)}`);
      out += n;
      i++;
    } else if (c === ',' || c === '=') {
      parseError(`invalid field selector: unescaped character in value: ${c}`);
    } else {
      out += c;
    }
  }
  return out;
}

/** Parses the `fieldSelector` query parameter; throws StatusError 400. An empty string selects everything. */
export function parseFieldSelector(text: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  for (const term of splitTerms(text)) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (!parts) parseError(`invalid selector: '${text}'; can't understand '${term}'`);
    const [field, operator, raw] = parts;
    reqs.push({ field: field.trim(), operator, value: unescapeFieldValue(raw) });
  }
  return new TermsSelector(reqs);
}

/** Keys the selector uses that the kind does not support, in order of appearance, without repeats. */
export function unsupportedFieldKeys(sel: FieldSelector, allowed: readonly string[]): string[] {
  const ok = new Set(allowed);
  return [...new Set(sel.requirements.map((r) => r.field).filter((f) => !ok.has(f)))];
}

/** Throws the 400 kube-apiserver answers for the first unsupported field label. */
export function assertSupportedFields(sel: FieldSelector, allowed: readonly string[]): void {
  const bad = unsupportedFieldKeys(sel, allowed);
  if (bad.length > 0) parseError(`field label not supported: ${bad[0]}`);
}
