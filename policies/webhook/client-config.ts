// The webhook's connection settings from a client configuration file (kubeconfig format, as kube-apiserver's
// --authorization-webhook-config-file): the current context's cluster (server, certificate-authority[-data],
// insecure-skip-tls-verify) and user (client-certificate[-data]/client-key[-data], token, token-file). Relative file
// paths resolve against the file's directory, as client-go does. Errors name the file and the missing piece, never a
// credential.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeYamlDocument } from '../config/yaml-document.js';

export interface WebhookClientConfig {
  /** https:// (or http://) URL the SubjectAccessReview is POSTed to. */
  server: URL;
  ca?: string;
  cert?: string;
  key?: string;
  token?: string;
  insecureSkipTlsVerify: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function named(list: unknown, name: string | undefined, what: string, file: string): Obj {
  if (!Array.isArray(list) || list.length === 0) throw new Error(`${file}: no ${what}s defined`);
  const entry = name === undefined ? list[0] : list.find((e) => isObj(e) && e.name === name);
  if (!isObj(entry)) throw new Error(`${file}: ${what} "${name}" not found`);
  const inner = entry[what];
  if (!isObj(inner)) throw new Error(`${file}: ${what} "${String(entry.name)}" has no ${what} section`);
  return inner;
}

export function loadWebhookClientConfig(file: string): WebhookClientConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(
      `unable to read webhook client configuration ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { cause: e },
    );
  }
  let doc: unknown;
  try {
    doc = decodeYamlDocument(text);
  } catch (e) {
    throw new Error(`unable to parse webhook client configuration ${file}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  if (!isObj(doc)) throw new Error(`${file}: not a client configuration object`);
  const dir = path.dirname(file);
  const resolve = (p: unknown) => path.resolve(dir, String(p));
  const readRef = (p: unknown, what: string) => {
    try {
      return readFileSync(resolve(p), 'utf8');
    } catch (e) {
      throw new Error(
        `${file}: unable to read ${what} ${resolve(p)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`,
        { cause: e },
      );
    }
  };
  const b64 = (v: unknown) => Buffer.from(String(v), 'base64').toString('utf8');

  // The current context picks cluster and user; without one, the first of each (what client-go's webhook loader
  // accepts for single-entry files).
  let clusterName: string | undefined;
  let userName: string | undefined;
  const current =
    typeof doc['current-context'] === 'string' && doc['current-context'] !== '' ? doc['current-context'] : undefined;
  if (current !== undefined) {
    const ctx = named(doc.contexts, current, 'context', file);
    clusterName = typeof ctx.cluster === 'string' ? ctx.cluster : undefined;
    userName = typeof ctx.user === 'string' ? ctx.user : undefined;
  }
  const cluster = named(doc.clusters, clusterName, 'cluster', file);
  const user: Obj = Array.isArray(doc.users) && doc.users.length > 0 ? named(doc.users, userName, 'user', file) : {};

  if (typeof cluster.server !== 'string' || cluster.server === '')
    throw new Error(`${file}: the cluster has no server`);
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch {
    throw new Error(`${file}: the cluster's server is not a URL`);
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:')
    throw new Error(`${file}: the cluster's server must be an https:// URL`);

  const out: WebhookClientConfig = { server, insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true };
  if (cluster['certificate-authority-data']) out.ca = b64(cluster['certificate-authority-data']);
  else if (cluster['certificate-authority'])
    out.ca = readRef(cluster['certificate-authority'], 'certificate-authority');
  if (user['client-certificate-data']) out.cert = b64(user['client-certificate-data']);
  else if (user['client-certificate']) out.cert = readRef(user['client-certificate'], 'client-certificate');
  if (user['client-key-data']) out.key = b64(user['client-key-data']);
  else if (user['client-key']) out.key = readRef(user['client-key'], 'client-key');
  if ((out.cert === undefined) !== (out.key === undefined))
    throw new Error(`${file}: client certificate and key must be given together`);
  if (typeof user.token === 'string' && user.token) out.token = user.token;
  else if (user.tokenFile) out.token = readRef(user.tokenFile, 'tokenFile').trim();
  return out;
}
