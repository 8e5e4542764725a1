// Where --storage-url comes from and what it may be. The URL holds the database password, so messages show it only
// through redactUrl.
import { isPostgresUrl, redactUrl } from '../../backends/postgres/errors.js';

export const STORAGE_URL_ENV = 'GATEHOUSE_STORAGE_URL';

export interface StorageUrlResult {
  /** Set for the postgres backend only. */
  storageUrl?: string;
  /** Things to tell the operator at start-up that are not errors. */
  warnings: string[];
}

/** Thrown with the whole message; options.ts turns it into its OptionsError. */
export class StorageUrlError extends Error {}

/**
 * The storage URL for `backend`: the flag's value, else the environment variable's. A flag given with another
 * backend is refused: the operator meant a database, and state written to the embedded store instead would be
 * found missing only later (another replica, or the next start on a fresh disk). The environment variable may be
 * set for the whole host, so with another backend it is only reported.
 */
export function parseStorageUrl(
  flagValue: string | undefined,
  env: NodeJS.ProcessEnv,
  backend: string,
): StorageUrlResult {
  const fromEnv = env[STORAGE_URL_ENV] || undefined;
  if (backend !== 'postgres') {
    if (flagValue) {
      throw new StorageUrlError(
        `invalid argument "${redactUrl(flagValue)}" for "--storage-url" flag: only used with --storage-backend=postgres (the backend is ${backend})`,
      );
    }
    return {
      warnings: fromEnv ? [`${STORAGE_URL_ENV} is set but the storage backend is ${backend}: the URL is not used`] : [],
    };
  }
  const url = flagValue || fromEnv;
  const source = flagValue ? 'for "--storage-url" flag' : `in ${STORAGE_URL_ENV}`;
  if (!url)
    throw new StorageUrlError(
      `invalid argument "" for "--storage-url" flag: required with --storage-backend=postgres (or set ${STORAGE_URL_ENV})`,
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StorageUrlError(
      `invalid argument ${source}: not a URL (expected postgres://user:password@host:port/database; the value is not shown, as it may hold a password)`,
    );
  }
  if (!isPostgresUrl(parsed)) {
    throw new StorageUrlError(
      `invalid argument "${redactUrl(url)}" ${source}: must be a postgres:// or postgresql:// URL`,
    );
  }
  return { storageUrl: url, warnings: [] };
}
