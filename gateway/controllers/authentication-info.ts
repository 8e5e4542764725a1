// The ConfigMap `platform-system/extension-apiserver-authentication`: what a server behind a remote APIService needs
// to trust this one, under the keys of kube-apiserver's `kube-system` one (its cluster authentication trust
// controller): `client-ca-file` (--client-ca-file's PEM), and with --requestheader-client-ca-file the
// `requestheader-*` keys, header names and allowed names as JSON string arrays as upstream writes them. An aggregated
// server reads it to verify this server's --proxy-client-cert-file certificate and the identity headers beside it.
// What the map already holds is merged with ours, as upstream's controller merges it (authentication-info-merge.ts):
// the CA bundles and name lists other servers wrote stay beside ours. Ours are put back whenever someone removes them
// and the map created again when deleted; other keys an operator added stay.
import { readFileSync } from 'node:fs';
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { cloneJson } from '../../api/meta/clone.js';
import type { GatehouseOptions } from '../server/options.js';
import type { Registry } from '../registry/registry.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Controller } from './namespace-lifecycle.js';
import { runWatchLoop } from './watch-loop.js';
import { mergeAuthenticationInfo } from './authentication-info-merge.js';

export const AUTHENTICATION_INFO_NAMESPACE = 'platform-system';
export const AUTHENTICATION_INFO_NAME = 'extension-apiserver-authentication';

type Options = Pick<GatehouseOptions, 'clientCaFile' | 'requestHeader'>;

/** The keys this server owns in the map, from its flags (files read now). */
export function authenticationInfoData(options: Options): Record<string, string> {
  const data: Record<string, string> = {};
  if (options.clientCaFile !== undefined) data['client-ca-file'] = readFileSync(options.clientCaFile, 'utf8');
  const rh = options.requestHeader;
  if (rh) {
    data['requestheader-username-headers'] = JSON.stringify(rh.usernameHeaders);
    data['requestheader-group-headers'] = JSON.stringify(rh.groupHeaders);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(rh.extraHeaderPrefixes);
    data['requestheader-client-ca-file'] = readFileSync(rh.clientCaFile, 'utf8');
    data['requestheader-allowed-names'] = JSON.stringify(rh.allowedNames);
  }
  return data;
}

export function startAuthenticationInfoController(
  registry: Registry,
  opts: { options: Options; log: (line: string) => void; retryMs?: number; now?: () => number },
): Controller & { readonly synced: Promise<void> } {
  const configMaps = registry.byKind('', 'ConfigMap');
  const abort = new AbortController();
  const wanted = authenticationInfoData(opts.options);
  // Without a client CA there is nothing an aggregated server could trust: no map, rather than an empty one that
  // every server would carry (an aggregated server treats a missing map as no trust, as it would an empty one).
  if (!configMaps || Object.keys(wanted).length === 0) return { synced: Promise.resolve(), async stop() {} };
  const retryMs = opts.retryMs ?? 1_000;
  const now = opts.now ?? Date.now;
  const merged = (existing: Record<string, unknown>): Record<string, string> => {
    const { data, warnings } = mergeAuthenticationInfo(existing, wanted, now());
    for (const warning of warnings)
      opts.log(`warning: ${AUTHENTICATION_INFO_NAMESPACE}/${AUTHENTICATION_INFO_NAME}: ${warning}`);
    return data;
  };
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  let running: Promise<void> | undefined;
  let again = false;
  let retry: NodeJS.Timeout | undefined;

  async function reconcile(): Promise<void> {
    let current: KObject;
    try {
      current = await configMaps!.get(AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME);
    } catch (e) {
      if (!(isStatusError(e) && e.code === 404)) throw e;
      const body = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: AUTHENTICATION_INFO_NAME, namespace: AUTHENTICATION_INFO_NAMESPACE },
        data: merged({}),
      };
      await configMaps!.create(AUTHENTICATION_INFO_NAMESPACE, body, internalWrite()).catch((err: unknown) => {
        // Another replica created it first: the watch brings it, and a pass compares it then.
        if (!(isStatusError(err) && err.code === 409)) throw err;
      });
      return;
    }
    const data = (current.data ?? {}) as Record<string, unknown>;
    const want = merged(data);
    if (Object.entries(want).every(([k, v]) => data[k] === v)) return;
    const updated = cloneJson(current);
    updated.data = { ...data, ...want };
    // The stored resourceVersion travels along: a concurrent write is a 409, and the next pass reads again.
    await configMaps!.update(AUTHENTICATION_INFO_NAMESPACE, AUTHENTICATION_INFO_NAME, updated, internalWrite(), '');
  }

  function schedule(): void {
    if (abort.signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = reconcile()
      .then(markSynced, (e: unknown) => {
        // Start-up waits for the first pass, not for it to succeed: the retry goes on in the background.
        markSynced();
        opts.log(`error: ${AUTHENTICATION_INFO_NAMESPACE}/${AUTHENTICATION_INFO_NAME}: ${(e as Error).message}`);
        clearTimeout(retry);
        retry = setTimeout(schedule, retryMs);
        retry.unref();
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          schedule();
        }
      });
  }

  const loop = runWatchLoop({
    storage: configMaps.storage,
    prefix: configMaps.prefix(AUTHENTICATION_INFO_NAMESPACE),
    signal: abort.signal,
    name: 'cluster-authentication-trust-controller',
    log: opts.log,
    onList: () => schedule(),
    onEvent: (event) => {
      const obj = event.object ?? event.prevObject;
      if (obj?.metadata.name === AUTHENTICATION_INFO_NAME) schedule();
    },
  });

  return {
    synced,
    async stop() {
      abort.abort();
      clearTimeout(retry);
      await loop;
      await running;
    },
  };
}
