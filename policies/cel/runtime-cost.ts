// The runtime cost budget: every evaluated node of a compiled expression charges the meter of the evaluation in
// progress, and library functions whose work grows with their input (string traversals, regular expressions,
// authorization checks) charge extra. Evaluation is synchronous (custom functions must not be async, see
// CEL-NOTES.md), so the meter of the running evaluation can live in a module variable; nested evaluations save and
// restore it.
import type { CelNode, CelNodeEvaluate } from './ast.js';
import { walk } from './ast.js';
import { BASE_COST, LIST_CREATION_COST, LIST_LITERAL_COST, MAP_CREATION_COST } from './cost-constants.js';
import { CostLimitError } from './errors.js';

export class CostMeter {
  spent = 0;
  /** Sticky: `||`, `&&` and `exists` may swallow an error of one branch, but never a spent budget. */
  exceeded = false;

  constructor(readonly budget: number) {}

  charge(units: number): void {
    this.spent += units;
    if (this.spent > this.budget) {
      this.exceeded = true;
      throw new CostLimitError();
    }
  }
}

let active: CostMeter | undefined;

/** Charges the evaluation in progress (a no-op outside an evaluation, for example in tests of a helper). */
export function charge(units: number): void {
  active?.charge(units);
}

/** Runs `fn` with a fresh meter; throws CostLimitError if the budget ran out, even if the result was computed. */
export function runMetered<T>(budget: number, fn: () => T): { value: T; cost: number } {
  const meter = new CostMeter(budget);
  const previous = active;
  active = meter;
  try {
    const value = fn();
    if (meter.exceeded) throw new CostLimitError();
    return { value, cost: meter.spent };
  } catch (error) {
    if (meter.exceeded) throw new CostLimitError();
    throw error;
  } finally {
    active = previous;
  }
}

function nodeCost(node: CelNode, macroLists: Set<CelNode>): number {
  switch (node.op) {
    case 'value':
    case 'accuValue':
    case 'accuInc':
    case 'accuPush':
    case 'comprehension':
    case '?:':
    case '||':
    case '&&':
      return 0;
    case 'list':
      return macroLists.has(node) ? LIST_CREATION_COST : LIST_LITERAL_COST;
    case 'map':
      return MAP_CREATION_COST;
    default:
      return BASE_COST;
  }
}

/** Wraps the evaluation of every node of a checked expression so that it charges the active meter. */
export function instrumentRuntimeCost(root: CelNode): void {
  const macroLists = new Set<CelNode>();
  walk(root, (node) => {
    if (node.op === 'comprehension' && node.args.init?.op === 'list') macroLists.add(node.args.init);
  });
  walk(root, (node) => {
    const meta = node.meta;
    const alternate = meta.alternate;
    const macro = meta.macro as { evaluate: CelNodeEvaluate } | undefined;
    // The library resolves alternates and macros on the first evaluation; do the same here, once.
    const inner: CelNodeEvaluate = alternate
      ? (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx)
      : macro
        ? (ev, _ast, ctx) => macro.evaluate.call(macro as unknown as CelNode, ev, macro as unknown as CelNode, ctx)
        : meta.evaluate;
    const cost = alternate ? 0 : nodeCost(node, macroLists);
    node.evaluate =
      cost === 0
        ? inner
        : function meteredEvaluate(this: CelNode, ev, ast, ctx) {
            active?.charge(cost);
            return inner.call(this, ev, ast, ctx);
          };
  });
}
