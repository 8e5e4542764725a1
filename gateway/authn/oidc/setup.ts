// Start-up wiring of the JWT (OIDC) token authenticator: from --authentication-config or from the --oidc-* flags to
// one validated, compiled configuration and the token source serving it. A configuration that does not load or does
// not validate stops the start (kube-apiserver's wording, with field paths). With a configuration file, the file is
// watched and reloaded on change, as upstream 1.32 does; a reload that fails validation keeps the running
// configuration and is logged.
import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { GatehouseOptions } from '../../server/options.js';
import { isDeepStrictEqual } from 'node:util';
import { fieldErrors, FieldPath, type FieldError } from '../../../api/meta/field-errors.js';
import {
  loadAuthenticationConfig,
  parseAuthenticationConfig,
  type AnonymousConfig,
  type AuthenticationConfiguration,
} from './config.js';
import {
  AuthenticationConfigInvalidError,
  compileAuthenticationConfig,
  validateAuthenticationConfig,
  type CompiledJwtAuthenticator,
} from './config-validation.js';
import { oidcFlagsToConfig, SUPPORTED_SIGNING_ALGS } from './flags.js';
import { createJwtTokenAuthenticator, type JwtTokenAuthenticator } from './token.js';

export interface OidcSetup {
  authenticator: JwtTokenAuthenticator;
  /** The configuration file's `anonymous`, which then replaces --anonymous-auth. */
  anonymous?: AnonymousConfig;
  /** Stops watching the configuration file. */
  close(): void;
}

/** How often the file is re-read even when no change event arrived (upstream polls every minute). */
const RELOAD_POLL_MS = 60_000;

function watchConfigFile(
  file: string,
  initial: string,
  apply: (text: string) => void,
  log: (line: string) => void,
): () => void {
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
      log(`error: failed to reload authentication config from ${file}: ${(e as Error).message}`);
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

/** Validation beyond the file itself: feature gates, the --anonymous-auth flag, and (on reload) an unchanged anonymous. */
function compileFileConfig(
  config: AuthenticationConfiguration,
  options: GatehouseOptions,
  initial?: AuthenticationConfiguration,
): CompiledJwtAuthenticator[] {
  const extra: FieldError[] = [];
  const anonymous = FieldPath.root('anonymous');
  if (config.anonymous && !options.featureGates.enabled('AnonymousAuthConfigurableEndpoints')) {
    extra.push(
      fieldErrors.forbidden(
        anonymous,
        'anonymous is not supported when AnonymousAuthConfigurableEndpoints feature gate is disabled',
      ),
    );
  }
  if (config.anonymous && options.anonymousAuthFlagSet) {
    extra.push(
      fieldErrors.forbidden(
        anonymous,
        '--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
      ),
    );
  }
  if (initial && !isDeepStrictEqual(initial.anonymous, config.anonymous)) {
    extra.push(fieldErrors.forbidden(anonymous, 'changed from initial configuration file'));
  }
  // A JWT issuer may not be one of ours: service-account tokens would then be judged by the wrong authenticator.
  const { errors, authenticators } = validateAuthenticationConfig(config, {
    disallowedIssuers: options.serviceAccounts.issuers,
  });
  if (errors.length + extra.length > 0) throw new AuthenticationConfigInvalidError([...errors, ...extra]);
  return authenticators;
}

/** null when neither --authentication-config nor --oidc-issuer-url is given. */
export async function setUpOidc(options: GatehouseOptions, log: (line: string) => void): Promise<OidcSetup | null> {
  const file = options.authenticationConfigFile;
  if (file !== undefined) {
    if (!options.featureGates.enabled('StructuredAuthenticationConfiguration')) {
      throw new Error(
        'set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file',
      );
    }
    const { config, data } = await loadAuthenticationConfig(file);
    const authenticator = createJwtTokenAuthenticator(compileFileConfig(config, options), {
      // As upstream: with a configuration file any supported algorithm is fine as long as a published key matches.
      signingAlgs: SUPPORTED_SIGNING_ALGS,
      log,
    });
    const reload = (text: string): void =>
      authenticator.update(compileFileConfig(parseAuthenticationConfig(text), options, config));
    return { authenticator, anonymous: config.anonymous, close: watchConfigFile(file, data, reload, log) };
  }
  const config = oidcFlagsToConfig(options.oidc);
  if (!config) return null;
  const authenticator = createJwtTokenAuthenticator(
    compileAuthenticationConfig(config, { disallowedIssuers: options.serviceAccounts.issuers }),
    { signingAlgs: options.oidc.signingAlgs, log },
  );
  return { authenticator, close: () => {} };
}
