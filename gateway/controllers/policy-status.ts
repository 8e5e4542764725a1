// Keeps each ValidatingAdmissionPolicy's status: observedGeneration and the type-checking warnings of its
// expressions, as upstream's validatingadmissionpolicy-status-controller does. A policy whose status already tells
// of its generation is left alone, so replicas agree without writing over each other.
import type { KObject } from '../../api/meta/types.js';
import { isStatusError } from '../../api/meta/errors.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../api/admissionregistration/v1/admission-common.js';
import { asObj } from '../../api/common/validation-helpers.js';
import { typeCheckPolicy } from '../admission/policy/type-check.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { startCachedReconciler } from './cached-reconciler.js';
import type { Controller } from './namespace-lifecycle.js';

function withStatus(policy: KObject, stores: Registry['stores']): KObject {
  const status = { ...(asObj(policy.status) ?? {}) };
  status.observedGeneration = policy.metadata.generation ?? 0;
  const warnings = typeCheckPolicy(policy, stores);
  status.typeChecking = warnings.length > 0 ? { expressionWarnings: warnings } : {};
  return { ...policy, status };
}

export function startPolicyStatusController(
  registry: Registry,
  opts: { log: (line: string) => void; retryMs?: number },
): Controller {
  const store = registry.byKind(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicy');
  if (!store) return { async stop() {} };
  return startCachedReconciler(
    store,
    async (policies, stopped) => {
      let ok = true;
      for (const [name, policy] of policies) {
        if (stopped()) break;
        if (asObj(policy.status)?.observedGeneration === policy.metadata.generation) continue;
        try {
          await store.patch(
            '',
            name,
            (current) =>
              current.metadata.generation === policy.metadata.generation
                ? withStatus(current, registry.stores)
                : current,
            internalWrite(),
            'status',
          );
        } catch (e) {
          if (isStatusError(e) && e.code === 404) continue;
          opts.log(
            `error: policy status: writing the status of ValidatingAdmissionPolicy ${name}: ${(e as Error).message}`,
          );
          ok = false;
        }
      }
      return ok;
    },
    { log: opts.log, retryMs: opts.retryMs ?? 1000 },
  );
}
