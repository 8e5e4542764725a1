// Serves the kinds of every established CustomResourceDefinition, on every replica: an informer on the definitions
// hands each one's served versions to the registry, which the router, discovery and OpenAPI read, and takes them
// away once the definition is gone. Always on, as upstream's crdHandler: serving is not a selectable controller.
import type { KObject } from '../../api/meta/types.js';
import { APIEXTENSIONS_GROUP, isEstablished, servedDefinitionOf } from '../../api/apiextensions/v1/crd-types.js';
import { customKindsOf } from '../../api/apiextensions/v1/custom-kinds.js';
import type { KindDefinition } from '../../api/scheme.js';
import type { ServedDefinition } from '../../api/apiextensions/v1/crd-types.js';
import { compileSchemaRules } from '../apiextensions/rule-evaluation.js';
import { createConversionWebhooks, type ConversionWebhookOptions } from '../apiextensions/conversion-webhook.js';
import { versionDeprecationOf } from '../apiextensions/version-deprecation.js';
import type { Registry } from '../registry/registry.js';
import { startCachedReconciler, type CachedReconciler } from './cached-reconciler.js';

/** What the served kinds are built from: a status write that changes neither leaves the stores as they are. */
const servingSignature = (crd: KObject): string =>
  JSON.stringify([
    crd.metadata.uid,
    crd.metadata.deletionTimestamp !== undefined,
    crd.spec,
    (crd.status as { acceptedNames?: unknown } | undefined)?.acceptedNames,
  ]);

/** The kinds with their versions' x-kubernetes-validations rules (CEL lives outside api/, so they join here). */
function withValidationRules(served: ServedDefinition, kinds: KindDefinition[]): KindDefinition[] {
  return kinds.map((def) => {
    const schema = served.versions.find((v) => v.name === def.version)?.schema;
    const rules = schema && compileSchemaRules(schema);
    if (!rules) return def;
    return {
      ...def,
      // Create only: an update's rules need the old object (transition rules, optionalOldSelf, ratcheting).
      validateCreate: (obj) => rules.validate(obj),
      validateUpdate: (obj, old, warnings) => rules.validate(obj, old, warnings),
      validateStatusUpdate: (obj, old, warnings) => rules.validate(obj, old, warnings),
    };
  });
}

/** Each version's deprecation, which the Warning header, audit annotation and metric of its requests follow. */
function withDeprecations(served: ServedDefinition, kinds: KindDefinition[]): KindDefinition[] {
  return kinds.map((def) => {
    const version = served.versions.find((v) => v.name === def.version);
    const deprecation = version && versionDeprecationOf(served, version);
    return deprecation ? { ...def, deprecation } : def;
  });
}

export function startCustomKinds(
  registry: Registry,
  opts: { log: (line: string) => void; retryMs?: number; conversion: ConversionWebhookOptions },
): CachedReconciler | undefined {
  const store = registry.byKind(APIEXTENSIONS_GROUP, 'CustomResourceDefinition');
  if (!store) return undefined;
  const serving = new Map<string, string>();
  const conversion = createConversionWebhooks(opts.conversion);
  const reconciler = startCachedReconciler(
    store,
    (definitions) => {
      for (const name of serving.keys()) {
        const crd = definitions.get(name);
        if (crd && isEstablished(crd)) continue;
        registry.setDynamicKinds(name, []);
        serving.delete(name);
      }
      // A definition being deleted stays served until it is gone, so that its objects can still be deleted.
      for (const [name, crd] of definitions) {
        if (!isEstablished(crd)) continue;
        const signature = servingSignature(crd);
        if (serving.get(name) === signature) continue;
        const served = servedDefinitionOf(crd);
        const converter = conversion.converterOf(served);
        const kinds = customKindsOf(served, crd.metadata.deletionTimestamp !== undefined, converter);
        registry.setDynamicKinds(name, withValidationRules(served, withDeprecations(served, kinds)));
        serving.set(name, signature);
      }
      conversion.retain(new Set(serving.keys()));
      return Promise.resolve(true);
    },
    { log: opts.log, retryMs: opts.retryMs ?? 1000 },
  );
  return {
    ...reconciler,
    async stop() {
      await reconciler.stop();
      conversion.close();
    },
  };
}
