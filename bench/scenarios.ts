// The scenarios run against one gateway process: creates at 1/16/64 clients, gets (over HTTP/1.1 connections, then
// as streams of one HTTP/2 connection), a 10,000-object list (paged and full), watch delivery with 1 and 1,000
// watchers (1,000 both on their own connections and multiplexed over HTTP/2), then its peak memory. Each scenario is
// bounded in count and time, and a failing one is recorded as such so that the others still run.
import { performance } from 'node:perf_hooks';
import { runHttp2Gets } from './http2-load.js';
import {
  createAgent,
  describeFailure,
  measure,
  percentile,
  runLoad,
  send,
  type Measured,
  type Target,
} from './load.js';
import { configMapJson, namespaceJson } from './objects.js';
import { residentMemory, type Gateway } from './processes.js';
import { runWatch, type WatchResult, type WatchTransport } from './watch-load.js';

export const CREATE_CONCURRENCY = [1, 16, 64] as const;
const SCENARIO_MS = 3_000;
const MAX_REQUESTS = 100_000;
export const LIST_OBJECTS = 10_000;
export const LIST_OBJECT_BYTES = 2048;
export const PAGE_SIZE = 500;
const SEED_PREFIX = 'l-';
/**
 * Walks through the whole list in pages; the first WARM_UP_WALKS of them let the heap and the allocator size up
 * (seen settling after the second walk on one machine and after the third on another: 3 of 6, so that half the
 * walks are judged).
 */
export const PAGED_WALKS = 6;
export const WARM_UP_WALKS = 3;
export const WATCH_RATE = 20;
export interface WatchRun {
  watchers: number;
  transport: WatchTransport;
}
export const WATCH_RUNS: readonly WatchRun[] = [
  { watchers: 1, transport: 'http1' },
  { watchers: 1000, transport: 'http1' },
  { watchers: 1000, transport: 'http2' },
];
/** Rate and durations of every watch scenario, the bare server's fan-out baseline included. */
export const WATCH_SCENARIO = {
  eventsPerSecond: WATCH_RATE,
  warmupMs: 1_000,
  durationMs: 5_000,
  drainMs: 10_000,
} as const;

export interface ListResult {
  ok: boolean;
  problems: string[];
  items: number;
  fullP50: number;
  fullRuns: number;
  pageP50: number;
  pageP99: number;
  pages: number;
  /** Growth of the gateway's resident memory while serving the paged lists. */
  pagedRssGrowthMiB: number;
  /** Its growth after the first WARM_UP_WALKS walks: what the list target's "no more than a page" is judged on. */
  growthAfterWarmUpMiB: number;
  /** Resident memory at the start of the paged walks and after each one, to show where it levels off. */
  rssAfterWalksMiB: number[];
  /** The average size of a page's body. */
  pageMiB: number;
  seedPerSecond: number;
}

export interface BackendResult {
  creates: Map<number, Measured>;
  gets: Measured;
  /** The same gets over HTTP/2 (kubectl's protocol), 16 streams on one connection. */
  getsHttp2: Measured;
  /** The judged baselines measured again right after the figures they judge (see BackendContext). */
  adjacent: { get?: Measured; insert?: Measured };
  list: ListResult | { ok: false; problems: string[] };
  watch: Array<{ run: WatchRun; result: WatchResult | { failed: string } }>;
  peakMiB: number;
}

async function createNamespaces(target: Target, names: string[]): Promise<void> {
  const agent = createAgent(target, 1);
  try {
    for (const name of names) {
      const res = await send(
        target,
        agent,
        { method: 'POST', path: '/api/v1/namespaces', body: namespaceJson(name) },
        { expect: [201] },
      );
      if (res.status !== 201) throw new Error(`creating namespace ${name}: ${describeFailure(res.status, res.body)}`);
    }
  } finally {
    agent.destroy();
  }
}

function createRequest(namespace: string, prefix: string, bytes: number) {
  return (i: number) => ({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/configmaps`,
    body: configMapJson(`${prefix}${i}`, bytes),
  });
}

type Listed = { metadata?: { name?: string } };

/**
 * The list's objects that the seeding created: controllers put objects of their own in every namespace (the root CA
 * ConfigMap), which the lists carry too and the counts leave out.
 */
function seededCount(items: Listed[]): number {
  return items.filter((item) => item.metadata?.name?.startsWith(SEED_PREFIX)).length;
}

async function runList(gateway: Gateway, target: Target): Promise<ListResult> {
  const problems: string[] = [];
  const ns = 'bench-list';
  const seed = await runLoad(target, {
    concurrency: 32,
    maxRequests: LIST_OBJECTS,
    maxMs: 120_000,
    expect: [201],
    request: createRequest(ns, SEED_PREFIX, LIST_OBJECT_BYTES),
  });
  if (seed.errors > 0 || seed.ok < LIST_OBJECTS)
    problems.push(
      `seeded ${seed.ok}/${LIST_OBJECTS} objects (${seed.errorSamples.join('; ') || 'time bound reached'})`,
    );
  const agent = createAgent(target, 1);
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const pageTimes: number[] = [];
  const fullTimes: number[] = [];
  let items = 0;
  let pagedRssGrowthMiB = NaN;
  let growthAfterWarmUpMiB = NaN;
  const rssAfterWalksMiB: number[] = [];
  let pageBytes = 0;
  try {
    // Paged first, so that the full lists' garbage does not blur the memory growth of the paged ones.
    const rss0 = residentMemory(gateway.pid).currentMiB;
    rssAfterWalksMiB.push(rss0);
    let rssMax = rss0;
    // Resident memory once the first walks are done (rssAfterWalksMiB[WARM_UP_WALKS]), and its peak over the later
    // ones: the heap and the allocator size themselves during the first walks, so what grows after them is what grows
    // with the pages.
    let rssMaxAfterWarmUp = NaN;
    const pagedUntil = performance.now() + 10_000;
    for (let walk = 0; walk < PAGED_WALKS && performance.now() < pagedUntil; walk++) {
      let token = '';
      let walked = 0;
      do {
        const res = await send(
          target,
          agent,
          { method: 'GET', path: `${base}?limit=${PAGE_SIZE}${token ? `&continue=${encodeURIComponent(token)}` : ''}` },
          { keepBody: true },
        );
        if (res.status !== 200) throw new Error(`page: ${describeFailure(res.status, res.body)}`);
        pageTimes.push(res.ms);
        pageBytes += Buffer.byteLength(res.body);
        const page = JSON.parse(res.body) as { items: Listed[]; metadata: { continue?: string } };
        walked += seededCount(page.items);
        token = page.metadata.continue ?? '';
        const rss = residentMemory(gateway.pid).currentMiB;
        rssMax = Math.max(rssMax, rss);
        if (walk >= WARM_UP_WALKS)
          rssMaxAfterWarmUp = Number.isNaN(rssMaxAfterWarmUp) ? rss : Math.max(rssMaxAfterWarmUp, rss);
      } while (token && pageTimes.length < 1_000);
      if (walked !== seed.ok) problems.push(`a paged walk returned ${walked} items, expected ${seed.ok}`);
      rssAfterWalksMiB.push(residentMemory(gateway.pid).currentMiB);
    }
    pagedRssGrowthMiB = rssMax - rss0;
    // NaN when fewer walks than the warm-up ran (the time bound), which the report judges a failure.
    growthAfterWarmUpMiB = Math.max(0, rssMaxAfterWarmUp - (rssAfterWalksMiB[WARM_UP_WALKS] ?? NaN));
    const fullUntil = performance.now() + 6_000;
    for (let run = 0; run < 10 && performance.now() < fullUntil; run++) {
      const res = await send(target, agent, { method: 'GET', path: base }, { keepBody: run === 0, timeoutMs: 30_000 });
      if (res.status !== 200) throw new Error(`full list: ${describeFailure(res.status, res.body)}`);
      fullTimes.push(res.ms);
      if (run === 0) items = seededCount((JSON.parse(res.body) as { items: Listed[] }).items);
    }
    if (items !== seed.ok) problems.push(`the full list returned ${items} items, expected ${seed.ok}`);
  } catch (e) {
    problems.push((e as Error).message);
  } finally {
    agent.destroy();
  }
  const sortedPages = Float64Array.from(pageTimes).sort();
  return {
    ok: problems.length === 0,
    problems,
    items,
    fullP50: percentile(Float64Array.from(fullTimes).sort(), 50),
    fullRuns: fullTimes.length,
    pageP50: percentile(sortedPages, 50),
    pageP99: percentile(sortedPages, 99),
    pages: pageTimes.length,
    pagedRssGrowthMiB,
    growthAfterWarmUpMiB,
    rssAfterWalksMiB,
    pageMiB: pageTimes.length > 0 ? pageBytes / pageTimes.length / 2 ** 20 : NaN,
    seedPerSecond: seed.perSecond,
  };
}

/** What the backend's run measures besides the gateway. */
export interface BackendContext {
  /** The cumulative CPU of the backend's database, when it has one, noted for the creates. */
  databaseCpuSeconds?: () => number;
  /**
   * The judged baselines, measured again right after the figures they judge (gets; creates at 16 clients): the
   * report judges against the higher of these and the start of the run's, so that no verdict rests on a baseline
   * caught in one of this VM's slow spells.
   */
  adjacent: { get?: () => Promise<Measured> | undefined; insert?: () => Promise<Measured> };
}

export async function runBackendScenarios(
  gateway: Gateway,
  say: (line: string) => void,
  context: BackendContext,
): Promise<BackendResult> {
  const { databaseCpuSeconds } = context;
  const adjacent: BackendResult['adjacent'] = {};
  const target: Target = { url: gateway.url, ca: gateway.ca, token: gateway.token };
  const watchNamespaces = WATCH_RUNS.map((run) => `bench-watch-${run.watchers}-${run.transport}`);
  await createNamespaces(target, ['bench', 'bench-list', ...watchNamespaces]);

  say('  warm-up');
  await runLoad(target, {
    concurrency: 16,
    maxRequests: 2_000,
    maxMs: 1_000,
    expect: [201],
    request: createRequest('bench', 'warm-', 1024),
  });

  const creates = new Map<number, Measured>();
  for (const concurrency of CREATE_CONCURRENCY) {
    say(`  creates, ${concurrency} client(s)`);
    creates.set(
      concurrency,
      await measure(
        gateway.pid,
        () =>
          runLoad(target, {
            concurrency,
            maxRequests: MAX_REQUESTS,
            maxMs: SCENARIO_MS,
            expect: [201],
            request: createRequest('bench', `c${concurrency}-`, 1024),
          }),
        databaseCpuSeconds,
      ),
    );
    if (concurrency === 16 && context.adjacent.insert) {
      say('  raw INSERT baseline again');
      adjacent.insert = await context.adjacent.insert();
    }
  }

  // Gets read back the objects the 16-client run created; a missing one would show up as a 404 error.
  const created16 = creates.get(16);
  const pool = created16?.ok ? Math.max(1, created16.result.ok) : 1;
  const readBack = (i: number) => ({
    method: 'GET',
    path: `/api/v1/namespaces/bench/configmaps/c16-${(i * 7919) % pool}`,
  });
  say('  gets, 16 clients');
  const gets = await measure(gateway.pid, () =>
    runLoad(target, { concurrency: 16, maxRequests: MAX_REQUESTS, maxMs: SCENARIO_MS, request: readBack }),
  );
  const bareGet = context.adjacent.get?.();
  if (bareGet) {
    say('  bare https GET baseline again');
    adjacent.get = await bareGet;
  }
  // Over HTTP/2 after the judged baseline, so that the bare GET measured again stays right next to the gets it judges.
  say('  gets, 16 streams over one HTTP/2 connection');
  const getsHttp2 = await measure(gateway.pid, () =>
    runHttp2Gets(target, { concurrency: 16, maxRequests: MAX_REQUESTS, maxMs: SCENARIO_MS, request: readBack }),
  );

  say(`  list: seeding ${LIST_OBJECTS} objects of ${LIST_OBJECT_BYTES / 1024} KiB, then paged and full lists`);
  let list: BackendResult['list'];
  try {
    list = await runList(gateway, target);
  } catch (e) {
    list = { ok: false, problems: [(e as Error).message] };
  }

  const watch: BackendResult['watch'] = [];
  for (const [i, run] of WATCH_RUNS.entries()) {
    say(`  watch, ${run.watchers} watcher(s) over ${run.transport} at ${WATCH_RATE} events/s`);
    try {
      watch.push({ run, result: await runWatch(target, { ...WATCH_SCENARIO, ...run, namespace: watchNamespaces[i] }) });
    } catch (e) {
      watch.push({ run, result: { failed: (e as Error).message } });
    }
  }

  return { creates, gets, getsHttp2, adjacent, list, watch, peakMiB: residentMemory(gateway.pid).peakMiB };
}
