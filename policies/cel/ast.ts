// A typed view of the library's parsed expression tree, and a walker shared by the rewrites (renamed calls, escaped
// property names), the static cost estimate and the runtime cost instrumentation.

export interface CelType {
  readonly name: string;
  readonly kind: string;
  readonly valueType?: CelType;
}

export interface CelNodeMeta {
  alternate?: CelNode;
  macro?: Record<string, unknown>;
  evaluate: CelNodeEvaluate;
}

export type CelNodeEvaluate = (this: CelNode, ev: unknown, ast: CelNode, ctx: unknown) => unknown;

export interface CelNode {
  op: string;
  // The shape of args depends on op (see childNodes).
  args: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  pos: number;
  readonly meta: CelNodeMeta;
  checkedType?: CelType;
  evaluate: CelNodeEvaluate;
}

export function isNode(value: unknown): value is CelNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'meta' in value && 'args' in value;
}

/** The sub-expressions a node evaluates, in source order; a macro's replacement counts as its only child. */
export function childNodes(node: CelNode): CelNode[] {
  const meta = node.meta;
  if (meta.alternate) return [meta.alternate];
  if (meta.macro) {
    const found: CelNode[] = [];
    // A macro object may point back at its own call node (cel.bind keeps `ast`); that is not a child.
    for (const value of Object.values(meta.macro)) {
      if (isNode(value) && value !== node) found.push(value);
      else if (Array.isArray(value)) found.push(...value.filter((v) => isNode(v) && v !== node));
    }
    return found;
  }
  const a = node.args;
  switch (node.op) {
    case 'value':
    case 'id':
    case 'accuValue':
    case 'accuInc':
      return [];
    case '.':
    case '.?':
      return [a[0]];
    case '!_':
    case '-_':
    case 'accuPush':
      return [a];
    case 'call':
      return [...a[1]];
    case 'rcall':
      return [a[1], ...a[2]];
    case 'map':
      return (a as CelNode[][]).flat();
    case 'comprehension':
      return [a.iterable, a.init, a.step];
    default:
      return Array.isArray(a) ? a.filter(isNode) : [];
  }
}

/** Visits every node once, parents before children. */
export function walk(root: CelNode, visit: (node: CelNode) => void): void {
  const seen = new Set<CelNode>();
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    visit(node);
    stack.push(...childNodes(node).reverse());
  }
}
