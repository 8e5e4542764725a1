// The priority-and-fairness scenario the integration test and the bench share: one user floods lists of a few hundred
// objects (a bounded number at once, on loopback) while another does gets one after another, and the getter's
// latencies are sampled idle and under the flood. The flood runs in a worker thread, with its own event loop, so
// that its client work (parsing, TLS) is not charged to the server's loop the way the getter's own client is: both
// phases charge the getter the same.
import { Worker } from 'node:worker_threads';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from './gatehouse.js';
import { eventually } from './api.js';

export const FLOODER = 'flooder';
export const GETTER = 'getter';
const NAMESPACE = 'apf-flood';
const FLOWCONTROL = '/apis/flowcontrol.apiserver.platform.io/v1';
const tokenOf = (user: string): string => `${user}-token-apf-flood-0123456789`;

export interface FloodGatehouse extends TestGatehouse {
  /** Removes the token file's directory too. */
  close(): Promise<void>;
}

/**
 * A gateway over `storage` (its flags) where every user may do everything (the flood is about load, not
 * permissions). With `seed`, it first stores `objects` ConfigMaps to list (a second gateway over the same database
 * finds them there). With `apf`, the flooder's FlowSchema sends it to a level of nominalConcurrencyShares 1 that may
 * not borrow, with few and short queues. Without it, the simple limiter allows 150 reads at once.
 */
export async function startFloodGatehouse(opts: {
  apf: boolean;
  storage: string[];
  seed: boolean;
  objects?: number;
}): Promise<FloodGatehouse> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-apf-flood-'));
  const tokens = path.join(tmp, 'tokens.csv');
  await writeFile(tokens, [FLOODER, GETTER].map((u) => `${tokenOf(u)},${u},${u}-uid,"tenants"`).join('\n'));
  const gh = await startTestGatehouse([
    ...opts.storage,
    '--authorization-mode=AlwaysAllow',
    `--token-auth-file=${tokens}`,
    `--enable-priority-and-fairness=${opts.apf}`,
    // 246 seats, the sum of the bootstrap levels' shares and the flood level's 1: that level gets exactly one seat,
    // so one list at a time, whatever the list estimate (the object counts it reads are refreshed once a minute,
    // and a gateway seeded a moment ago has not counted its objects yet).
    '--max-requests-inflight=150',
    '--max-mutating-requests-inflight=96',
  ]);
  const close = gh.close.bind(gh);
  const result = Object.assign(gh, {
    async close() {
      await close();
      await rm(tmp, { recursive: true, force: true });
    },
  });
  try {
    if (opts.seed) await seedObjects(gh, opts.objects ?? 300);
    if (opts.apf) await configureFloodLevel(gh);
  } catch (e) {
    await result.close();
    throw e;
  }
  return result;
}

async function seedObjects(gh: TestGatehouse, objects: number): Promise<void> {
  const ns = await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NAMESPACE } } });
  expect(ns.status, ns.body).to.equal(201);
  const data = { payload: 'x'.repeat(200) };
  for (let i = 0; i < objects; i += 20)
    await Promise.all(
      Array.from({ length: Math.min(20, objects - i) }, (_, j) =>
        gh.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
          body: { metadata: { name: `cm-${i + j}` }, data },
        }),
      ),
    );
}

/** A FlowSchema sending every request of one user to `level`, one flow per user. */
export function userFlowSchema(name: string, level: string, user: string): object {
  return {
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence: 100,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'User', user: { name: user } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
        },
      ],
    },
  };
}

async function configureFloodLevel(gh: TestGatehouse): Promise<void> {
  const level = await gh.request('POST', `${FLOWCONTROL}/prioritylevelconfigurations`, {
    body: {
      metadata: { name: 'flood' },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 1,
          lendablePercent: 0,
          borrowingLimitPercent: 0,
          limitResponse: { type: 'Queue', queuing: { queues: 8, handSize: 2, queueLengthLimit: 4 } },
        },
      },
    },
  });
  expect(level.status, level.body).to.equal(201);
  const schema = await gh.request('POST', `${FLOWCONTROL}/flowschemas`, {
    body: userFlowSchema('flooder', 'flood', FLOODER),
  });
  expect(schema.status, schema.body).to.equal(201);
  const uid = level.json().metadata.uid as string;
  await eventually('the flooder is classified into the flood level', async () => {
    const res = await gh.request('GET', `/api/v1/namespaces/${NAMESPACE}`, { token: tokenOf(FLOODER) });
    return res.headers['x-kubernetes-pf-prioritylevel-uid'] === uid;
  });
}

export interface FloodCounts {
  ok: number;
  tooMany: number;
  other: number;
}

// Plain JavaScript, run by the worker without a TypeScript loader: `concurrency` loops of lists over one keep-alive
// agent, answers drained without parsing. A 429 is honoured as client-go honours it, by waiting its Retry-After
// before that loop's next list. "pause" parks every loop after its current list (reported once all are parked),
// "resume" restarts them, "stop" ends them and reports the counts.
const FLOOD_WORKER = `
const https = require('node:https');
const { parentPort, workerData } = require('node:worker_threads');
const { url, ca, token, path, concurrency } = workerData;
const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, ca });
const counts = { ok: 0, tooMany: 0, other: 0 };
let state = 'running';
let parked = [];
let first = true;
function park(resume) {
  parked.push(resume);
  if (parked.length < concurrency) return;
  if (state === 'stopping') { agent.destroy(); parentPort.postMessage({ done: counts }); }
  else parentPort.postMessage({ paused: true });
}
function loop() {
  if (state !== 'running') return park(loop);
  const req = https.get(new URL(path, url), { agent, headers: { authorization: 'Bearer ' + token } }, (res) => {
    let wait = 0;
    if (res.statusCode === 200) counts.ok++;
    else if (res.statusCode === 429) { counts.tooMany++; wait = 1000 * Number(res.headers['retry-after'] || 1); }
    else counts.other++;
    if (first) { first = false; parentPort.postMessage({ started: true }); }
    res.resume();
    res.on('end', () => (wait ? setTimeout(loop, wait) : loop()));
  });
  req.on('error', () => { counts.other++; setTimeout(loop, 10); });
}
parentPort.on('message', (m) => {
  if (m === 'resume') { state = 'running'; const p = parked; parked = []; p.forEach((f) => f()); return; }
  const wasParked = parked.length === concurrency;
  state = m === 'stop' ? 'stopping' : 'paused';
  if (wasParked) { parked.pop(); park(loop); }
});
for (let i = 0; i < concurrency; i++) loop();
`;

interface Flood {
  /** Resolves once no list of the flood is in flight. */
  pause(): Promise<void>;
  resume(): void;
  stop(): Promise<FloodCounts>;
}

async function startFlood(gh: TestGatehouse, concurrency: number): Promise<Flood> {
  const worker = new Worker(FLOOD_WORKER, {
    eval: true,
    workerData: {
      url: gh.url,
      ca: gh.ca,
      token: tokenOf(FLOODER),
      // Pages of 250, as a reflector lists: what one list holds the event loop for is one page's work.
      path: `/api/v1/namespaces/${NAMESPACE}/configmaps?limit=250`,
      concurrency,
    },
  });
  const waiting: { paused: (() => void)[]; done: ((counts: FloodCounts) => void)[] } = { paused: [], done: [] };
  await new Promise<void>((resolve, reject) => {
    worker.on('message', (m: { started?: boolean; paused?: boolean; done?: FloodCounts }) => {
      if (m.started) resolve();
      if (m.paused) waiting.paused.splice(0).forEach((f) => f());
      if (m.done) waiting.done.splice(0).forEach((f) => f(m.done as FloodCounts));
    });
    worker.once('error', reject);
  });
  return {
    pause() {
      const paused = new Promise<void>((resolve) => waiting.paused.push(resolve));
      worker.postMessage('pause');
      return paused;
    },
    resume: () => worker.postMessage('resume'),
    async stop() {
      const done = new Promise<FloodCounts>((resolve) => waiting.done.push(resolve));
      worker.postMessage('stop');
      const counts = await done;
      await worker.terminate();
      return counts;
    },
  };
}

export interface FloodSamples {
  /** The getter's latencies (ms, sorted) with the flood paused. */
  idle: number[];
  /** ...and under it. */
  flooded: number[];
  /** What the flooder's lists got. */
  counts: FloodCounts;
}

/**
 * Runs a flood of `concurrency` lists and samples the getter's sequential gets idle and under it, in `rounds`
 * alternating rounds of `perRound` gets each, so that whatever else the machine does weighs on both alike.
 */
export async function floodAndSample(
  gh: TestGatehouse,
  opts: { concurrency: number; rounds: number; perRound: number },
): Promise<FloodSamples> {
  const flood = await startFlood(gh, opts.concurrency);
  const idle: number[] = [];
  const flooded: number[] = [];
  try {
    for (let round = 0; round < opts.rounds; round++) {
      await flood.pause();
      idle.push(...(await sampleGets(gh, opts.perRound, 5)));
      flood.resume();
      // A moment for the flood to fill its queues again: a warm-up of gets, not a sleep.
      flooded.push(...(await sampleGets(gh, opts.perRound, 10)));
    }
  } catch (e) {
    await flood.stop();
    throw e;
  }
  const counts = await flood.stop();
  return { idle: idle.sort((a, b) => a - b), flooded: flooded.sort((a, b) => a - b), counts };
}

/** Latencies (ms, sorted) of `samples` sequential gets by the getter, after `warmup` unrecorded ones. */
async function sampleGets(gh: TestGatehouse, samples: number, warmup = 30): Promise<number[]> {
  const latencies: number[] = [];
  const token = tokenOf(GETTER);
  for (let i = 0; i < warmup + samples; i++) {
    const started = performance.now();
    const res = await gh.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/cm-${i % 50}`, { token });
    const elapsed = performance.now() - started;
    expect(res.status, res.body).to.equal(200);
    if (i >= warmup) latencies.push(elapsed);
  }
  return latencies.sort((a, b) => a - b);
}

export const p = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
