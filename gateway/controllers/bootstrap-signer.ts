// bootstrapsigner (the bootstrap-token join flow): keeps one `jws-clientconfig-<id>` key in cluster-info
// per bootstrap token that may sign (usage-bootstrap-signing "true", not expired): a detached JWS (RFC 7515
// appendix F) over the `clientconfig` value, HS256, protected header {"alg":"HS256","kid":"<id>"} as upstream's
// signer writes it. Keys come, change and go with the tokens: the Secrets of platform-system and the ConfigMap are
// watched, and a timer at the next expiration drops a key when its token expires, cleaner or not.
//
// Every trigger only marks the ConfigMap dirty; one sync runs at a time and recomputes everything from a fresh read,
// as upstream's single-item work queue does, so bursts of events collapse into one write.
import { CompactSign } from 'jose';
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { BOOTSTRAP_TOKEN_NAMESPACE, signingToken } from '../../api/core/v1/bootstrap-token.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import {
  CLIENT_CONFIG_KEY,
  CLUSTER_INFO_NAME,
  CLUSTER_INFO_NAMESPACE,
  JWS_KEY_PREFIX,
  grantAnonymousClusterInfoRead,
  publishClusterInfo,
} from './cluster-info.js';
import type { Controller } from './namespace-lifecycle.js';
import { runWatchLoop } from './watch-loop.js';
import { cloneJson } from '../../api/meta/clone.js';
import { MAX_TIMER_MS } from '../server/long-timeout.js';
import { createLogger, lineLog } from '../server/logger.js';

/**
 * The HMAC key: the full token `<id>.<secret>`, as kube-apiserver's bootstrap tokens do ("with the full token as shared secret").
 * Upstream's code (cluster-bootstrap's ComputeDetachedSignature, called by kubeadm and the signer) keys the HMAC with
 * the secret part alone; the spec governs here, and this is the one place to change should that be revisited.
 */
export function signingKey(id: string, secret: string): Uint8Array {
  return new TextEncoder().encode(`${id}.${secret}`);
}

/** `<header>..<signature>`: a compact JWS with its payload elided. */
export async function computeDetachedSignature(content: string, id: string, secret: string): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(content))
    .setProtectedHeader({ alg: 'HS256', kid: id })
    .sign(signingKey(id, secret));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

export interface BootstrapSignerOptions {
  /** The URL clients reach the server at; known once it listens. cluster-info is (re)published when it resolves. */
  serverUrl?: Promise<string>;
  caPem?: string;
  log?: (line: string) => void;
  now?: () => number;
  retryMs?: number;
}

export function startBootstrapSigner(registry: Registry, opts: BootstrapSignerOptions = {}): Controller {
  const secrets = registry.byKind('', 'Secret');
  const configMaps = registry.byKind('', 'ConfigMap');
  if (!secrets || !configMaps) return { async stop() {} };
  const log = opts.log ?? lineLog(createLogger());
  const now = opts.now ?? Date.now;
  const retryMs = opts.retryMs ?? 500;
  const abort = new AbortController();
  let expiryTimer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let dirty = false;
  let running = false;
  let current: Promise<void> = Promise.resolve();

  /** Marks the ConfigMap for a sync; starts one unless one is running (that one loops while dirty). */
  function poke(): void {
    dirty = true;
    if (running || abort.signal.aborted) return;
    running = true;
    current = (async () => {
      try {
        while (dirty && !abort.signal.aborted) {
          dirty = false;
          try {
            await sync();
          } catch (e) {
            // Changed or removed underneath (a concurrent write, another replica): start over from a fresh read.
            if (isStatusError(e) && (e.code === 409 || e.code === 404)) {
              dirty = true;
              continue;
            }
            log(`error: bootstrap signer: ${(e as Error).message}`);
            clearTimeout(retryTimer);
            retryTimer = setTimeout(poke, retryMs);
          }
        }
      } finally {
        // Cleared in the same turn as the last `dirty` check, so a poke arriving now starts a new round.
        running = false;
      }
    })();
  }

  async function sync(): Promise<void> {
    let cm: KObject;
    try {
      cm = await configMaps!.get(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME);
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return;
      throw e;
    }
    const data = (cm.data ?? {}) as Record<string, string>;
    const content = data[CLIENT_CONFIG_KEY];
    if (typeof content !== 'string') return;

    const at = now();
    const tokens = new Map<string, string>();
    let nextExpiry = Infinity;
    for (const secret of (await secrets!.list(BOOTSTRAP_TOKEN_NAMESPACE, {})).items) {
      const token = signingToken(secret, at);
      // Names fix the id, so duplicates cannot happen; keep the first should they ever.
      if (!token || tokens.has(token.id)) continue;
      tokens.set(token.id, token.secret);
      if (token.expiresAt !== undefined) nextExpiry = Math.min(nextExpiry, token.expiresAt);
    }
    clearTimeout(expiryTimer);
    if (nextExpiry !== Infinity)
      expiryTimer = setTimeout(poke, Math.min(Math.max(nextExpiry - now(), 0), MAX_TIMER_MS));

    const wanted: Record<string, string> = {};
    for (const [id, secret] of tokens)
      wanted[`${JWS_KEY_PREFIX}${id}`] = await computeDetachedSignature(content, id, secret);
    const next: Record<string, string> = {};
    for (const [key, value] of Object.entries(data)) if (!key.startsWith(JWS_KEY_PREFIX)) next[key] = value;
    Object.assign(next, wanted);
    const changed =
      Object.keys(next).length !== Object.keys(data).length || Object.entries(next).some(([k, v]) => data[k] !== v);
    if (!changed || abort.signal.aborted) return;
    // The resourceVersion makes this a compare-and-swap: a concurrent change (a new clientconfig) is a 409 and a resync.
    const updated = cloneJson(cm);
    updated.data = next;
    await configMaps!.update(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME, updated, internalWrite(), '');
  }

  const secretsLoop = runWatchLoop({
    storage: secrets.storage,
    prefix: secrets.prefix(BOOTSTRAP_TOKEN_NAMESPACE),
    signal: abort.signal,
    name: 'bootstrap signer (secrets)',
    log,
    retryMs,
    onList: () => poke(),
    onEvent: () => poke(),
  });
  const configMapLoop = runWatchLoop({
    storage: configMaps.storage,
    prefix: configMaps.prefix(CLUSTER_INFO_NAMESPACE),
    signal: abort.signal,
    name: 'bootstrap signer (configmaps)',
    log,
    retryMs,
    onList: () => poke(),
    onEvent: (event) => {
      // Our own writes come back here too; the sync then finds nothing to change.
      if ((event.object ?? event.prevObject)?.metadata.name === CLUSTER_INFO_NAME && event.type !== 'DELETED') poke();
    },
  });
  const published =
    opts.serverUrl && opts.caPem !== undefined
      ? opts.serverUrl
          .then(async (url) => {
            if (abort.signal.aborted) return;
            await grantAnonymousClusterInfoRead(registry);
            await publishClusterInfo(registry, url, opts.caPem!);
          })
          .catch((e: unknown) =>
            log(
              `error: bootstrap signer: publishing ${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_NAME}: ${(e as Error).message}`,
            ),
          )
      : Promise.resolve();

  return {
    async stop() {
      abort.abort();
      clearTimeout(expiryTimer);
      clearTimeout(retryTimer);
      await Promise.all([secretsLoop, configMapLoop]);
      await current;
      // A server that never listened leaves serverUrl pending forever: do not wait on it.
      await Promise.race([published, Promise.resolve()]);
    },
  };
}
