// tokencleaner: deletes bootstrap-token Secrets in platform-system once their
// `expiration` has passed. It watches the namespace's Secrets; a token that is still valid gets a timer at its
// expiration (re-armed whenever the Secret changes), so nothing polls. An unparseable expiration counts as expired,
// as upstream's cleaner treats it.
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  tokenExpiration,
} from '../../api/core/v1/bootstrap-token.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import type { Controller } from './namespace-lifecycle.js';
import { runWatchLoop } from './watch-loop.js';
import { MAX_TIMER_MS } from '../server/long-timeout.js';
import { createLogger, lineLog } from '../server/logger.js';

export interface TokenCleanerOptions {
  log?: (line: string) => void;
  now?: () => number;
  retryMs?: number;
}

export function startTokenCleaner(registry: Registry, opts: TokenCleanerOptions = {}): Controller {
  const secrets = registry.byKind('', 'Secret');
  if (!secrets) return { async stop() {} };
  const log = opts.log ?? lineLog(createLogger());
  const now = opts.now ?? Date.now;
  const abort = new AbortController();
  const timers = new Map<string, NodeJS.Timeout>();
  const ns = BOOTSTRAP_TOKEN_NAMESPACE;

  function cancel(name: string): void {
    const timer = timers.get(name);
    if (timer) clearTimeout(timer);
    timers.delete(name);
  }

  async function remove(secret: KObject): Promise<void> {
    const name = secret.metadata.name ?? '';
    try {
      // The uid precondition keeps a Secret recreated under the same name (a fresh token) from being deleted.
      await secrets!.delete(ns, name, { preconditions: { uid: secret.metadata.uid } }, internalWrite());
      log(`token cleaner: deleted expired bootstrap token Secret ${ns}/${name}`);
    } catch (e) {
      if (isStatusError(e) && (e.code === 404 || e.code === 409)) return;
      log(`error: token cleaner: deleting ${ns}/${name}: ${(e as Error).message}`);
    }
  }

  function evaluate(secret: KObject): void {
    const name = secret.metadata.name ?? '';
    cancel(name);
    if (abort.signal.aborted || secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || secret.metadata.deletionTimestamp)
      return;
    const expiration = tokenExpiration(secret, now());
    if (expiration.expired) {
      void remove(secret);
      return;
    }
    if (expiration.at === undefined) return;
    const timer = setTimeout(
      () => {
        timers.delete(name);
        // Re-read: the Secret may have changed since; its watch event would have re-armed the timer, but a fresh read
        // also covers a timer that fired at setTimeout's ceiling.
        secrets!.get(ns, name).then(evaluate, (e: unknown) => {
          if (!(isStatusError(e) && e.code === 404))
            log(`error: token cleaner: reading ${ns}/${name}: ${(e as Error).message}`);
        });
      },
      Math.min(Math.max(expiration.at - now(), 0), MAX_TIMER_MS),
    );
    timers.set(name, timer);
  }

  const done = runWatchLoop({
    storage: secrets.storage,
    prefix: secrets.prefix(ns),
    signal: abort.signal,
    name: 'token cleaner',
    log,
    retryMs: opts.retryMs,
    onList(items) {
      for (const name of [...timers.keys()]) cancel(name);
      for (const item of items) evaluate(item);
    },
    onEvent(event) {
      if (event.type === 'DELETED') cancel(event.object?.metadata.name ?? '');
      else if (event.object) evaluate(event.object);
    },
  });

  return {
    async stop() {
      abort.abort();
      for (const name of [...timers.keys()]) cancel(name);
      await done;
    },
  };
}
