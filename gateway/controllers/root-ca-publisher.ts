// root-ca-certificate-publisher-controller: every active namespace has the ConfigMap `kube-root-ca.crt` whose
// `ca.crt` is the CA bundle that verifies this server, so workloads can trust it without being handed the bundle.
// The name is upstream's, unrenamed: clients and projected token volumes look the map up by it. The data is
// restored whenever someone edits it, and the map is created again when deleted.
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { cloneJson } from '../../api/meta/clone.js';
import type { Registry } from '../registry/registry.js';
import type { Controller } from './namespace-lifecycle.js';
import { settledCreate, startPerNamespaceController } from './per-namespace.js';
import { internalWrite } from '../registry/admission-types.js';

export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
export const ROOT_CA_KEY = 'ca.crt';
export const DESCRIPTION_ANNOTATION = 'platform.io/description';
const DESCRIPTION =
  "The CA bundle that verifies this cluster's API server on its in-cluster endpoints. " +
  'Nothing else about it is promised from one cluster to another.';

export function startRootCaPublisher(
  registry: Registry,
  opts: { caPem?: string; log: (line: string) => void; retryMs?: number },
): Controller {
  const configMaps = registry.byKind('', 'ConfigMap');
  const caPem = opts.caPem;
  if (!configMaps || caPem === undefined) return { async stop() {} };
  const wanted = { [ROOT_CA_KEY]: caPem };
  return startPerNamespaceController(registry, {
    name: 'root-ca-cert-publisher',
    target: configMaps,
    objectName: ROOT_CA_CONFIG_MAP,
    log: opts.log,
    retryMs: opts.retryMs,
    async reconcile(namespace) {
      let current: KObject;
      try {
        current = await configMaps.get(namespace, ROOT_CA_CONFIG_MAP);
      } catch (e) {
        if (!(isStatusError(e) && e.code === 404)) throw e;
        const body = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ROOT_CA_CONFIG_MAP, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
          data: wanted,
        };
        await configMaps.create(namespace, body, internalWrite()).catch((err: unknown) => {
          if (!settledCreate(err)) throw err;
        });
        return;
      }
      const data = (current.data ?? {}) as Record<string, unknown>;
      const annotations = current.metadata.annotations ?? {};
      const dataMatches = Object.keys(data).length === 1 && data[ROOT_CA_KEY] === caPem;
      if (dataMatches && Object.hasOwn(annotations, DESCRIPTION_ANNOTATION)) return;
      // Only the data is the controller's; other metadata (labels, other annotations) stays as the owner set it.
      const updated = cloneJson(current);
      updated.data = { ...wanted };
      updated.metadata.annotations = { [DESCRIPTION_ANNOTATION]: DESCRIPTION, ...annotations };
      // The stored resourceVersion travels along: a concurrent write is a 409 and the worker reads again.
      await configMaps.update(namespace, ROOT_CA_CONFIG_MAP, updated, internalWrite(), '');
    },
  });
}
