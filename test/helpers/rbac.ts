// Shared pieces of the RBAC integration tests: a token file of test users, a Gatehouse run with RBAC, and builders
// for roles and bindings.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from './gatehouse.js';

export const RBAC = 'rbac.authorization.platform.io';
export const RBAC_V1 = `/apis/${RBAC}/v1`;

/** token → user name (and groups): each user's token is `<name>-token-0123456789`. */
export const USERS: Record<string, string[]> = {
  alice: ['dev'],
  bob: [],
  carol: [],
  dave: [],
  'system:node:n1': ['system:nodes'],
  // A service account's identity as its token authenticator would present it.
  'system:serviceaccount:sa-ns:robot': ['system:serviceaccounts', 'system:serviceaccounts:sa-ns'],
};
export const tokenOf = (user: string): string => `${user.replace(/[^a-z0-9]/g, '-')}-token-0123456789`;

export async function startRbacGatehouse(
  modes = 'RBAC',
  extraArgs: string[] = [],
): Promise<TestGatehouse & { tmp: string }> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-rbac-'));
  const file = path.join(tmp, 'tokens.csv');
  await writeFile(
    file,
    Object.entries(USERS)
      .map(([user, groups]) => `${tokenOf(user)},${user},${user}-uid,"${groups.join(',')}"`)
      .join('\n'),
  );
  const gh = await startTestGatehouse([`--authorization-mode=${modes}`, '--token-auth-file', file, ...extraArgs]);
  const closeServer = gh.close.bind(gh);
  return Object.assign(gh, {
    tmp,
    async close() {
      await closeServer();
      await rm(tmp, { recursive: true, force: true });
    },
  });
}

export type Rule = {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
};

export const roleBody = (
  name: string,
  rules: Rule[],
  kind: 'Role' | 'ClusterRole' = 'Role',
  labels?: Record<string, string>,
) => ({
  apiVersion: `${RBAC}/v1`,
  kind,
  metadata: { name, ...(labels ? { labels } : {}) },
  rules,
});

export const bindingBody = (
  name: string,
  roleKind: 'Role' | 'ClusterRole',
  role: string,
  users: string[],
  kind: 'RoleBinding' | 'ClusterRoleBinding' = 'RoleBinding',
) => ({
  apiVersion: `${RBAC}/v1`,
  kind,
  metadata: { name },
  roleRef: { apiGroup: RBAC, kind: roleKind, name: role },
  subjects: users.map((name) => ({ kind: 'User', name })),
});
