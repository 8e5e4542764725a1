// `make bench`: raw baselines, then every available backend against a gateway in its own process, printed as tables
// with ratios and the targets, and saved under bench/results/<date>-<commit>.txt.
//
//   node --import tsx bench/run.ts [memory] [embedded] [postgres]     (default: all three)
//   node --import tsx bench/run.ts costs                                (only the paired cost scenarios)
//   node --import tsx bench/run.ts aggregation [quick]                  (only the aggregation proxy scenario)
//   node --import tsx bench/run.ts admission [quick]                    (only the admission cost scenarios)
//   node --import tsx bench/run.ts crd [quick]                          (only the custom-resources scenario)
//   node --import tsx bench/run.ts apf [quick]                          (only the priority and fairness scenario)
//
// A backend is only a set of `gatehouse` flags: one that the gateway refuses to start with (not implemented yet, or
// PostgreSQL not installed) is skipped with a printed note. Figures, not tests: the exit code is 0 whatever the
// verdicts, and non-zero only when the bench itself could not run.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  measurePostgres,
  measurePostgresInsert,
  startBareServer,
  startBenchPostgres,
  type PostgresBaselines,
  type PostgresServer,
} from './baselines.js';
import { cleanupAll, installCleanupHandlers } from './cleanup.js';
import { gatewayCommand, gatewayNodeFlags, postgresCpuSeconds, REPO_ROOT, startGateway } from './processes.js';
import { formatBackend, formatBaselines, type BackendReport } from './report.js';
import { freshResultPath } from './results-file.js';
import { runBackendScenarios } from './scenarios.js';
import { formatMetricsCost, FULL_COST_SETTINGS, measureMetricsCost } from './metrics-cost.js';
import { formatPolicyCost, measurePolicyCost, QUICK_COST_SETTINGS } from './policy-cost.js';
import { formatWebhookCost, measureWebhookCost } from './webhook-cost.js';
import { formatAuditCost, measureAuditCost } from './audit-cost.js';
import { formatRateLimitCost, measureRateLimitCost } from './rate-limit-cost.js';
import {
  formatAggregation,
  FULL_AGGREGATION_SETTINGS,
  measureAggregation,
  QUICK_AGGREGATION_SETTINGS,
} from './aggregation.js';
import { formatApf, FULL_APF_SETTINGS, measureApf, QUICK_APF_SETTINGS } from './apf.js';
import { formatApfCost, measureApfCost } from './apf-cost.js';
import { formatCrd, FULL_CRD_SETTINGS, measureCrd, QUICK_CRD_SETTINGS } from './crd.js';

interface Backend {
  name: string;
  needsPostgres: boolean;
  flags(postgresUrl: string): string[];
}

const BACKENDS: Backend[] = [
  { name: 'memory', needsPostgres: false, flags: () => ['--storage-backend=memory'] },
  { name: 'embedded', needsPostgres: false, flags: () => ['--storage-backend=embedded'] },
  { name: 'postgres', needsPostgres: true, flags: (url) => ['--storage-backend=postgres', `--storage-url=${url}`] },
];

const WATCHDOG_MS = 15 * 60_000;

/** Flags as printed: a storage URL may carry a password, so only its scheme and host are shown. */
function printableFlags(flags: string[]): string {
  return flags.map((f) => f.replace(/^(--storage-url=)(\w+:\/\/)[^@]*@/, '$1$2***@')).join(' ');
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** 1,000 watch streams need as many descriptors on each side; a low soft limit would show up as failed watches. */
function openFilesWarning(): string[] {
  try {
    const limits = readFileSync('/proc/self/limits', 'utf8');
    const soft = Number(/^Max open files\s+(\d+)/m.exec(limits)?.[1]);
    return soft < 2_500
      ? [
          `WARNING: the open-files limit is ${soft}; the 1,000-watcher scenario needs about 1,100 (raise it with ulimit -n 4096)`,
        ]
      : [];
  } catch {
    return [];
  }
}

/** Flags such as a profiler's cost the gateway CPU: a run with them is marked, so that nobody quotes it as a figure. */
function nodeFlagsNote(): string[] {
  const flags = gatewayNodeFlags();
  return flags.length
    ? [`NOTE: every gateway ran with node flags ${flags.join(' ')} (BENCH_NODE_FLAGS); its figures include their cost`]
    : [];
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
}

/** Scenarios that run alone when named first, each starting its own gateways. */
const ONLY_SCENARIOS = ['aggregation', 'admission', 'crd', 'apf'];

function chooseBackends(argv: string[]): Backend[] {
  if (argv.length === 0) return BACKENDS;
  // The cost scenarios alone: each starts its own pair of gateways and needs no backend run before it.
  if (argv.length === 1 && argv[0] === 'costs') return [];
  if (ONLY_SCENARIOS.includes(argv[0])) return [];
  const unknown = argv.filter((a) => !BACKENDS.some((b) => b.name === a));
  if (unknown.length)
    throw new Error(`unknown backend(s) ${unknown.join(', ')} (known: ${BACKENDS.map((b) => b.name).join(', ')})`);
  return BACKENDS.filter((b) => argv.includes(b.name));
}

async function main(): Promise<void> {
  installCleanupHandlers(WATCHDOG_MS);
  const argv = process.argv.slice(2);
  const backends = chooseBackends(argv);
  // The aggregation and admission scenarios start their own gateways; `quick` shortens them for a check on a busy
  // machine.
  const only = ONLY_SCENARIOS.includes(argv[0]) ? argv[0] : undefined;
  if (only && argv.slice(1).some((a) => a !== 'quick'))
    throw new Error(`${only} takes only 'quick' after it, not ${argv.slice(1).join(' ')}`);
  const quick = argv[1] === 'quick';
  const aggregationSettings = quick ? QUICK_AGGREGATION_SETTINGS : FULL_AGGREGATION_SETTINGS;
  const admissionSettings = quick ? QUICK_COST_SETTINGS : FULL_COST_SETTINGS;
  const apfSettings = quick ? QUICK_APF_SETTINGS : FULL_APF_SETTINGS;
  const say = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };
  const commit = git(['rev-parse', '--short', 'HEAD']) || 'unknown';
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) ? ' (with uncommitted changes)' : '';
  const date = new Date().toISOString().slice(0, 10);
  const cpus = os.cpus();
  // Each section goes to stdout as soon as it is measured (progress goes to stderr), and the whole to the file.
  const out: string[] = [];
  const emit = (lines: string[]): void => {
    out.push(...lines);
    process.stdout.write(`${lines.join('\n')}\n`);
  };
  emit([
    `Gatehouse bench ${new Date().toISOString()}, commit ${commit}${dirty}`,
    `node ${process.version}, ${cpus.length} x ${cpus[0]?.model ?? 'unknown cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; ` +
      `gateway from ${gatewayCommand().label}; HTTPS on loopback with keep-alive; load generator in this process`,
    // Other work on the machine skews every figure; the load average at both ends says whether it was quiet.
    `load average at start: ${loadAverage()}`,
    ...openFilesWarning(),
    ...nodeFlagsNote(),
    '',
  ]);

  say('baselines: bare node:https / node:http server');
  const bareServer = await startBareServer();
  const bare = bareServer.baselines;
  let postgresServer: PostgresServer | undefined;
  let pg: PostgresBaselines | { skipped: string } = { skipped: 'the postgres backend was not requested' };
  if (backends.some((b) => b.needsPostgres)) {
    say('baselines: starting PostgreSQL');
    const started = await startBenchPostgres();
    if (started.ok) {
      postgresServer = started.server;
      say('baselines: PostgreSQL INSERT and SELECT through the postgres driver');
      pg = await measurePostgres(postgresServer.url);
    } else {
      pg = { skipped: started.reason };
    }
  }
  emit([...formatBaselines(bare, pg), '']);

  try {
    for (const backend of backends) {
      const flags = backend.flags(postgresServer?.url ?? '');
      const report: BackendReport = { name: backend.name, flags: printableFlags(flags), outcome: { skipped: '' } };
      if (backend.needsPostgres && !postgresServer) {
        report.outcome = { skipped: `no PostgreSQL server: ${'skipped' in pg ? pg.skipped : 'unknown'}` };
      } else {
        say(`backend ${backend.name}: starting the gateway`);
        const started = await startGateway(flags);
        if (!started.ok) {
          report.outcome = { skipped: `the gateway refused to start with these flags: ${started.reason}` };
        } else {
          const { gateway } = started;
          try {
            const postgresUrl = backend.needsPostgres && !('skipped' in pg) ? postgresServer?.url : undefined;
            report.outcome = {
              result: await runBackendScenarios(gateway, say, {
                databaseCpuSeconds: backend.needsPostgres ? postgresCpuSeconds : undefined,
                adjacent: {
                  get: bareServer.measureHttpsGet,
                  insert: postgresUrl ? () => measurePostgresInsert(postgresUrl) : undefined,
                },
              }),
            };
          } catch (e) {
            report.outcome = {
              failed: `${(e as Error).message}\n${gateway.output().split('\n').slice(-5).join('\n')}`,
            };
          } finally {
            await gateway.stop();
            gateway.removeDataDir();
          }
        }
      }
      emit([...formatBackend(report, bare, pg), '']);
    }
    if (!only) {
      say('request metrics cost: two memory-backend gateways, metrics on and off');
      emit([...formatMetricsCost(await measureMetricsCost(say)), '']);
      say('audit cost: two memory-backend gateways, audit to a file and none');
      emit([...formatAuditCost(await measureAuditCost(say)), '']);
      say('rate limit cost: two memory-backend gateways, a rate limit checked in Redis and none');
      emit([...formatRateLimitCost(await measureRateLimitCost(say)), '']);
      say('priority and fairness cost: two memory-backend gateways, priority and fairness on and off');
      emit([...formatApfCost(await measureApfCost(say)), '']);
    }
    if (!only || only === 'admission') {
      say('policy cost: two memory-backend gateways, three ValidatingAdmissionPolicies bound and none');
      emit([...formatPolicyCost(await measurePolicyCost(say, admissionSettings), admissionSettings), '']);
      say('webhook cost: two memory-backend gateways, one validating webhook on loopback and none');
      emit([...formatWebhookCost(await measureWebhookCost(say, admissionSettings), admissionSettings), '']);
    }
    if (!only || only === 'aggregation') {
      say('aggregation: an upstream gateway, and a front gateway proxying one group-version to it');
      const aggregation = await measureAggregation(say, aggregationSettings);
      emit([...formatAggregation(aggregation, aggregationSettings), '']);
    }
    if (!only || only === 'crd') {
      const crdSettings = quick ? QUICK_CRD_SETTINGS : FULL_CRD_SETTINGS;
      emit([...formatCrd(await measureCrd(say, crdSettings), crdSettings), '']);
    }
    if (!only || only === 'apf') {
      say('apf: one user flooding lists, another doing gets, with and without priority and fairness');
      emit([...formatApf(await measureApf(say, apfSettings), apfSettings), '']);
    }
  } finally {
    await bareServer.stop();
    await postgresServer?.stop();
  }

  emit([
    `load average at end: ${loadAverage()}`,
    '',
    'Notes: rates are completed requests per second over the whole scenario (bounded at 3 s or 100,000 requests);',
    'latencies are per request, from sending until the last byte arrived. Watch latency runs from sending the write',
    '(an upper bound of its commit) to the line reaching the watcher, and includes this process decrypting every stream;',
    'the first second of events (warm-up) is delivered and counted but timed apart, and each watch scenario starts',
    'after 3 s of quiet, so that the one before (1,000 connections closing) does not overlap it. The bare fan-out baseline is the',
    'same watch scenario against a server that writes each posted object to every open stream and does nothing else.',
    'HTTP/1.1 watch rows open one TLS connection per watcher; HTTP/2 rows multiplex the watchers as client-go does (one',
    "connection until the server's stream limit, 1000 by default), each against the bare fan-out of the same protocol.",
    "The bare GET and the raw INSERT are measured again right after each backend's gets and 16-client creates (this VM",
    'has slow spells); ratios to them use the higher of the two measurements, so that a slow baseline never flatters.',
    'cpu gw/client: the gateway process and the load generator, in percent of one core (the machine has ' +
      `${cpus.length} cores).`,
  ]);
  const text = `${out.join('\n')}\n`;
  const resultsDir = path.join(REPO_ROOT, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const file = freshResultPath(resultsDir, date, commit);
  writeFileSync(file, text);
  process.stdout.write(`\nsaved to ${path.relative(REPO_ROOT, file)}\n`);
}

// An explicit exit: a socket some scenario failed to release must not keep a finished run alive.
main().then(
  async () => {
    await cleanupAll();
    process.exit(0);
  },
  async (e: Error) => {
    process.stderr.write(`bench failed: ${e.stack ?? e.message}\n`);
    await cleanupAll();
    process.exit(1);
  },
);
