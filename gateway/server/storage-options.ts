// Where --storage-url comes from and what it may be. The URL holds the database password, so no message here
// shows it: a postgres URL is shown with its password replaced, anything else with everything before its `@` hidden.
import { redactUrl } from '../../backends/postgres/errors.js';

export const STORAGE_URL_ENV = 'GATEHOUSE_STORAGE_URL';

export interface StorageUrlResult {
  /** Set for the postgres backend only. */
  storageUrl?: string;
  /** Things to tell the operator at start-up that are not errors. */
  warnings: string[];
}

/** Thrown with the whole message; options.ts turns it into its OptionsError. */
export class StorageUrlError extends Error {}

/** The value with whatever may be credentials (up to the last `@`, after a `scheme://`) hidden. */
function maskCredentials(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? '';
  return `${scheme}***${value.slice(at)}`;
}

/**
 * The storage URL for `backend`: the flag's value, else the environment variable's. A flag given with another
 * backend is refused: the operator meant a database, and state written to the embedded store instead would be
 * found missing only later (another replica, or the next start on a fresh disk). The environment variable may be
 * set for the whole host, so with another backend it is only reported.
 */
export function parseStorageUrl(flagValue: string | undefined, env: NodeJS.ProcessEnv, backend: string): StorageUrlResult {
  const fromEnv = env[STORAGE_URL_ENV] || undefined;
  if (backend !== 'postgres') {
    if (flagValue) {
      throw new StorageUrlError(`invalid argument "${shown(flagValue)}" for "--storage-url" flag: only used with --storage-backend=postgres (the backend is ${backend})`);
    }
    return { warnings: fromEnv ? [`${STORAGE_URL_ENV} is set but the storage backend is ${backend}: the URL is not used`] : [] };
  }
  const url = flagValue || fromEnv;
  const source = flagValue ? 'for "--storage-url" flag' : `in ${STORAGE_URL_ENV}`;
  if (!url) throw new StorageUrlError(`invalid argument "" for "--storage-url" flag: required with --storage-backend=postgres (or set ${STORAGE_URL_ENV})`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StorageUrlError(`invalid argument "${maskCredentials(url)}" ${source}: not a URL (expected postgres://user:password@host:port/database)`);
  }
  if (!isPostgresUrl(parsed)) {
    throw new StorageUrlError(`invalid argument "${shown(url)}" ${source}: must be a postgres:// or postgresql:// URL`);
  }
  return { storageUrl: url, warnings: [] };
}

function isPostgresUrl(url: URL): boolean {
  return url.protocol === 'postgres:' || url.protocol === 'postgresql:';
}

/**
 * The value as messages may show it. Only a postgres URL is known to keep its password where redactUrl finds it:
 * `user:secret@host` parses too, as a URL of scheme `user:` whose path holds the secret.
 */
function shown(value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return maskCredentials(value);
  }
  return isPostgresUrl(parsed) ? redactUrl(value) : maskCredentials(value);
}
