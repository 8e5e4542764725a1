// docs/flags.md is generated from the flag table: the page in the tree must be what the table gives today, and the
// page must name every flag --help does.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { flagsPage } from '../../gateway/server/flags-page.js';
import { usage } from '../../gateway/server/options.js';

const DOC = new URL('../../docs/flags.md', import.meta.url);

describe('docs/flags.md', () => {
  it('is the page the flag table generates (run `make docs` after changing a flag)', () => {
    expect(readFileSync(DOC, 'utf8')).to.equal(flagsPage());
  });

  it('lists every flag --help prints, and only those', () => {
    const inHelp = [...usage().matchAll(/^\s+--([a-z0-9-]+)/gm)].map((m) => m[1]).filter((f) => f !== 'help');
    const onPage = [...flagsPage().matchAll(/^\| `--([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    expect(onPage).to.deep.equal(inHelp);
  });
});
