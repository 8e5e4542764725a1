// The admin kubeconfig k3s-style: written into the data dir on start so that
// `kubectl --kubeconfig <data-dir>/admin.kubeconfig get ns` works at once. It is rewritten on every start (the port
// or the CA may have changed); the token comes from the persisted admin token, so it stays the same.
import { chmod, rename, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import yaml from 'js-yaml';

export const ADMIN_KUBECONFIG_FILE = 'admin.kubeconfig';
export const KUBECONFIG_CONTEXT = 'gatehouse';

export interface AdminKubeconfigOptions {
  dataDir: string;
  server: string;
  caPem: string;
  token: string;
}

/** The URL clients should use: loopback when listening on every interface, else the bind address itself. */
export function clientUrl(bindAddress: string, port: number): string {
  let host = bindAddress === '0.0.0.0' ? '127.0.0.1' : bindAddress === '::' ? '::1' : bindAddress;
  if (net.isIPv6(host)) host = `[${host}]`;
  return `https://${host}:${port}`;
}

export function renderKubeconfig(opts: Omit<AdminKubeconfigOptions, 'dataDir'>): string {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [
      {
        name: KUBECONFIG_CONTEXT,
        cluster: {
          server: opts.server,
          'certificate-authority-data': Buffer.from(opts.caPem, 'utf8').toString('base64'),
        },
      },
    ],
    users: [{ name: 'admin', user: { token: opts.token } }],
    contexts: [{ name: KUBECONFIG_CONTEXT, context: { cluster: KUBECONFIG_CONTEXT, user: 'admin' } }],
    'current-context': KUBECONFIG_CONTEXT,
  };
  return yaml.dump(doc, { lineWidth: -1 });
}

/** Writes `<dataDir>/admin.kubeconfig` with mode 0600 (it holds a system:masters token) and returns its path. */
export async function writeAdminKubeconfig(opts: AdminKubeconfigOptions): Promise<string> {
  const file = path.join(opts.dataDir, ADMIN_KUBECONFIG_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, renderKubeconfig(opts), { mode: 0o600 });
  await chmod(tmp, 0o600);
  // Rename so that a kubectl reading it during a restart never sees half a file.
  await rename(tmp, file);
  return file;
}
