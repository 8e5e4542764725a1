// Rewrites applied to a parsed expression before type checking: calls of the functions we re-implement go to their
// internal names (internal-names.ts), and, when the field asks for it, escaped property names are unescaped.
import type { CelNode } from './ast.js';
import { walk } from './ast.js';
import { internalName, REROUTED_FUNCTIONS } from './internal-names.js';

export function rerouteFunctions(root: CelNode): void {
  walk(root, (node) => {
    if ((node.op === 'call' || node.op === 'rcall') && REROUTED_FUNCTIONS.has(node.args[0])) {
      node.args[0] = internalName(node.args[0]);
    }
  });
}

/** Literal regular expressions of matches/find/findAll, with the node that holds each (for error positions). */
export function literalPatterns(root: CelNode): { pattern: string; node: CelNode }[] {
  const found: { pattern: string; node: CelNode }[] = [];
  const names = new Set([internalName('matches'), 'find', 'findAll']);
  walk(root, (node) => {
    if ((node.op !== 'call' && node.op !== 'rcall') || !names.has(node.args[0])) return;
    const args: CelNode[] = node.op === 'rcall' ? node.args[2] : node.args[1].slice(1);
    const pattern = args[0];
    if (pattern?.op === 'value' && typeof pattern.args === 'string')
      found.push({ pattern: pattern.args, node: pattern });
  });
  return found;
}
