// docs/flags.md, generated from the flag table: `make docs` writes it, and test/unit/docs-flags.test.ts fails when
// the page in the tree is not what this returns, so the reference cannot drift from the flags the server takes.
import { FLAGS } from './flag-table.js';
import type { FlagSpec } from './flag-primitives.js';

const INTRO = `# Flags

Gatehouse takes kube-apiserver's spellings and defaults where kube-apiserver has the flag. \`npx gatehouse --help\`
prints the same flags with a one-line usage each. This page is generated from the flag table in the code
(\`gateway/server/flag-table.ts\` and the tables it gathers): edit the table, then run \`make docs\`.
`;

/** A table cell: Markdown, on one line, with the column separator escaped. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function defaultCell(spec: FlagSpec): string {
  if (spec.referenceDefault !== undefined) return cell(spec.referenceDefault);
  return spec.default === undefined || spec.default === '' ? '' : cell(`\`${spec.default}\``);
}

function usageCell(spec: FlagSpec): string {
  return cell(spec.reference ?? spec.usage);
}

export function flagsPage(): string {
  const rows = Object.entries(FLAGS)
    .filter(([name]) => name !== 'help')
    .map(([name, spec]) => `| \`--${name}\` | ${defaultCell(spec)} | ${usageCell(spec)} |`);
  return `${INTRO}\n| flag | default | |\n|---|---|---|\n${rows.join('\n')}\n`;
}
