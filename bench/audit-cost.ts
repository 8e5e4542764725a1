// What auditing costs a write: creates against two memory-backend gateways, one auditing every request at Metadata
// into a log file (the default blocking mode, JSON lines) and one without audit, loaded at the same time in rounds
// (paired-cost.ts). Metadata is the level a production policy gives most requests; a create writes two events
// (RequestReceived, ResponseComplete). The target: creates with audit at 85% or more of creates without.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trackDir } from './cleanup.js';
import { configMapJson } from './objects.js';
import { FULL_COST_SETTINGS, type CostSettings } from './metrics-cost.js';
import { formatPairedCost, measurePairedCost, type PairedCost } from './paired-cost.js';

export const AUDIT_COST_TARGET = 0.85;
const LABEL: [string, string] = ['with audit', 'without'];
const POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n';

const describe = (s: CostSettings) =>
  `memory backend, creates of 1 KiB ConfigMaps, 16 clients, Metadata policy into a file, ${s.rounds} ` +
  `rounds of ${s.sliceMs / 1000} s, both gateways loaded at once`;

export async function measureAuditCost(
  say: (line: string) => void,
  settings = FULL_COST_SETTINGS,
): Promise<PairedCost> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-audit-'));
  const removeDir = trackDir(dir);
  try {
    writeFileSync(path.join(dir, 'policy.yaml'), POLICY);
    const audit = ['--audit-policy-file', path.join(dir, 'policy.yaml'), '--audit-log-path', path.join(dir, 'a.log')];
    return await measurePairedCost({
      sides: [{ flags: ['--storage-backend', 'memory', ...audit] }, { flags: ['--storage-backend', 'memory'] }],
      ...settings,
      concurrency: 16,
      warmMs: 3_000,
      // Every slice creates names of its own: a name taken would answer 409.
      request: (round, side) => (i) => ({
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        body: configMapJson(`r${round + 1}-s${side}-${i}`, 1024),
      }),
      expect: [201],
      say,
      label: LABEL,
    });
  } finally {
    removeDir();
  }
}

export function formatAuditCost(cost: PairedCost, settings = FULL_COST_SETTINGS): string[] {
  return formatPairedCost('audit cost', LABEL, cost, AUDIT_COST_TARGET, describe(settings));
}
