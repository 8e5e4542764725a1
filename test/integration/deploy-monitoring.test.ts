// The dashboard and the alert rules of deploy/ read metrics that a Gatehouse shaped like the compose replicas exports:
// PostgreSQL storage, RBAC, the tokens the compose init service writes, scraped with Prometheus's token. A metric
// renamed or never registered would otherwise show as an empty panel or an alert that can never fire.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { prometheusConfig, promqlExpressions, recordedNames, runComposeInit } from '../helpers/deploy-files.js';
import { exportedTypes, familyOf, metricNames } from '../helpers/promql-metrics.js';

// Made by Prometheus itself for every target, not scraped.
const SYNTHETIC = new Set(['up']);

describe('deploy/ monitoring against a running Gatehouse', function () {
  this.timeout(120_000);
  let dir: string;
  let pg: TestPostgres;
  let gh: TestGatehouse;
  let scrapeToken: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-deploy-monitoring-'));
    runComposeInit(dir);
    const credentials = prometheusConfig().scrape_configs[0].authorization!.credentials_file!;
    scrapeToken = await readFile(path.join(dir, path.basename(credentials)), 'utf8');
    // The audit metrics are registered only when audit is on, as kube-apiserver's.
    await writeFile(path.join(dir, 'audit.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n');
    pg = await startPostgres({ fast: true });
    gh = await startTestGatehouse([
      '--storage-backend=postgres',
      `--storage-url=${pg.url}`,
      '--authorization-mode=RBAC',
      `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
      `--audit-policy-file=${path.join(dir, 'audit.yaml')}`,
      `--audit-log-path=${path.join(dir, 'audit.log')}`,
    ]);
  });
  after(async () => {
    await gh?.close();
    await pg?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("lets Prometheus's token read both metrics paths and nothing else", async () => {
    for (const { metrics_path: metricsPath } of prometheusConfig().scrape_configs) {
      const res = await gh.request('GET', metricsPath!, { token: scrapeToken });
      expect(res.status, `${metricsPath}: ${res.body}`).to.equal(200);
    }
    const secrets = await gh.request('GET', '/api/v1/namespaces/default/secrets', { token: scrapeToken });
    expect(secrets.status).to.equal(403);
  });

  it('reads in every rule and panel only metrics the server exports', async () => {
    const scraped = await Promise.all(
      prometheusConfig().scrape_configs.map(async ({ metrics_path: metricsPath }) => {
        const res = await gh.request('GET', metricsPath!, { token: scrapeToken });
        return res.body;
      }),
    );
    const types = exportedTypes(scraped.join('\n'));
    expect(familyOf('apiserver_request_duration_seconds_bucket', types)).to.equal('apiserver_request_duration_seconds');
    const recorded = recordedNames();
    const missing = new Map<string, string[]>();
    for (const { where, expr } of promqlExpressions()) {
      for (const name of metricNames(expr)) {
        if (recorded.has(name) || SYNTHETIC.has(name) || familyOf(name, types)) continue;
        missing.set(name, [...(missing.get(name) ?? []), where]);
      }
    }
    const report = [...missing].map(([name, where]) => `${name} (${where.join('; ')})`);
    expect(report, 'metrics the deploy files read that the server does not export').to.deep.equal([]);
  });
});
