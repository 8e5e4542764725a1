// Label selectors with kube-apiserver's grammar and error wording (field selectors: field-selectors.ts). Parse errors
// become 400 BadRequest; selectors held inside objects (spec.selector) report FieldErrors instead so they join the
// 422 of validation.
import { errors } from './errors.js';
import { fieldErrorMessage, fieldErrors, FieldPath, type FieldError } from './field-errors.js';
import { isObject, ownValue } from './types.js';
import { labelValue, qualifiedName, validateLabels } from './validation.js';

export type LabelOperator = 'exists' | '!' | '=' | '==' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and deduplicated; one value for the exact-match and gt/lt operators, none for exists/!. */
  readonly values: readonly string[];
}

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  /** True when the selector has no requirements (it then matches everything, or nothing for `nothing()`). */
  readonly empty: boolean;
  matches(labels: Record<string, string> | undefined): boolean;
  toString(): string;
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'exists':
      return has;
    case '!':
      return !has;
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(value as string);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(value as string);
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value as string)) return false;
      const have = BigInt(value as string);
      const want = BigInt(r.values[0]);
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  constructor(reqs: LabelRequirement[]) {
    this.requirements = [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels: Record<string, string> | undefined): boolean {
    const l = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, l));
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

const NOTHING: LabelSelector = {
  requirements: [],
  empty: true,
  matches: () => false,
  toString: () => '',
};

/** Matches every label set (the empty selector `{}` or an absent `labelSelector` query parameter). */
export function everything(): LabelSelector {
  return new RequirementsSelector([]);
}

/** Matches nothing: what an absent (null) selector field in an object means. */
export function nothing(): LabelSelector {
  return NOTHING;
}

/** `key=value` for every entry; keys and values are assumed valid (they come from a validated object). */
export function labelSelectorFromSet(set: Record<string, string> | undefined): LabelSelector {
  return new RequirementsSelector(Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=', values: [v] })));
}

/** NewRequirement's checks; paths are relative (`values[0][key]`) as the string parser reports them. */
function requirementErrors(key: string, op: LabelOperator, values: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const at = FieldPath.root('values');
  switch (op) {
    case 'in':
    case 'notin':
      if (values.length === 0)
        errs.push(fieldErrors.invalid(at, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        errs.push(fieldErrors.invalid(at, values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        errs.push(fieldErrors.invalid(at, values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1)
        errs.push(fieldErrors.invalid(at, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v))
          errs.push(fieldErrors.invalid(at.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      return errs;
  }
  values.forEach((v, i) => {
    for (const msg of labelValue(v)) errs.push(fieldErrors.invalid(at.index(i).key(key), v, msg));
  });
  return errs;
}

function parseError(message: string): never {
  throw errors.badRequest(message);
}

type TokenKind = 'id' | 'in' | 'notin' | '=' | '==' | '!=' | '!' | '(' | ')' | ',' | '>' | '<' | 'end';
interface Token {
  kind: TokenKind;
  text: string;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

/** Identifiers run until whitespace or one of `=!(),><`; `in` and `notin` are keywords. */
function lexSelector(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (WHITESPACE.has(c)) {
      i++;
    } else if (SPECIAL.has(c)) {
      const two = text.slice(i, i + 2);
      const kind = (two === '==' || two === '!=' ? two : c) as TokenKind;
      tokens.push({ kind, text: kind });
      i += kind.length;
    } else {
      let j = i;
      while (j < text.length && !WHITESPACE.has(text[j]) && !SPECIAL.has(text[j])) j++;
      const word = text.slice(i, j);
      tokens.push({ kind: word === 'in' || word === 'notin' ? word : 'id', text: word });
      i = j;
    }
  }
  tokens.push({ kind: 'end', text: '' });
  return tokens;
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class LabelParser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  /** In and notin read as identifiers where a key or value is expected, so `in in (in)` is legal. */
  private peek(asValue = true): Token {
    const t = this.tokens[this.pos];
    return asValue && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'id', text: t.text } : t;
  }
  private next(asValue = true): Token {
    const t = this.peek(asValue);
    this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'end') return reqs;
      if (t.kind !== 'id' && t.kind !== '!')
        parseError(`found '${t.text}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.requirement());
      } catch (e) {
        parseError(`unable to parse requirement: ${(e as Error).message}`);
      }
      const after = this.next();
      if (after.kind === 'end') return reqs;
      if (after.kind !== ',') parseError(`found '${after.text}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.kind !== 'id' && following.kind !== '!')
        parseError(`found '${following.text}', expected: identifier after ','`);
    }
  }

  private requirement(): LabelRequirement {
    let t = this.next();
    let negated = false;
    if (t.kind === '!') {
      negated = true;
      t = this.next();
    }
    if (t.kind !== 'id') throw new Error(`found '${t.text}', expected: identifier`);
    const key = t.text;
    const keyErrs = qualifiedName(key);
    if (keyErrs.length > 0) throw new Error(`<nil>: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const la = this.peek().kind;
    if (negated || la === 'end' || la === ',') return this.build(key, negated ? '!' : 'exists', []);
    const op = this.operator();
    const values = op === 'in' || op === 'notin' ? this.valueSet() : [this.exactValue()];
    return this.build(key, op, values);
  }

  private build(key: string, operator: LabelOperator, raw: string[]): LabelRequirement {
    const values = [...new Set(raw)].sort();
    const errs = requirementErrors(key, operator, values);
    if (errs.length > 0) throw new Error(errs.map(fieldErrorMessage).join(', '));
    return { key, operator, values };
  }

  private operator(): LabelOperator {
    const t = this.next(false);
    switch (t.kind) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        return t.kind;
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        throw new Error(`found '${t.text}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private exactValue(): string {
    const la = this.peek();
    if (la.kind === 'end' || la.kind === ',') return '';
    const t = this.next();
    if (t.kind === 'id') return t.text;
    throw new Error(`found '${t.text}', expected: identifier`);
  }

  /** `(a,b)`; empty members are the empty value, so `()` and `(,a)` both include "". */
  private valueSet(): string[] {
    const open = this.next();
    if (open.kind !== '(') throw new Error(`found '${open.text}', expected: '('`);
    const la = this.peek();
    if (la.kind === ')') {
      this.next();
      return [''];
    }
    if (la.kind !== 'id' && la.kind !== ',') throw new Error(`found '${la.text}', expected: ',', ')' or identifier`);
    const values: string[] = [];
    let expectValue = true;
    for (;;) {
      const t = this.next();
      if (t.kind === ')') {
        if (expectValue) values.push('');
        return values;
      }
      if (t.kind === ',') {
        if (expectValue) values.push('');
        expectValue = true;
      } else if (t.kind === 'id' && expectValue) {
        values.push(t.text);
        expectValue = false;
      } else if (t.kind === 'id') {
        throw new Error(`found '${t.text}', expected: ',' or ')'`);
      } else {
        throw new Error(
          t.kind === 'end' && !expectValue
            ? `found '', expected: ',' or ')'`
            : `found '${t.text}', expected: ',', or identifier`,
        );
      }
    }
  }
}

/** Parses the `labelSelector` query parameter; throws StatusError 400. An empty string selects everything. */
export function parseLabelSelector(text: string): LabelSelector {
  return new RequirementsSelector(new LabelParser(lexSelector(text)).parse());
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] | null }> | null;
}

const EXPRESSION_OPERATORS: Record<string, LabelOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a metav1.LabelSelector held in an object. `{}` selects everything; null or undefined selects
 * nothing (pass `{ absent: 'everything' }` for kinds where a missing selector means all). Errors use `path`.
 */
export function labelSelectorFromObject(
  sel: unknown,
  opts: { path?: FieldPath; absent?: 'nothing' | 'everything' } = {},
): { selector: LabelSelector; errors: FieldError[] } {
  const at = opts.path ?? FieldPath.root('selector');
  if (sel === undefined || sel === null)
    return { selector: opts.absent === 'everything' ? everything() : nothing(), errors: [] };
  if (!isObject(sel)) return { selector: nothing(), errors: [fieldErrors.typeInvalid(at, sel, 'must be an object')] };
  const errs: FieldError[] = [];
  const reqs: LabelRequirement[] = [];
  const matchLabels = sel.matchLabels;
  errs.push(...validateLabels(matchLabels, at.child('matchLabels')));
  if (isObject(matchLabels)) {
    for (const [key, v] of Object.entries(matchLabels))
      if (typeof v === 'string') reqs.push({ key, operator: '=', values: [v] });
  }
  const exprs = sel.matchExpressions;
  if (exprs !== undefined && exprs !== null && !Array.isArray(exprs)) {
    errs.push(fieldErrors.typeInvalid(at.child('matchExpressions'), exprs, 'must be an array'));
  } else {
    (exprs ?? []).forEach((expr: unknown, i: number) => {
      const p = at.child('matchExpressions').index(i);
      if (!isObject(expr)) {
        errs.push(fieldErrors.typeInvalid(p, expr, 'must be an object'));
        return;
      }
      const before = errs.length;
      const key = typeof expr.key === 'string' ? expr.key : '';
      for (const msg of qualifiedName(key)) errs.push(fieldErrors.invalid(p.child('key'), key, msg));
      const values = Array.isArray(expr.values) ? expr.values : [];
      const op = typeof expr.operator === 'string' ? ownValue(EXPRESSION_OPERATORS, expr.operator) : undefined;
      if (!op) {
        errs.push(fieldErrors.invalid(p.child('operator'), expr.operator, 'not a valid selector operator'));
      } else if ((op === 'in' || op === 'notin') && values.length === 0) {
        errs.push(fieldErrors.required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if ((op === 'exists' || op === '!') && values.length > 0) {
        errs.push(
          fieldErrors.forbidden(
            p.child('values'),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      }
      values.forEach((v: unknown, j: number) => {
        if (typeof v !== 'string')
          errs.push(fieldErrors.typeInvalid(p.child('values').index(j), v, 'must be a string'));
        else for (const msg of labelValue(v)) errs.push(fieldErrors.invalid(p.child('values').index(j), v, msg));
      });
      if (op && errs.length === before)
        reqs.push({ key, operator: op, values: [...new Set(values as string[])].sort() });
    });
  }
  return { selector: errs.length > 0 ? nothing() : new RequirementsSelector(reqs), errors: errs };
}
