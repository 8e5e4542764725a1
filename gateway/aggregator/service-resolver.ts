// Where a Service named by an APIService (and later by an admission or conversion webhook) is reached. In a cluster
// that is its DNS name, `https://<name>.<namespace>.svc:<port>`; Gatehouse runs no Service controller, so
// --aggregator-endpoints-file can instead map each service to a URL, and then only the services it lists have an
// address. The file is watched: a good change replaces the table, a bad one keeps the last good table and is logged.
import { readFileSync } from 'node:fs';
import { decodeYamlDocument } from '../../policies/config/yaml-document.js';
import { dns1035Label, dns1123Label } from '../../api/meta/validation.js';
import type { ServiceReference } from '../../api/apiregistration/v1/api-service.js';
import { watchFiles } from '../server/watched-files.js';

export type { ServiceReference };

export interface ServiceResolver {
  /** The base URL (scheme, host, port) the service answers at, or undefined when it has no address. */
  resolve(service: ServiceReference): URL | undefined;
  /** Called after the table changed; returns the unsubscription. */
  onChange(listener: () => void): () => void;
  close(): void;
}

/** The name a service's serving certificate must carry, whatever address reaches it (upstream's ServerName). */
export const serviceServerName = (service: Pick<ServiceReference, 'namespace' | 'name'>): string =>
  `${service.name}.${service.namespace}.svc`;

const keyOf = (s: ServiceReference): string => `${s.namespace}/${s.name}:${s.port}`;

/** The cluster DNS name of every service: what kube-apiserver's default resolver answers. */
export function clusterDnsResolver(): ServiceResolver {
  return {
    resolve: (service) => new URL(`https://${serviceServerName(service)}:${service.port}`),
    onChange: () => () => {},
    close() {},
  };
}

export class EndpointsFileError extends Error {
  override name = 'EndpointsFileError';
}

function entryProblems(raw: unknown): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return ['must be a mapping'];
  const entry = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(entry))
    if (!['namespace', 'name', 'port', 'url'].includes(key)) problems.push(`${key}: unknown field`);
  const { namespace, name, port, url } = entry;
  if (typeof namespace !== 'string' || namespace === '') problems.push('namespace: Required value');
  else for (const p of dns1123Label(namespace)) problems.push(`namespace: Invalid value: "${namespace}": ${p}`);
  if (typeof name !== 'string' || name === '') problems.push('name: Required value');
  else for (const p of dns1035Label(name)) problems.push(`name: Invalid value: "${name}": ${p}`);
  if (port === undefined || port === null) problems.push('port: Required value');
  else if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    problems.push(`port: Invalid value: ${JSON.stringify(port)}: must be between 1 and 65535, inclusive`);
  if (typeof url !== 'string' || url === '') {
    problems.push('url: Required value');
  } else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      problems.push(`url: Invalid value: "${url}": not a URL`);
    }
    if (parsed && parsed.protocol !== 'https:') problems.push(`url: Invalid value: "${url}": must be an https URL`);
    // The discovery path and the proxied request's path are appended to it; anything else would be lost or misread.
    else if (parsed && (parsed.search !== '' || parsed.hash !== '' || parsed.username !== ''))
      problems.push(`url: Invalid value: "${url}": may not have user info, a query or a fragment`);
  }
  return problems;
}

/** The table an endpoints file describes; every problem of every entry, named by file and entry, in one error. */
export function parseEndpointsFile(text: string, file: string): Map<string, URL> {
  let doc: unknown;
  try {
    doc = decodeYamlDocument(text);
  } catch (e) {
    throw new EndpointsFileError(`aggregator endpoints file ${file}: ${(e as Error).message}`);
  }
  if (doc === undefined || doc === null) doc = [];
  if (!Array.isArray(doc))
    throw new EndpointsFileError(`aggregator endpoints file ${file}: must be a list of {namespace, name, port, url}`);
  const table = new Map<string, URL>();
  const problems: string[] = [];
  doc.forEach((raw: unknown, i) => {
    const entryProblemsFound = entryProblems(raw);
    const entry = raw as ServiceReference & { url: string };
    const label = entryProblemsFound.length === 0 ? `entry ${i} (${keyOf(entry)})` : `entry ${i}`;
    if (entryProblemsFound.length > 0) {
      problems.push(...entryProblemsFound.map((p) => `${label}: ${p}`));
      return;
    }
    if (table.has(keyOf(entry))) {
      problems.push(`${label}: Duplicate value: the service and port are listed before`);
      return;
    }
    table.set(keyOf(entry), new URL(entry.url));
  });
  if (problems.length > 0) throw new EndpointsFileError(`aggregator endpoints file ${file}: ${problems.join('; ')}`);
  return table;
}

/** Reads and parses the file; start-up calls it so that a bad file stops the server before anything opens. */
export function loadEndpointsFile(file: string): { text: string; table: Map<string, URL> } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new EndpointsFileError(`aggregator endpoints file ${file}: ${(e as Error).message}`);
  }
  return { text, table: parseEndpointsFile(text, file) };
}

export interface ReloadResult {
  ok: boolean;
  error?: string;
}

export interface FileResolverOptions {
  log: (line: string) => void;
  /** The content read at start-up (loadEndpointsFile), so that the first table is the one start-up checked. */
  initial?: { text: string; table: Map<string, URL> };
  /** Re-reads the file this often whatever the watch reports (a missed event, an unsupported file system). */
  pollMs?: number;
}

export interface FileServiceResolver extends ServiceResolver {
  /** Reads the file now; a no-op when its content did not change. */
  reload(): void;
  /** Resolves with the outcome of the next read whose content changed: tests await it instead of sleeping. */
  nextReload(): Promise<ReloadResult>;
}

export function startEndpointsFileResolver(file: string, opts: FileResolverOptions): FileServiceResolver {
  const first = opts.initial ?? loadEndpointsFile(file);
  let table = first.table;
  let lastText = first.text;
  let closed = false;
  const listeners = new Set<() => void>();
  let waiters: ((result: ReloadResult) => void)[] = [];
  const settle = (result: ReloadResult): void => {
    const current = waiters;
    waiters = [];
    for (const w of current) w(result);
  };

  const reload = (): void => {
    if (closed) return;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      // A file gone for good is a bad configuration like any other; one being replaced reappears at the next event.
      text = `\0unreadable: ${(e as Error).message}`;
    }
    // The same content again, good or bad, is not a reload: a bad file is reported once, not at every poll.
    if (text === lastText) return;
    lastText = text;
    try {
      table = text.startsWith('\0') ? loadEndpointsFile(file).table : parseEndpointsFile(text, file);
    } catch (e) {
      const error = (e as Error).message;
      opts.log(`warning: reloading ${file} failed, keeping the previous service endpoints: ${error}`);
      settle({ ok: false, error });
      return;
    }
    opts.log(`reloaded aggregator endpoints file ${file}: ${table.size} service endpoints`);
    for (const listener of [...listeners]) listener();
    settle({ ok: true });
  };

  const watched = watchFiles([file], reload, { log: opts.log, pollMs: opts.pollMs });

  return {
    resolve: (service) => table.get(keyOf(service)),
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    reload,
    nextReload: () => new Promise((resolve) => waiters.push(resolve)),
    close() {
      closed = true;
      watched.close();
      listeners.clear();
      settle({ ok: false, error: 'closed' });
    },
  };
}

/** The resolver --aggregator-endpoints-file asks for: the file's table, or the cluster DNS names without one. */
export function startServiceResolver(file: string | undefined, opts: FileResolverOptions): ServiceResolver {
  return file === undefined ? clusterDnsResolver() : startEndpointsFileResolver(file, opts);
}
