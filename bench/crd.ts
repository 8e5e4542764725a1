// The custom-resources scenario (`bench/run.ts crd [quick]`, and part of `make bench`), three figures with the
// issue's targets:
// - creates of a custom object (20 spec fields, 3 CEL rules: crd-objects.ts) against creates of 1 KiB ConfigMaps, two
//   memory-backend gateways loaded at once in rounds (paired-cost.ts), target 60% or more;
// - the time from POSTing a definition to discovery answering its group-version (each definition its own group, so
//   the group-version is new), over a series of definitions created one after another, target p99 <= 1 s;
// - the memory 100 served definitions add: heap after a forced collection and resident size, measured on a gateway
//   started in this process (the heap of another process cannot be collected and read from outside), per definition.
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { startGatehouse } from '../gateway/main.js';
import { CONFIGMAPS, labelledConfigMapJson, setupClient } from './admission-setup.js';
import { benchDefinition, benchObjectJson, BENCH_VERSION } from './crd-objects.js';
import { percentile, send, type Target } from './load.js';
import type { CostSettings } from './metrics-cost.js';
import { formatPairedCost, measurePairedCost, median, type PairedCost } from './paired-cost.js';
import { startGateway } from './processes.js';

export const CRD_CREATE_TARGET = 0.6;
export const SERVE_P99_TARGET_MS = 1_000;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = 'apps.bench.example.com';
const PLURAL = 'benchapps';
const KIND = 'Benchapp';
const LABEL: [string, string] = ['custom objects', 'ConfigMaps'];

export interface CrdSettings {
  cost: CostSettings;
  /** Definitions timed from creation to discovery. */
  served: number;
  /** Definitions whose memory is measured. */
  memoryDefinitions: number;
}

export const FULL_CRD_SETTINGS: CrdSettings = {
  cost: { rounds: 8, sliceMs: 3_000 },
  served: 50,
  memoryDefinitions: 100,
};
export const QUICK_CRD_SETTINGS: CrdSettings = {
  cost: { rounds: 4, sliceMs: 2_000 },
  served: 20,
  memoryDefinitions: 100,
};

export interface CrdResult {
  cost: PairedCost;
  served: { ok: true; ms: number[] } | { ok: false; reason: string };
  memory:
    | {
        ok: true;
        definitions: number;
        heapBeforeMiB: number;
        heapAfterMiB: number;
        rssBeforeMiB: number;
        rssAfterMiB: number;
      }
    | { ok: false; reason: string };
}

const objectPath = `/apis/${GROUP}/${BENCH_VERSION}/namespaces/default/${PLURAL}`;

/** Defines the kind and waits until a dry-run create of its object passes (served, with its rules compiled). */
async function defineBenchKind(target: Target): Promise<void> {
  const client = setupClient(target);
  try {
    await client.post(CRDS, benchDefinition(PLURAL, GROUP));
    const probe = { method: 'POST', path: `${objectPath}?dryRun=All`, body: benchObjectJson(GROUP, KIND, 'probe') };
    if (!(await client.until(probe, (status) => status === 201, 10_000)))
      throw new Error('the custom kind was not served within 10 s');
  } finally {
    client.close();
  }
}

function measureCreateCost(say: (line: string) => void, settings: CostSettings): Promise<PairedCost> {
  return measurePairedCost({
    sides: [{ flags: ['--storage-backend', 'memory'] }, { flags: ['--storage-backend', 'memory'] }],
    ...settings,
    concurrency: 16,
    warmMs: 3_000,
    setup: async (target, side) => {
      if (side === 0) await defineBenchKind(target);
    },
    request: (round, side) => (i) =>
      side === 0
        ? { method: 'POST', path: objectPath, body: benchObjectJson(GROUP, KIND, `r${round + 1}-${i}`) }
        : { method: 'POST', path: CONFIGMAPS, body: labelledConfigMapJson(`r${round + 1}-${i}`) },
    expect: [201],
    say,
    label: LABEL,
  });
}

/** Creates `count` definitions one after another, each timed until GET /apis/<group>/<version> answers 200. */
async function timeUntilServed(target: Target, count: number, prefix: string): Promise<number[]> {
  const agent = new https.Agent({ keepAlive: true, ca: target.ca });
  try {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const group = `${prefix}${i}.bench.example.com`;
      const started = performance.now();
      const created = await send(
        target,
        agent,
        { method: 'POST', path: CRDS, body: JSON.stringify(benchDefinition('items', group)) },
        { expect: [201] },
      );
      if (created.status !== 201)
        throw new Error(`definition ${i}: HTTP ${created.status}: ${created.body.slice(0, 200)}`);
      for (;;) {
        const res = await send(
          target,
          agent,
          { method: 'GET', path: `/apis/${group}/${BENCH_VERSION}` },
          { expect: [200, 404] },
        );
        if (res.status === 200) break;
        if (performance.now() - started > 10_000) throw new Error(`definition ${i} not in discovery within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    agent.destroy();
  }
}

async function measureServed(count: number): Promise<CrdResult['served']> {
  const started = await startGateway(['--storage-backend', 'memory']);
  if (!started.ok) return { ok: false, reason: started.reason };
  const { gateway } = started;
  try {
    return {
      ok: true,
      ms: await timeUntilServed({ url: gateway.url, ca: gateway.ca, token: gateway.token }, count, 'lat'),
    };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  } finally {
    await gateway.stop();
    gateway.removeDataDir();
  }
}

/** A full collection, twice (the second frees what the first's finalizers released). */
function collector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

const MiB = 2 ** 20;

async function measureMemory(count: number): Promise<CrdResult['memory']> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-bench-crd-'));
  const running = await startGatehouse(
    ['--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1', '--storage-backend', 'memory'],
    { log: () => {}, out: () => {} },
  );
  const target: Target = { url: running.url, ca: running.caPem, token: running.adminToken };
  const agent = new https.Agent({ keepAlive: true, ca: target.ca });
  // What a client reads after the kinds changed: discovery and OpenAPI are rebuilt from them on the first request.
  const readDocuments = async () => {
    for (const p of ['/apis', '/openapi/v3', '/openapi/v2']) await send(target, agent, { method: 'GET', path: p });
  };
  try {
    const gc = collector();
    // Warm-up: the code paths a first definition loads (schema compilation, CEL) are not part of each one's cost.
    await timeUntilServed(target, 5, 'warm');
    await readDocuments();
    gc();
    const before = process.memoryUsage();
    await timeUntilServed(target, count, 'mem');
    await readDocuments();
    gc();
    const after = process.memoryUsage();
    return {
      ok: true,
      definitions: count,
      heapBeforeMiB: before.heapUsed / MiB,
      heapAfterMiB: after.heapUsed / MiB,
      rssBeforeMiB: before.rss / MiB,
      rssAfterMiB: after.rss / MiB,
    };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  } finally {
    agent.destroy();
    await running.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function measureCrd(say: (line: string) => void, settings: CrdSettings): Promise<CrdResult> {
  say('custom resources: creates of a custom object and of ConfigMaps, two memory-backend gateways at once');
  const cost = await measureCreateCost(say, settings.cost);
  say(`custom resources: ${settings.served} definitions, each timed until discovery serves it`);
  const served = await measureServed(settings.served);
  say(`custom resources: memory of ${settings.memoryDefinitions} served definitions (gateway in this process)`);
  const memory = await measureMemory(settings.memoryDefinitions);
  return { cost, served, memory };
}

export function formatCrd(result: CrdResult, settings: CrdSettings): string[] {
  const objectBytes = Buffer.byteLength(benchObjectJson(GROUP, KIND, 'r1-0'));
  const lines = formatPairedCost(
    'custom resource creates',
    LABEL,
    result.cost,
    CRD_CREATE_TARGET,
    `memory backend, 16 clients, a ${objectBytes}-byte object of 20 spec fields and 3 CEL rules against 1 KiB ` +
      `ConfigMaps, ${settings.cost.rounds} rounds of ${settings.cost.sliceMs / 1000} s, both gateways loaded at once`,
  );
  if (result.served.ok) {
    const sorted = [...result.served.ms].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    lines.push(
      `definition served (POST to discovery answering its group-version, ${sorted.length} definitions one after another, ` +
        `memory backend): p50 ${median(sorted).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms, max ${sorted[sorted.length - 1].toFixed(0)} ms: ` +
        `${p99 <= SERVE_P99_TARGET_MS ? 'meets' : 'MISSES'} the target of p99 <= ${SERVE_P99_TARGET_MS} ms`,
    );
  } else {
    lines.push('definition served: not measured', `  ${result.served.reason}`);
  }
  const m = result.memory;
  if (m.ok) {
    const perDefinition = (before: number, after: number) =>
      `${(((after - before) * 1024) / m.definitions).toFixed(0)} KiB`;
    lines.push(
      `memory of ${m.definitions} served definitions (gateway in the bench process, memory backend, after a forced ` +
        `collection and a read of discovery and OpenAPI): heap ${m.heapBeforeMiB.toFixed(1)} -> ${m.heapAfterMiB.toFixed(1)} MiB ` +
        `(${perDefinition(m.heapBeforeMiB, m.heapAfterMiB)} per definition), resident ${m.rssBeforeMiB.toFixed(1)} -> ` +
        `${m.rssAfterMiB.toFixed(1)} MiB (${perDefinition(m.rssBeforeMiB, m.rssAfterMiB)} per definition)`,
    );
  } else {
    lines.push('memory of served definitions: not measured', `  ${m.reason}`);
  }
  return lines;
}
