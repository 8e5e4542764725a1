// The documentation's map must be true to the tree: every repository path the docs name (a file such as
// `gateway/registry/store.ts`, or a folder written with its slash, `gateway/filters/`) exists. A move that forgets the
// docs fails here rather than in a reader's hands.
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOP_LEVEL = ['api', 'backends', 'bench', 'bin', 'deploy', 'docs', 'gateway', 'policies', 'test'];

// A path starts at a top-level folder (not after a `/` or a word character: `/api/v1/...` is a URL, not a file)
// and ends with a file extension or a slash. `{a,b}.ts` names several files.
const PATH = new RegExp(`(?<![\\w/.-])((?:${TOP_LEVEL.join('|')})/(?:[\\w.{},-]+/)*(?:[\\w.{},-]+\\.[a-z]+\\b|))`, 'g');

function expand(path: string): string[] {
  const brace = /\{([^}]*)\}/.exec(path);
  if (!brace) return [path];
  return brace[1]
    .split(',')
    .flatMap((part) => expand(path.slice(0, brace.index) + part + path.slice(brace.index + brace[0].length)));
}

export function pathsNamedIn(text: string): string[] {
  return [...text.matchAll(PATH)].flatMap((m) => expand(m[1]));
}

const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(`${ROOT}docs`)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('paths named in the documentation', () => {
  for (const doc of DOCUMENTS) {
    it(`${doc} names only paths that exist`, () => {
      const missing = pathsNamedIn(readFileSync(`${ROOT}${doc}`, 'utf8')).filter((p) => !existsSync(`${ROOT}${p}`));
      expect([...new Set(missing)], `paths ${doc} names that are not in the tree`).to.deep.equal([]);
    });
  }

  it('recognises files, folders and brace lists, and leaves URLs alone', () => {
    expect(
      pathsNamedIn(
        'see `gateway/registry/store.ts`, gateway/filters/ and gateway/handlers/{get,list}.ts; GET /api/v1/watch/x',
      ),
    ).to.deep.equal([
      'gateway/registry/store.ts',
      'gateway/filters/',
      'gateway/handlers/get.ts',
      'gateway/handlers/list.ts',
    ]);
  });
});
