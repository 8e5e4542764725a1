// Static cost estimate: an upper bound on the cost units an evaluation can spend, computed from the checked
// expression before it ever runs (deterministic, independent of load). It follows cel-go's estimator: every node
// costs what the runtime meter charges for it (runtime-cost.ts), comprehensions multiply the cost of their step by the
// size of the range, and functions whose work grows with their input cost by the estimated input size. Sizes come
// from literals where the expression has them, and from what the caller declares of its variables (a schema's
// maxLength, maxItems, maxProperties: DeclaredSize); any other string, list or map is assumed as large as
// `maxValueSize`.
import type { CelNode } from './ast.js';
import { childNodes } from './ast.js';
import {
  AUTHORIZER_CHECK_COST,
  BASE_COST,
  LIST_CREATION_COST,
  LIST_LITERAL_COST,
  MAP_CREATION_COST,
  regexCost,
  traversalCost,
} from './cost-constants.js';
import { internalName } from './internal-names.js';
import { RESOURCE_CHECK_TYPE, PATH_CHECK_TYPE } from './authorizer-library.js';

/** What a declaration (a schema) bounds of a value the expression reads, and of the values it holds. */
export interface DeclaredSize {
  /** Upper bound of the value's size: characters of a string, elements of a list or map; 1 for a scalar. */
  readonly maxSize: number;
  /** The declaration of an object's field, undefined where none is known. */
  field?(name: string): DeclaredSize | undefined;
  /** The declaration of a list's items or a map's values. */
  readonly element?: DeclaredSize;
  /** The declaration of a map's keys; set for maps only (a comprehension over a map ranges over its keys). */
  readonly key?: DeclaredSize;
}

interface Estimate {
  cost: number;
  /** Upper bound of the value's size: characters of a string, elements of a list or map. */
  size: number;
  declared?: DeclaredSize;
}

const CAP = Number.MAX_SAFE_INTEGER;
const add = (...xs: number[]) =>
  Math.min(
    CAP,
    xs.reduce((a, b) => a + b, 0),
  );
const mul = (a: number, b: number) => Math.min(CAP, a * b);

const SCALAR_TYPES = new Set(['bool', 'int', 'uint', 'double', 'null_type', 'type']);
const REGEX_FUNCTIONS = new Set([internalName('matches'), 'find', 'findAll']);
// cel-go compares a prefix or suffix against the receiver: the work grows with the argument only.
const AFFIX_TESTS = new Set(['startsWith', 'endsWith']);
// Functions that walk their string receiver and arguments once.
const STRING_TRAVERSALS = new Set([
  'contains',
  'charAt',
  'replace',
  'url',
  'isURL',
  'quantity',
  'isQuantity',
  ...['lowerAscii', 'upperAscii', 'indexOf', 'lastIndexOf', 'split', 'substring', 'trim'].map(internalName),
]);
// Functions that walk their list receiver once.
const LIST_TRAVERSALS = new Set([
  'sum',
  'min',
  'max',
  'isSorted',
  internalName('indexOf'),
  internalName('lastIndexOf'),
  internalName('join'),
]);

class Estimator {
  /** Comprehension variables in scope, innermost last. */
  private readonly bound: [string, DeclaredSize | undefined][] = [];

  constructor(
    private readonly unknownSize: number,
    private readonly variables: Record<string, DeclaredSize>,
  ) {}

  private declaredVariable(name: string): DeclaredSize | undefined {
    for (let i = this.bound.length - 1; i >= 0; i--) if (this.bound[i][0] === name) return this.bound[i][1];
    return Object.hasOwn(this.variables, name) ? this.variables[name] : undefined;
  }

  private declaredEstimate(cost: number, declared: DeclaredSize | undefined, fallbackSize: number): Estimate {
    return { cost, size: declared?.maxSize ?? fallbackSize, declared };
  }

  estimate(node: CelNode): Estimate {
    const meta = node.meta;
    if (meta.alternate) return this.estimate(meta.alternate);
    if (meta.macro) {
      // has(): one field test; cel.bind(): the bound value and the body.
      const parts = childNodes(node).map((n) => this.estimate(n));
      return { cost: add(BASE_COST, ...parts.map((p) => p.cost)), size: parts.at(-1)?.size ?? 1 };
    }
    const a = node.args;
    const type = node.checkedType?.name ?? 'dyn';
    const scalarSize = SCALAR_TYPES.has(type) ? 1 : this.unknownSize;
    switch (node.op) {
      case 'value':
        return { cost: 0, size: typeof a === 'string' || a instanceof Uint8Array ? a.length : 1 };
      case 'id':
        return this.declaredEstimate(BASE_COST, this.declaredVariable(a as string), scalarSize);
      case 'accuValue':
      case 'accuInc':
        return { cost: 0, size: this.unknownSize };
      case 'accuPush':
        return { cost: this.estimate(a).cost, size: this.unknownSize };
      case '.':
      case '.?': {
        const target = this.estimate(a[0]);
        return this.declaredEstimate(add(BASE_COST, target.cost), target.declared?.field?.(a[1] as string), scalarSize);
      }
      case '[]':
      case '[?]': {
        const [target, index] = [this.estimate(a[0]), this.estimate(a[1])];
        return this.declaredEstimate(add(BASE_COST, target.cost, index.cost), target.declared?.element, scalarSize);
      }
      case 'list': {
        const items = (a as CelNode[]).map((n) => this.estimate(n));
        return { cost: add(LIST_LITERAL_COST, ...items.map((i) => i.cost)), size: items.length };
      }
      case 'map': {
        const items = (a as CelNode[][]).flat().map((n) => this.estimate(n));
        return { cost: add(MAP_CREATION_COST, ...items.map((i) => i.cost)), size: (a as unknown[]).length };
      }
      case '&&':
      case '||': {
        const [l, r] = [this.estimate(a[0]), this.estimate(a[1])];
        return { cost: add(l.cost, r.cost), size: 1 };
      }
      case '?:': {
        const [c, l, r] = [this.estimate(a[0]), this.estimate(a[1]), this.estimate(a[2])];
        return { cost: add(c.cost, Math.max(l.cost, r.cost)), size: Math.max(l.size, r.size) };
      }
      case 'comprehension':
        return this.comprehension(a);
      case 'call':
      case 'rcall':
        return this.call(node);
      default: {
        const parts = childNodes(node).map((n) => this.estimate(n));
        const own = node.op === 'in' && a[1]?.checkedType?.kind === 'list' ? parts[1].size : BASE_COST;
        const size = node.op === '+' && !SCALAR_TYPES.has(type) ? add(...parts.map((p) => p.size)) : scalarSize;
        return { cost: add(own, ...parts.map((p) => p.cost)), size };
      }
    }
  }

  private comprehension(args: { iterable: CelNode; init: CelNode; step: CelNode; iterVarName?: string }): Estimate {
    const range = this.estimate(args.iterable);
    const isListBuilder = args.init.op === 'list';
    const init = isListBuilder ? LIST_CREATION_COST : this.estimate(args.init).cost;
    const declared = range.declared;
    this.bound.push([args.iterVarName ?? '', declared?.key ?? declared?.element]);
    let step: Estimate;
    try {
      step = this.estimate(args.step);
    } finally {
      this.bound.pop();
    }
    return { cost: add(range.cost, init, mul(range.size, step.cost)), size: isListBuilder ? range.size : 1 };
  }

  private call(node: CelNode): Estimate {
    const isMethod = node.op === 'rcall';
    const name: string = node.args[0];
    const receiverNode: CelNode | undefined = isMethod ? node.args[1] : undefined;
    const argNodes: CelNode[] = isMethod ? node.args[2] : node.args[1];
    const receiver = receiverNode ? this.estimate(receiverNode) : undefined;
    const args = argNodes.map((n) => this.estimate(n));
    const inputs = receiver ? [receiver, ...args] : args;
    const childCost = add(...inputs.map((i) => i.cost));
    const type = node.checkedType?.name ?? 'dyn';
    const resultSize = SCALAR_TYPES.has(type) ? 1 : this.unknownSize;

    let own = BASE_COST;
    if (REGEX_FUNCTIONS.has(name) && inputs.length === 2) {
      own = add(BASE_COST, regexCost(inputs[1].size, inputs[0].size));
    } else if (
      name === 'check' &&
      [RESOURCE_CHECK_TYPE, PATH_CHECK_TYPE, 'dyn'].includes(receiverNode?.checkedType?.name ?? '')
    ) {
      own = add(BASE_COST, AUTHORIZER_CHECK_COST);
    } else if (AFFIX_TESTS.has(name) && receiverNode?.checkedType?.kind !== 'list' && args.length === 1) {
      own = add(BASE_COST, traversalCost(args[0].size));
    } else if (STRING_TRAVERSALS.has(name) && receiverNode?.checkedType?.kind !== 'list') {
      own = add(BASE_COST, traversalCost(add(...inputs.map((i) => i.size))));
    } else if (LIST_TRAVERSALS.has(name) && receiver) {
      own = add(BASE_COST, receiver.size);
    }
    return { cost: add(own, childCost), size: resultSize };
  }
}

/** The estimated maximum cost of a checked expression; `variables` bounds the values some variables hold. */
export function estimateCost(
  root: CelNode,
  maxValueSize: number,
  variables: Record<string, DeclaredSize> = {},
): number {
  return new Estimator(maxValueSize, variables).estimate(root).cost;
}
