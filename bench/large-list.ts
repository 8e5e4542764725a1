// A large list in each encoding against a concurrent heartbeat: the longest stall of the event loop while it is
// encoded and sent, its time, and the peak resident memory of ten concurrent ones. The gateway runs in this process
// (as in the tests), so the heartbeat sees every block the gateway's encoding causes.
//   npx tsx bench/large-list.ts [objects=50000]
import https from 'node:https';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startTestGatehouse } from '../test/helpers/gatehouse.js';

const COUNT = Number(process.argv[2] ?? 50_000);
const FORMATS: Record<string, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  table: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  protobuf: 'application/vnd.kubernetes.protobuf',
};

const gh = await startTestGatehouse(['--storage-backend=memory']);
const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ca: gh.ca });
const url = new URL(gh.url);

function get(path: string, accept: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        agent,
        headers: { authorization: `Bearer ${gh.adminToken}`, accept },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function post(path: string, body: unknown): Promise<number> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${gh.adminToken}`,
          'content-type': 'application/json',
          'content-length': payload.length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const path = '/api/v1/namespaces/default/configmaps';
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: 64 }, async () => {
    while (next < COUNT) {
      const i = next++;
      const status = await post(path, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, labels: { app: 'bench', shard: String(i % 10) } },
        data: { key: `value-${i}`, other: 'x'.repeat(64) },
      });
      if (status !== 201) throw new Error(`create ${i}: ${status}`);
    }
  }),
);
console.log(`filled ${COUNT} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

/** Runs `work` with a 5 ms heartbeat, giving the longest gap between beats and the loop delay histogram's max. */
async function measure<T>(
  work: () => Promise<T>,
): Promise<{ result: T; ms: number; maxGapMs: number; maxDelayMs: number; peakRssMiB: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let last = performance.now();
  let maxGap = 0;
  let peakRss = process.memoryUsage.rss();
  const beat = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 5);
  const t0 = performance.now();
  const result = await work();
  const ms = performance.now() - t0;
  clearInterval(beat);
  histogram.disable();
  return { result, ms, maxGapMs: maxGap, maxDelayMs: histogram.max / 1e6, peakRssMiB: peakRss / 2 ** 20 };
}

const fmt = (n: number) => n.toFixed(0).padStart(6);
for (const [name, accept] of Object.entries(FORMATS)) {
  await get(path, accept); // warm: the shared per-object encodings exist after the first full read in some formats
  const one = await measure(() => get(path, accept));
  const ten = await measure(() => Promise.all(Array.from({ length: 10 }, () => get(path, accept))));
  console.log(
    `${name.padEnd(9)} one: ${fmt(one.ms)} ms, max block ${fmt(one.maxGapMs)} ms, ${(one.result.bytes / 2 ** 20).toFixed(1)} MiB, status ${one.result.status}` +
      ` | ten: ${fmt(ten.ms)} ms, max block ${fmt(ten.maxGapMs)} ms, peak RSS ${fmt(ten.peakRssMiB)} MiB`,
  );
}
agent.destroy();
await gh.close();
