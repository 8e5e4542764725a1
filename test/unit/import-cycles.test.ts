// No runtime import cycle. Under ESM a module in a cycle can run before the module it imports has finished, and reads
// an export that is still in its temporal dead zone: a crash that depends on which file happened to be loaded first.
//
// dpdm builds the graph. Its own way of leaving types out (transform: TypeScript's emit) costs most of the run and
// judges by usage, while the runtime follows verbatimModuleSyntax: only a whole `import type` / `export type`
// declaration is erased (`import { type A } from` still loads the module). So the graph is read as written, and an
// edge is dropped only when every declaration behind it is type-only. Dynamic imports count: hiding a cycle behind
// one still runs a module half-initialised.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseCircular, parseDependencyTree, type DependencyTree } from 'dpdm';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// Every source folder rather than only the server's entry points, so that a module no entry reaches yet (a new
// controller, a bench scenario) is checked before it is wired in.
const ENTRIES = [
  'api/**/*.ts',
  'backends/**/*.ts',
  'policies/**/*.ts',
  'gateway/**/*.ts',
  'bench/**/*.ts',
  'test/helpers/*.ts',
];

// A top-level `import … from` / `export … from` (the code is formatted: declarations start their line).
const FROM_DECLARATION =
  /^(import|export)(\s+type)?\s+(\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+[\w$]+))?)\s+from\s+['"]([^'"]+)['"]/gm;

/** Specifiers of `file` that only type-only declarations name, so that nothing loads them at run time. */
function typeOnlySpecifiers(file: string): Set<string> {
  const typeOnly = new Set<string>();
  const runtime = new Set<string>();
  for (const m of readFileSync(file, 'utf8').matchAll(FROM_DECLARATION)) (m[2] ? typeOnly : runtime).add(m[4]);
  for (const specifier of runtime) typeOnly.delete(specifier);
  return typeOnly;
}

function withoutTypeOnlyEdges(tree: DependencyTree): DependencyTree {
  const runtime: DependencyTree = {};
  for (const [file, dependencies] of Object.entries(tree)) {
    if (dependencies === null || dependencies.length === 0) {
      runtime[file] = dependencies;
      continue;
    }
    const erased = typeOnlySpecifiers(`${ROOT}${file}`);
    runtime[file] = dependencies.filter((d) => !erased.has(d.request));
  }
  return runtime;
}

describe('import graph', () => {
  it('has no runtime import cycle', async function () {
    this.timeout(60_000);
    const tree = await parseDependencyTree(ENTRIES, {
      cwd: ROOT,
      context: ROOT,
      tsconfig: `${ROOT}tsconfig.json`,
      exclude: /node_modules|\.test\.ts$/,
    });
    const cycles = parseCircular(withoutTypeOnlyEdges(tree)).map((cycle) => [...cycle, cycle[0]].join(' -> '));
    expect(cycles, 'runtime import cycles').to.deep.equal([]);
  });

  it('reads a type-only declaration as no runtime edge, and a mixed one as an edge', () => {
    const sample = [
      "import type { A } from './types-only.js';",
      "import { type B } from './still-loaded.js';",
      "import type { C } from './both.js';",
      "import {\n  d,\n  type D,\n} from './both.js';",
      "export type { E } from './re-exported-types.js';",
      "export * from './everything.js';",
    ].join('\n');
    const found = [...sample.matchAll(FROM_DECLARATION)].map((m) => `${m[2] ? 'type' : 'value'} ${m[4]}`);
    expect(found).to.deep.equal([
      'type ./types-only.js',
      'value ./still-loaded.js',
      'type ./both.js',
      'value ./both.js',
      'type ./re-exported-types.js',
      'value ./everything.js',
    ]);
  });
});
