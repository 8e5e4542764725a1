// The generated admin credential (as k3s does it): a random token persisted in the data dir so that the admin
// kubeconfig keeps working across restarts, authenticating as system:admin in system:masters.
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SYSTEM_MASTERS } from './authenticator.js';
import { createStaticTokenAuthenticator } from './token-file.js';
import type { TokenAuthenticator } from './bearer-token.js';
import { makeDirectory } from '../../backends/make-directory.js';

export const ADMIN_USER = 'system:admin';
export const ADMIN_TOKEN_FILE = 'admin.token';

/** Reads `<dataDir>/admin.token`, or writes a fresh 32-byte hex token there (mode 0600). */
export async function loadOrCreateAdminToken(dataDir: string): Promise<string> {
  const file = path.join(dataDir, ADMIN_TOKEN_FILE);
  try {
    const existing = (await readFile(file, 'utf8')).trim();
    if (/^[0-9a-f]{64,}$/.test(existing)) return existing;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const token = randomBytes(32).toString('hex');
  await makeDirectory(dataDir);
  await writeFile(file, token + '\n', { mode: 0o600 });
  return token;
}

export function createAdminTokenAuthenticator(token: string): TokenAuthenticator {
  return createStaticTokenAuthenticator('admin-token', [
    { token, user: { name: ADMIN_USER, uid: ADMIN_USER, groups: [SYSTEM_MASTERS] } },
  ]);
}
