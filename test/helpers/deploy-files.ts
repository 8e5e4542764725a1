// The monitoring files of deploy/ as the tests read them: the compose services, Prometheus's configuration and rules,
// Grafana's provisioning and dashboard, and every PromQL expression among them with where it comes from.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const readDeploy = (file: string): string => readFileSync(path.join(ROOT, 'deploy', file), 'utf8');

export interface ComposeService {
  image?: string;
  build?: { dockerfile: string };
  hostname?: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
}

export interface ScrapeConfig {
  job_name: string;
  scheme?: string;
  metrics_path?: string;
  authorization?: { type?: string; credentials_file?: string };
  tls_config?: { ca_file?: string; server_name?: string };
  static_configs: { targets: string[] }[];
}

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: { refId: string; expr: string; datasource?: { type: string; uid: string } }[];
}

export interface Dashboard {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; datasource?: { uid: string }; definition?: string }[] };
}

export const compose = (): { services: Record<string, ComposeService> } =>
  yaml.load(readDeploy('compose.yaml')) as { services: Record<string, ComposeService> };
export const prometheusConfig = (): { rule_files: string[]; scrape_configs: ScrapeConfig[] } =>
  yaml.load(readDeploy('prometheus/prometheus.yml')) as { rule_files: string[]; scrape_configs: ScrapeConfig[] };
export const ruleGroups = (): { name: string; rules: Rule[] }[] =>
  (yaml.load(readDeploy('prometheus/alerts.yaml')) as { groups: { name: string; rules: Rule[] }[] }).groups;
export const dashboard = (): Dashboard => JSON.parse(readDeploy('grafana/dashboards/gatehouse.json')) as Dashboard;

/** Every PromQL expression of the rules and the dashboard, each with a name saying where it is. */
export function promqlExpressions(): { where: string; expr: string }[] {
  const rules = ruleGroups().flatMap((g) =>
    g.rules.map((r) => ({ where: `alerts.yaml ${g.name}/${r.alert ?? r.record}`, expr: r.expr })),
  );
  const panels = dashboard().panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `gatehouse.json "${p.title}" ${t.refId}`, expr: t.expr })),
  );
  // Grafana's label_values(<selector>, label) is not PromQL; its first argument is.
  const variables = dashboard().templating.list.flatMap((v) => {
    const selector = /^label_values\((.*),\s*\w+\)$/.exec(v.definition ?? '')?.[1];
    return selector ? [{ where: `gatehouse.json variable ${v.name}`, expr: selector }] : [];
  });
  return [...rules, ...panels, ...variables];
}

/** Names the rules record, which Prometheus makes from the others instead of scraping. */
export const recordedNames = (): Set<string> =>
  new Set(ruleGroups().flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))));

/**
 * Runs the compose file's init service script (its `node -e` program) with its pki directory moved to `pkiDir`,
 * as the container would run it there.
 */
export function runComposeInit(pkiDir: string): void {
  const entrypoint = compose().services['gatehouse-init'].entrypoint!;
  const program = entrypoint[entrypoint.indexOf('-e') + 1];
  execFileSync(process.execPath, ['-e', program.replaceAll('/var/lib/gatehouse-pki', pkiDir)]);
}
