// The monitoring half of deploy/: Prometheus scraping both compose replicas as the identity the compose file makes
// for it, Grafana finding the dashboard and the data source its panels name, and rules promtool accepts. Nothing
// here runs a container (none can be pulled on CI machines); the metric names the files read are checked against a
// running server by test/integration/deploy-monitoring.test.ts.
import { expect } from 'chai';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { parseTokenFile } from '../../gateway/authn/token-file.js';
import { CA_CERT_FILE } from '../../gateway/server/certs.js';
import { parseOptions, STORAGE_URL_ENV } from '../../gateway/server/options.js';
import {
  compose,
  dashboard,
  prometheusConfig,
  promqlExpressions,
  readDeploy,
  recordedNames,
  ROOT,
  ruleGroups,
  runComposeInit,
  type ComposeService,
} from '../helpers/deploy-files.js';
import { metricNames } from '../helpers/promql-metrics.js';

const services = compose().services;
const replicas = Object.entries(services).filter(([, s]) => s.build?.dockerfile === 'deploy/Dockerfile');
const optionsOf = (service: ComposeService) =>
  parseOptions(service.command!, '/', { [STORAGE_URL_ENV]: 'postgres://gatehouse@postgres:5432/gatehouse' });
const replicaOptions = optionsOf(replicas[0][1]);

/** host path (relative to deploy/) or volume name → the container path it is mounted at, for one service. */
function mounts(service: ComposeService): Map<string, string> {
  return new Map((service.volumes ?? []).map((v) => v.split(':') as [string, string]));
}

/** The host file (under deploy/) that a service sees at `containerPath`, through a bind mount of a file or folder. */
function hostFileAt(service: ComposeService, containerPath: string): string | undefined {
  for (const [source, target] of mounts(service)) {
    if (!source.startsWith('./')) continue;
    if (containerPath === target) return path.join(ROOT, 'deploy', source);
    if (containerPath.startsWith(`${target}/`))
      return path.join(ROOT, 'deploy', source, containerPath.slice(target.length + 1));
  }
  return undefined;
}

describe('PromQL metric name extraction', () => {
  it('keeps metric names and drops functions, aggregations, keywords, labels, strings, ranges and numbers', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, verb) (rate(apiserver_request_duration_seconds_bucket{verb!~"WATCH|CONNECT",instance=~"$instance"}[$__rate_interval])))',
      ),
    ).to.deep.equal(['apiserver_request_duration_seconds_bucket']);
    expect(
      metricNames(
        'sum(a_total) by (x) / on (x) group_left (y) b_info > bool 0.5 and ignoring (z) c offset 1h30m unless d @ start()',
      ),
    ).to.deep.equal(['a_total', 'b_info', 'c', 'd']);
    expect(
      metricNames('label_replace(up, "dst", "$1", "instance", "(.*):.*") or vector(1e3) # comment naming not_a_metric'),
    ).to.deep.equal(['up']);
    expect(
      metricNames('max_over_time(rate(x[5m])[1h:5m]) + scalar(y) - count_values("v", z) * job:rec:rate5m'),
    ).to.deep.equal(['x', 'y', 'z', 'job:rec:rate5m']);
    expect(metricNames('sum without (instance) (m{label="a}b", other=\'{\'})')).to.deep.equal(['m']);
  });

  it('refuses a call of something PromQL does not have, rather than take it for a metric', () => {
    expect(() => metricNames('histogram_quantil(0.9, x)')).to.throw(/histogram_quantil\( is not a PromQL function/);
    expect(() => metricNames('rate(x{a="b"[5m])')).to.throw(/unbalanced/);
  });
});

describe('deploy/prometheus', () => {
  const prometheus = services.prometheus;
  const config = prometheusConfig();
  const configFile = prometheus.command!.find((a) => a.startsWith('--config.file='))!.slice('--config.file='.length);

  it('is the configuration and the rules the compose Prometheus is started with', () => {
    expect(hostFileAt(prometheus, configFile)).to.equal(path.join(ROOT, 'deploy/prometheus/prometheus.yml'));
    // Rule files resolve against the configuration file's folder.
    const rules = config.rule_files.map((f) => hostFileAt(prometheus, path.posix.join(path.dirname(configFile), f)));
    expect(rules).to.deep.equal([path.join(ROOT, 'deploy/prometheus/alerts.yaml')]);
  });

  it("scrapes /metrics and /metrics/slis of every replica service over HTTPS, trusting the replicas' CA", () => {
    expect(config.scrape_configs.map((s) => s.metrics_path)).to.have.members(['/metrics', '/metrics/slis']);
    const pkiVolume = [...mounts(replicas[0][1])].find(([, target]) => target === replicaOptions.certDir)![0];
    const pkiInPrometheus = mounts(prometheus).get(pkiVolume);
    expect(pkiInPrometheus, 'the replicas’ pki volume, mounted into Prometheus').to.be.a('string');
    for (const scrape of config.scrape_configs) {
      const targets = scrape.static_configs.flatMap((s) => s.targets);
      expect(targets, scrape.job_name).to.deep.equal(
        replicas.map(([name, service]) => `${name}:${optionsOf(service).securePort}`),
      );
      expect(scrape.scheme, scrape.job_name).to.equal('https');
      expect(scrape.tls_config?.ca_file).to.equal(`${pkiInPrometheus}/${CA_CERT_FILE}`);
      // The certificate names the replicas' shared host name, not their service names.
      for (const [, service] of replicas) expect(scrape.tls_config?.server_name).to.equal(service.hostname);
      expect(scrape.authorization?.type).to.equal('Bearer');
      expect(scrape.authorization?.credentials_file?.startsWith(`${pkiInPrometheus}/`)).to.equal(true);
    }
    // Written by the init service, which Prometheus waits for.
    expect(prometheus.depends_on).to.deep.include({
      'gatehouse-init': { condition: 'service_completed_successfully' },
    });
  });

  it('gets a token of the group that may read metrics and nothing else, also when the token file is older', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-deploy-init-'));
    try {
      const credentials = config.scrape_configs[0].authorization!.credentials_file!;
      const tokenFile = path.join(dir, path.basename(replicaOptions.tokenAuthFile!));
      const scrapeToken = path.join(dir, path.basename(credentials));
      writeFileSync(tokenFile, 'old-admin-token,admin,admin,"system:masters"\n');
      runComposeInit(dir);
      const first = readFileSync(tokenFile, 'utf8');
      const users = parseTokenFile(first).tokens;
      expect(users.map((t) => [t.user.name, t.user.groups])).to.deep.equal([
        ['admin', ['system:masters']],
        ['prometheus', ['system:monitoring']],
      ]);
      expect(users[0].token).to.equal('old-admin-token');
      expect(readFileSync(scrapeToken, 'utf8')).to.equal(users[1].token);
      runComposeInit(dir);
      expect(readFileSync(tokenFile, 'utf8'), 'a second run keeps the tokens').to.equal(first);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('alerts with a severity and a summary, and records every series an alert reads from a rule', () => {
    const recorded = recordedNames();
    const rules = ruleGroups().flatMap((g) => g.rules);
    expect(rules.filter((r) => r.alert).length).to.be.greaterThan(5);
    for (const rule of rules) {
      expect(Boolean(rule.alert) !== Boolean(rule.record), rule.expr).to.equal(true);
      if (!rule.alert) continue;
      expect(rule.labels?.severity, rule.alert).to.be.oneOf(['critical', 'warning', 'info']);
      expect(rule.annotations?.summary, rule.alert).to.be.a('string');
      for (const name of metricNames(rule.expr).filter((n) => n.includes(':')))
        expect(recorded.has(name), `${rule.alert} reads ${name}`).to.equal(true);
    }
  });

  const promtool = spawnSync('promtool', ['--version']).status === 0;
  // A skipped test's title is what mocha prints for it, so the title says why.
  const promtoolTitle = 'passes promtool check rules, and check config as far as it goes without the container';
  it(promtool ? promtoolTitle : `${promtoolTitle} (skipped: no promtool on the PATH; \`make promtool\`)`, function () {
    if (!promtool) this.skip();
    const rules = path.join(ROOT, 'deploy/prometheus/alerts.yaml');
    expect(execFileSync('promtool', ['check', 'rules', rules], { encoding: 'utf8' })).to.match(/SUCCESS/);
    // The token and CA files exist only inside the container.
    const config = path.join(ROOT, 'deploy/prometheus/prometheus.yml');
    expect(execFileSync('promtool', ['check', 'config', '--syntax-only', config], { encoding: 'utf8' })).to.match(
      /SUCCESS/,
    );
  });

  it(
    promtool ? 'has panels whose queries parse' : 'has panels whose queries parse (skipped: no promtool on the PATH)',
    function () {
      if (!promtool) this.skip();
      // Grafana substitutes its variables first; promtool parses a recording rule's expression as Prometheus would.
      const rules = dashboard().panels.flatMap((p) =>
        (p.targets ?? []).map((t) => ({
          record: `dashboard:panel_${p.id}:${t.refId}`,
          expr: t.expr.replaceAll('$__rate_interval', '1m').replaceAll('$instance', '.*'),
        })),
      );
      expect(rules.map((r) => r.expr).join(' ')).not.to.contain('$');
      const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-dashboard-promql-'));
      try {
        const file = path.join(dir, 'dashboard-rules.yaml');
        writeFileSync(file, yaml.dump({ groups: [{ name: 'dashboard', rules }] }));
        const checked = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8' });
        expect(checked.status, checked.stdout + checked.stderr).to.equal(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describe('deploy/grafana', () => {
  const grafana = services.grafana;
  const provisioningDir = mounts(grafana).get('./grafana/provisioning');
  const datasources = yaml.load(readDeploy('grafana/provisioning/datasources/prometheus.yaml')) as {
    datasources: { uid: string; type: string; url: string }[];
  };
  const providers = yaml.load(readDeploy('grafana/provisioning/dashboards/gatehouse.yaml')) as {
    providers: { type: string; options: { path: string } }[];
  };

  it('provisions from the folder Grafana reads, a dashboard folder that holds gatehouse.json', () => {
    expect(provisioningDir).to.equal('/etc/grafana/provisioning');
    const [provider] = providers.providers;
    expect(provider.type).to.equal('file');
    expect(hostFileAt(grafana, `${provider.options.path}/gatehouse.json`)).to.equal(
      path.join(ROOT, 'deploy/grafana/dashboards/gatehouse.json'),
    );
    const home = grafana.environment?.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH;
    expect(existsSync(hostFileAt(grafana, home!)!), home).to.equal(true);
  });

  it('reaches the compose Prometheus by its service name and port, under the uid every panel names', () => {
    const [source] = datasources.datasources;
    const url = new URL(source.url);
    expect(url.hostname).to.be.oneOf(Object.keys(services));
    const listen = services[url.hostname].ports!.map((p) => p.split(':').at(-1));
    expect(listen).to.include(url.port);
    const uids = new Set(datasources.datasources.map((d) => d.uid));
    const named = dashboard().panels.flatMap((p) => [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)]);
    for (const ref of [...named, ...dashboard().templating.list.map((v) => v.datasource)].filter((r) => r))
      expect(uids.has(ref!.uid), ref!.uid).to.equal(true);
  });

  it('lays its panels out on the 24-column grid without overlaps, each with an id of its own', () => {
    const panels = dashboard().panels;
    expect(new Set(panels.map((p) => p.id)).size).to.equal(panels.length);
    const cells = new Set<string>();
    for (const { title, gridPos } of panels) {
      expect(gridPos.x + gridPos.w, title).to.be.at.most(24);
      for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++)
        for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
          expect(cells.has(`${x},${y}`), `${title} overlaps at ${x},${y}`).to.equal(false);
          cells.add(`${x},${y}`);
        }
    }
  });

  it('shows the latency of requests that end, as upstream SLOs do: never WATCH or CONNECT', () => {
    const latency = promqlExpressions().filter(({ expr }) =>
      expr.includes('apiserver_request_duration_seconds_bucket'),
    );
    expect(latency).to.not.be.empty;
    for (const { where, expr } of latency) expect(expr, where).to.contain('verb!~"WATCH|CONNECT"');
  });
});
