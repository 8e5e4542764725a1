// The registration layer and the metrics flags: stability annotations, deprecation and hiding, disabled metrics,
// label allow-lists, and the start errors of bad flag values.
import { expect } from 'chai';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { MetricsRegistry, defaultMetricOptions, type MetricOptions } from '../../gateway/metrics/registration.js';
import { parseOptions } from '../../gateway/server/options.js';
import { optionsError } from '../helpers/options.js';

const options = (overrides: Partial<MetricOptions>): MetricOptions => ({ ...defaultMetricOptions(), ...overrides });

function deprecatedIn(registry: MetricsRegistry, version: string): string {
  const name = `test_deprecated_${version.replace('.', '_')}_total`;
  registry.counter({ name, help: 'A test counter.', stability: 'ALPHA', deprecatedVersion: version });
  return name;
}

describe('metrics registration', () => {
  it('annotates help with the stability level, and a deprecated metric with its release first', async () => {
    const registry = new MetricsRegistry();
    registry.counter({ name: 'test_stable_total', help: 'Stable.', stability: 'STABLE' });
    registry.gauge({ name: 'test_old', help: 'Old.', stability: 'BETA', deprecatedVersion: '1.31' });
    const text = await registry.registry.metrics();
    expect(text).to.include('# HELP test_stable_total [STABLE] Stable.\n');
    expect(text).to.include('# HELP test_old (Deprecated from 1.31) [BETA] Old.\n');
  });

  it('fills a counter given a collect at each scrape, with the totals it reads then', async () => {
    const registry = new MetricsRegistry();
    const totals = new Map([['a', 3]]);
    registry.counter({ name: 'test_kept_total', help: 'Kept.', stability: 'ALPHA', labelNames: ['key'] }, function () {
      this.reset();
      for (const [key, total] of totals) this.inc({ key }, total);
    });
    expect(await registry.registry.metrics()).to.include('test_kept_total{key="a"} 3\n');
    totals.set('a', 5).set('b', 0);
    const text = await registry.registry.metrics();
    expect(text).to.include('test_kept_total{key="a"} 5\n');
    expect(text).to.include('test_kept_total{key="b"} 0\n');
  });

  it('hides metrics deprecated three releases ago or earlier; --show-hidden-metrics-for-version=1.31 shows those of 1.29 only', () => {
    const plain = new MetricsRegistry();
    const names = ['1.30', '1.29', '1.28'].map((v) => deprecatedIn(plain, v));
    expect(names.map((n) => plain.isServed(n))).to.deep.equal([true, false, false]);

    const shown = new MetricsRegistry(options({ showHiddenMetricsForVersion: '1.31' }));
    expect(['1.30', '1.29', '1.28'].map((v) => shown.isServed(deprecatedIn(shown, v)))).to.deep.equal([
      true,
      true,
      false,
    ]);
  });

  it('leaves disabled metrics unregistered, even hidden ones shown, and reports the names that matched nothing', () => {
    const registry = new MetricsRegistry(
      options({ disabledMetrics: new Set(['test_off_total', 'no_such_metric']), showHiddenMetricsForVersion: '1.31' }),
    );
    const off = registry.counter({
      name: 'test_off_total',
      help: 'Off.',
      stability: 'ALPHA',
      deprecatedVersion: '1.29',
    });
    off.inc();
    expect(registry.isServed('test_off_total')).to.equal(false);
    expect(registry.unknownDisabledMetrics()).to.deep.equal(['no_such_metric']);
  });

  it('records a label value outside its allow-list as "unexpected", through labels() as well', async () => {
    const registry = new MetricsRegistry(
      options({ allowListLabels: new Map([['test_codes_total', new Map([['code', new Set(['200', '404'])]])]]) }),
    );
    const counter = registry.counter({
      name: 'test_codes_total',
      help: 'Codes.',
      stability: 'ALPHA',
      labelNames: ['code', 'verb'],
    });
    counter.inc({ code: '200', verb: 'GET' });
    counter.inc({ code: '418', verb: 'GET' });
    counter.labels('503', 'PUT').inc();
    const values = (await counter.get()).values.map((v) => `${v.labels.code}/${v.labels.verb}=${v.value}`);
    expect(values.sort()).to.deep.equal(['200/GET=1', 'unexpected/GET=1', 'unexpected/PUT=1']);
  });

  it('keeps two registries apart', async () => {
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    a.counter({ name: 'test_shared_total', help: 'Shared.', stability: 'ALPHA' }).inc();
    b.counter({ name: 'test_shared_total', help: 'Shared.', stability: 'ALPHA' });
    expect(await a.registry.getSingleMetricAsString('test_shared_total')).to.match(/test_shared_total 1$/m);
    expect(await b.registry.getSingleMetricAsString('test_shared_total')).to.match(/test_shared_total 0$/m);
  });
});

describe('metrics flags', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-metrics-flags-'));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('parses --disabled-metrics lists and --allow-metric-labels entries, which override the manifest', async () => {
    await writeFile(
      path.join(dir, 'allow.yaml'),
      '"apiserver_request_total,code": "200,404"\n"apiserver_request_total,verb": "GET"\n',
    );
    const o = parseOptions(
      [
        '--disabled-metrics=a_total,b_total',
        '--disabled-metrics',
        'c_total',
        '--allow-metric-labels-manifest=allow.yaml',
        "--allow-metric-labels=apiserver_request_total,code='200,201'",
        '--show-hidden-metrics-for-version=1.31',
      ],
      dir,
    );
    expect([...o.metrics.disabledMetrics]).to.deep.equal(['a_total', 'b_total', 'c_total']);
    expect(o.metrics.showHiddenMetricsForVersion).to.equal('1.31');
    const labels = o.metrics.allowListLabels.get('apiserver_request_total');
    expect([...(labels?.get('code') ?? [])]).to.deep.equal(['200', '201']);
    expect([...(labels?.get('verb') ?? [])]).to.deep.equal(['GET']);
  });

  it('stops the start on bad values, naming the flag', async () => {
    expect(optionsError(['--show-hidden-metrics-for-version=1.30']).message).to.equal(
      "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
    );
    expect(optionsError(["--allow-metric-labels=no-comma='a,b'"]).message).to.include('--allow-metric-labels');
    expect(optionsError(['--allow-metric-labels=novalue']).message).to.include('--allow-metric-labels');
    expect(optionsError(['--allow-metric-labels-manifest=/nonexistent/allow.yaml']).message).to.include(
      '--allow-metric-labels-manifest',
    );
    await writeFile(path.join(dir, 'list.yaml'), '- a\n- b\n');
    expect(optionsError([`--allow-metric-labels-manifest=${path.join(dir, 'list.yaml')}`]).message).to.include(
      '--allow-metric-labels-manifest',
    );
  });
});
