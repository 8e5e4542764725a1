// Reading Prometheus text expositions in tests: samples are keyed by their label set in sorted order, so a test names
// the labels it expects in any order, whatever order the server writes them in.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from './gatehouse.js';

/** The key of a label set, as `seriesOf` keys its samples: `{a="1",b="2"}` sorted by name, '' for no labels. */
export function labels(values: Record<string, string>): string {
  const pairs = Object.entries(values)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}="${v}"`);
  return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
}

/** Each sample of exactly `name` (a histogram's `_bucket`, `_sum`, `_count` are names of their own) → its value. */
export function seriesOf(text: string, name: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const at = line.lastIndexOf(' ');
    const values = Object.fromEntries(
      [...line.slice(name.length, at).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    series.set(labels(values), Number(line.slice(at + 1)));
  }
  return series;
}

/** GET of an exposition (/metrics by default) as the test's admin, which must answer 200. */
export async function scrape(gh: TestGatehouse, path = '/metrics'): Promise<string> {
  const res = await gh.request('GET', path);
  expect(res.status, res.body).to.equal(200);
  return res.body;
}

/** A memory-backend gateway started as the bench's build that records no request metrics (GATEHOUSE_REQUEST_METRICS=off). */
export async function startWithoutRequestMetrics(): Promise<TestGatehouse> {
  const saved = process.env.GATEHOUSE_REQUEST_METRICS;
  process.env.GATEHOUSE_REQUEST_METRICS = 'off';
  try {
    return await startTestGatehouse(['--storage-backend', 'memory']);
  } finally {
    if (saved === undefined) delete process.env.GATEHOUSE_REQUEST_METRICS;
    else process.env.GATEHOUSE_REQUEST_METRICS = saved;
  }
}
