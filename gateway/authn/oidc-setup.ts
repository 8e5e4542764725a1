// Start-up wiring of the JWT (OIDC) token authenticator: from --authentication-config or from the --oidc-* flags to
// one validated, compiled configuration and the token source serving it. A configuration that does not load or does
// not validate stops the start (kube-apiserver's wording, with field paths). With a configuration file, the file is
// watched and reloaded on change, as upstream 1.32 does; a reload that fails validation keeps the running
// configuration and is logged.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { GatehouseOptions } from '../server/options.js';
import { loadAuthenticationConfig, parseAuthenticationConfig } from './oidc-config.js';
import { compileAuthenticationConfig } from './oidc-config-validation.js';
import { oidcFlagsToConfig, SUPPORTED_SIGNING_ALGS } from './oidc-flags.js';
import { createJwtTokenAuthenticator, type JwtTokenAuthenticator } from './oidc-token.js';

export interface OidcSetup {
  authenticator: JwtTokenAuthenticator;
  /** Stops watching the configuration file. */
  close(): void;
}

/** How often the file is re-read even when no change event arrived (upstream polls every minute). */
const RELOAD_POLL_MS = 60_000;

function watchConfigFile(file: string, initial: string, apply: (text: string) => void, log: (line: string) => void): () => void {
  let tracked = initial;
  let running = false;
  const check = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const text = await readFile(file, 'utf8');
      if (text === tracked) return;
      // As upstream: a file that does not validate will not start to validate by itself, so it is not retried.
      tracked = text;
      apply(text);
      log(`reloaded authentication config from ${file}`);
    } catch (e) {
      log(`failed to reload authentication config from ${file}: ${(e as Error).message}`);
    } finally {
      running = false;
    }
  };
  let watcher: FSWatcher | undefined;
  try {
    // Editors replace files, so the directory entry may change under the watcher: the poll covers that case.
    watcher = watch(file, { persistent: false }, () => void check());
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  const timer = setInterval(() => void check(), RELOAD_POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    watcher?.close();
  };
}

/** null when neither --authentication-config nor --oidc-issuer-url is given. */
export async function setUpOidc(options: GatehouseOptions, log: (line: string) => void): Promise<OidcSetup | null> {
  const file = options.authenticationConfigFile;
  if (file !== undefined) {
    const { config, data } = await loadAuthenticationConfig(file);
    const authenticator = createJwtTokenAuthenticator(compileAuthenticationConfig(config), {
      // As upstream: with a configuration file any supported algorithm is fine as long as a published key matches.
      signingAlgs: SUPPORTED_SIGNING_ALGS,
      log,
    });
    const close = watchConfigFile(file, data, (text) => authenticator.update(compileAuthenticationConfig(parseAuthenticationConfig(text))), log);
    return { authenticator, close };
  }
  const config = oidcFlagsToConfig(options.oidc);
  if (!config) return null;
  const authenticator = createJwtTokenAuthenticator(compileAuthenticationConfig(config), { signingAlgs: options.oidc.signingAlgs, log });
  return { authenticator, close: () => {} };
}
