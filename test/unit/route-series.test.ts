// The request metrics' own counters and histograms must expose exactly what prom-client's would for the same
// observations, since dashboards cannot tell them apart.
import { expect } from 'chai';
import { Counter, Histogram } from 'prom-client';
import { MetricsRegistry, defaultMetricOptions } from '../../gateway/metrics/registration.js';

const BUCKETS = [0.005, 0.025, 0.05, 0.1, 1, 60];
const LABELS = ['verb', 'resource'];

describe('route series', () => {
  it('expose the same text as prom-client counters and histograms', async () => {
    const ours = new MetricsRegistry();
    const theirs = new MetricsRegistry();
    const help = { help: 'Test.', stability: 'ALPHA' as const, labelNames: LABELS };
    const histogram = ours.routeHistogram({ name: 'test_seconds', buckets: BUCKETS, ...help });
    const counter = ours.routeCounter({ name: 'test_total', ...help });
    const reference = new Histogram({
      name: 'test_seconds',
      help: '[ALPHA] Test.',
      labelNames: LABELS,
      buckets: BUCKETS,
      registers: [theirs.registry],
    });
    const referenceCounter = new Counter({
      name: 'test_total',
      help: '[ALPHA] Test.',
      labelNames: LABELS,
      registers: [theirs.registry],
    });
    const get = { verb: 'GET', resource: 'pods' };
    const list = { verb: 'LIST', resource: 'pods' };
    const observeGet = histogram.child(get);
    const countGet = counter.child(get);
    for (const value of [0.001, 0.005, 0.07, 2, 100]) {
      observeGet(value);
      reference.observe(get, value);
      countGet();
      referenceCounter.inc(get);
    }
    histogram.child(list)(0.3);
    reference.observe(list, 0.3);
    expect(await ours.registry.metrics()).to.equal(await theirs.registry.metrics());
  });

  it('apply the label allow-lists and collapse what they refuse into one series', async () => {
    const options = defaultMetricOptions();
    options.allowListLabels.set('test_total', new Map([['verb', new Set(['GET'])]]));
    const registry = new MetricsRegistry(options);
    const counter = registry.routeCounter({
      name: 'test_total',
      help: 'Test.',
      stability: 'ALPHA',
      labelNames: LABELS,
    });
    counter.child({ verb: 'PUT', resource: 'pods' })();
    counter.child({ verb: 'POST', resource: 'pods' })();
    counter.child({ verb: 'GET', resource: 'pods' })();
    const text = await registry.registry.metrics();
    expect(text).to.include('test_total{verb="unexpected",resource="pods"} 2\n');
    expect(text).to.include('test_total{verb="GET",resource="pods"} 1\n');
  });

  it('are left unserved when disabled', async () => {
    const registry = new MetricsRegistry({ ...defaultMetricOptions(), disabledMetrics: new Set(['test_seconds']) });
    registry.routeHistogram({ name: 'test_seconds', help: 'Test.', stability: 'ALPHA', buckets: BUCKETS }).child({})(1);
    expect(registry.isServed('test_seconds')).to.equal(false);
  });
});
