// The ConfigMap `cluster-info` in platform-public (the bootstrap-token join flow): what a joining client
// reads anonymously to learn the server URL and the CA before it trusts the server. Its `clientconfig` key holds a
// kubeconfig with one unnamed cluster and nothing else, as kubeadm writes it; Gatehouse writes it itself at start,
// since it knows its URL (once listening) and its CA. The `jws-clientconfig-<id>` keys belong to the bootstrap signer.
// Clients read it unauthenticated, so (as kubeadm does) a Role and RoleBinding let system:anonymous get this one
// ConfigMap once RBAC authorizes requests.
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { cloneJson } from '../../api/meta/clone.js';

export const CLUSTER_INFO_NAMESPACE = 'platform-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const CLIENT_CONFIG_KEY = 'clientconfig';
export const JWS_KEY_PREFIX = 'jws-clientconfig-';
/** kubeadm names its grant `kubeadm:bootstrap-signer-clusterinfo`; Gatehouse plays kubeadm's part here. */
export const CLUSTER_INFO_READER = 'gatehouse:bootstrap-signer-clusterinfo';
const RBAC_GROUP = 'rbac.authorization.platform.io';

/** The kubeconfig text, laid out as client-go's clientcmd.Write renders kubeadm's (one cluster named ""). */
export function renderClusterInfoKubeconfig(serverUrl: string, caPem: string): string {
  const caData = Buffer.from(caPem, 'utf8').toString('base64');
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${caData}`,
    `    server: ${serverUrl}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

/** Creates the Role and RoleBinding letting system:anonymous get cluster-info, unless they exist (left as found). */
export async function grantAnonymousClusterInfoRead(registry: Registry): Promise<void> {
  const roles = registry.byKind(RBAC_GROUP, 'Role');
  const bindings = registry.byKind(RBAC_GROUP, 'RoleBinding');
  if (!roles || !bindings) return;
  const metadata = { name: CLUSTER_INFO_READER, namespace: CLUSTER_INFO_NAMESPACE };
  const objects: [typeof roles, unknown][] = [
    [
      roles,
      {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'Role',
        metadata,
        rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_NAME], verbs: ['get'] }],
      },
    ],
    [
      bindings,
      {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'RoleBinding',
        metadata,
        roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: CLUSTER_INFO_READER },
        subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'system:anonymous' }],
      },
    ],
  ];
  for (const [store, body] of objects) {
    try {
      await store.create(CLUSTER_INFO_NAMESPACE, body, internalWrite());
    } catch (e) {
      if (!(isStatusError(e) && e.code === 409)) throw e;
    }
  }
}

/**
 * Creates cluster-info, or brings its `clientconfig` up to date (the port or the CA may differ from the last run),
 * keeping every other key. Retries once on a concurrent write (another replica starting at the same time).
 */
export async function publishClusterInfo(registry: Registry, serverUrl: string, caPem: string): Promise<void> {
  const configMaps = registry.byKind('', 'ConfigMap');
  if (!configMaps) return;
  const clientconfig = renderClusterInfoKubeconfig(serverUrl, caPem);
  for (let attempt = 0; ; attempt++) {
    try {
      let current: KObject | undefined;
      try {
        current = await configMaps.get(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME);
      } catch (e) {
        if (!(isStatusError(e) && e.code === 404)) throw e;
      }
      if (!current) {
        await configMaps.create(
          CLUSTER_INFO_NAMESPACE,
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: CLUSTER_INFO_NAME, namespace: CLUSTER_INFO_NAMESPACE },
            data: { [CLIENT_CONFIG_KEY]: clientconfig },
          },
          internalWrite(),
        );
        return;
      }
      const data = (current.data ?? {}) as Record<string, string>;
      if (data[CLIENT_CONFIG_KEY] === clientconfig) return;
      const next = cloneJson(current);
      next.data = { ...data, [CLIENT_CONFIG_KEY]: clientconfig };
      await configMaps.update(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME, next, internalWrite(), '');
      return;
    } catch (e) {
      if (attempt < 3 && isStatusError(e) && (e.code === 409 || e.code === 404)) continue;
      throw e;
    }
  }
}
