// docs/flags.md is the reference page of the flags: it must name every flag the server takes, and no other.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { usage } from '../../gateway/server/options.js';

const DOC = new URL('../../docs/flags.md', import.meta.url);

function flagsIn(rows: Iterable<RegExpMatchArray>): string[] {
  return [...rows].flatMap((m) => [...m[1].matchAll(/--([a-z0-9-]+)/g)].map((f) => f[1]));
}

describe('docs/flags.md', () => {
  it('lists exactly the flags the server takes', () => {
    const inCode = new Set([...usage().matchAll(/^\s+--([a-z0-9-]+)/gm)].map((m) => m[1]));
    inCode.delete('help');
    // A table row starts with one or more flag names in backticks.
    const inDoc = new Set(flagsIn(readFileSync(DOC, 'utf8').matchAll(/^\| ((?:`--[a-z0-9-]+`(?:, )?)+) \|/gm)));
    expect(
      [...inCode].filter((f) => !inDoc.has(f)),
      'flags missing from docs/flags.md',
    ).to.deep.equal([]);
    expect(
      [...inDoc].filter((f) => !inCode.has(f)),
      'flags docs/flags.md names that the server does not take',
    ).to.deep.equal([]);
  });
});
