// serviceaccount-controller: every active namespace has a ServiceAccount named `default`, which pods run as when
// they name none and which charts and clients take for granted. It is created when missing (also after someone
// deletes it); its content is the owner's to change.
import type { Registry } from '../registry/registry.js';
import type { Controller } from './namespace-lifecycle.js';
import { settledCreate, startPerNamespaceController } from './per-namespace.js';
import { internalWrite } from '../registry/admission-types.js';
import { isStatusError } from '../../api/meta/errors.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

export function startServiceAccountController(
  registry: Registry,
  opts: { log: (line: string) => void; retryMs?: number },
): Controller {
  const serviceAccounts = registry.byKind('', 'ServiceAccount');
  if (!serviceAccounts) return { async stop() {} };
  return startPerNamespaceController(registry, {
    name: 'serviceaccount controller',
    target: serviceAccounts,
    objectName: DEFAULT_SERVICE_ACCOUNT,
    log: opts.log,
    retryMs: opts.retryMs,
    async reconcile(namespace) {
      const exists = await serviceAccounts.get(namespace, DEFAULT_SERVICE_ACCOUNT).then(
        () => true,
        (e: unknown) => {
          if (isStatusError(e) && e.code === 404) return false;
          throw e;
        },
      );
      if (exists) return;
      const body = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT } };
      await serviceAccounts.create(namespace, body, internalWrite()).catch((e: unknown) => {
        if (!settledCreate(e)) throw e;
      });
    },
  });
}
