// Keeps the API Priority and Fairness configuration every server starts with in place (upstream's
// priority-and-fairness-config-producer post-start hook and its periodic ensurer). The mandatory objects (exempt,
// catch-all) are recreated when deleted and their spec put back when changed; the suggested ones are created when
// missing and their spec kept as defined while annotated apf.platform.io/autoupdate-spec "true" (or, without a
// boolean there, while never edited: generation 1), and left alone once it says "false"; an object annotated "true"
// that the set no longer defines is deleted, as upstream removes an earlier release's. Watches make a deletion or
// an edit come undone at once rather than on the next periodic pass. Every write goes through the patch retry loop
// and a create that another replica won is taken as done, so replicas converge without fighting.
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import { cloneJson } from '../../api/meta/clone.js';
import { canonicalJson } from '../../api/meta/canonical-json.js';
import { asObj } from '../../api/common/validation-helpers.js';
import {
  AUTOUPDATE_SPEC_ANNOTATION,
  EXEMPT_NAME,
  FLOWCONTROL_GROUP,
} from '../../api/flowcontrol/v1/flowcontrol-common.js';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../../api/flowcontrol/v1/bootstrap-configuration.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';
import { startCachedReconciler } from './cached-reconciler.js';
import type { Controller } from './namespace-lifecycle.js';

interface BootstrapSet {
  kind: string;
  mandatory: readonly KObject[];
  suggested: readonly KObject[];
}

const SETS: readonly BootstrapSet[] = [
  { kind: 'PriorityLevelConfiguration', mandatory: MANDATORY_PRIORITY_LEVELS, suggested: SUGGESTED_PRIORITY_LEVELS },
  { kind: 'FlowSchema', mandatory: MANDATORY_FLOW_SCHEMAS, suggested: SUGGESTED_FLOW_SCHEMAS },
];

/** Go's strconv.ParseBool, which upstream reads the annotation with. */
function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

function autoUpdates(current: KObject): boolean {
  return parseBool(current.metadata.annotations?.[AUTOUPDATE_SPEC_ANNOTATION]) ?? current.metadata.generation === 1;
}

function defaultedSpec(def: KindDefinition, obj: KObject): unknown {
  const copy = cloneJson(obj);
  def.defaults?.(copy);
  return copy.spec;
}

/**
 * The object as the server wants it, or undefined when `current` already is (or is not the server's to change).
 * In the mandatory `exempt` level the `exempt` section is the administrator's, as upstream's validation allows.
 */
export function reconciledObject(
  def: KindDefinition,
  current: KObject,
  wanted: KObject,
  mandatory: boolean,
): KObject | undefined {
  if (!mandatory && !autoUpdates(current)) return undefined;
  const spec = asObj(defaultedSpec(def, wanted)) ?? {};
  const currentSpec = asObj(current.spec) ?? {};
  if (def.kind === 'PriorityLevelConfiguration' && current.metadata.name === EXEMPT_NAME && currentSpec.exempt)
    spec.exempt = currentSpec.exempt;
  const annotated = current.metadata.annotations?.[AUTOUPDATE_SPEC_ANNOTATION] === 'true';
  if (annotated && canonicalJson(currentSpec) === canonicalJson(spec)) return undefined;
  return {
    ...current,
    metadata: {
      ...current.metadata,
      annotations: { ...current.metadata.annotations, [AUTOUPDATE_SPEC_ANNOTATION]: 'true' },
    },
    spec,
  };
}

const isCode = (e: unknown, code: number) => isStatusError(e) && e.code === code;

/** Brings one bootstrap object in step; `current` is what the caller last saw (undefined: missing). */
async function ensureObject(
  store: ResourceStore,
  wanted: KObject,
  mandatory: boolean,
  current: KObject | undefined,
): Promise<void> {
  const name = wanted.metadata.name ?? '';
  if (!current) {
    try {
      await store.create('', cloneJson(wanted), internalWrite());
      return;
    } catch (e) {
      // Another replica created it first: reconcile what it wrote.
      if (!isCode(e, 409)) throw e;
    }
  } else if (!reconciledObject(store.def, current, wanted, mandatory)) return;
  try {
    await store.patch(
      '',
      name,
      (fresh) => reconciledObject(store.def, fresh, wanted, mandatory) ?? fresh,
      internalWrite(),
      '',
    );
  } catch (e) {
    // Deleted meanwhile: the watch brings the deletion, and the next pass creates it again.
    if (!isCode(e, 404)) throw e;
  }
}

async function ensureSet(
  store: ResourceStore,
  set: BootstrapSet,
  currentOf: (name: string) => Promise<KObject | undefined> | KObject | undefined,
  onError: (name: string, e: unknown) => void,
): Promise<boolean> {
  let ok = true;
  for (const [objects, mandatory] of [
    [set.mandatory, true],
    [set.suggested, false],
  ] as const) {
    for (const wanted of objects) {
      const name = wanted.metadata.name ?? '';
      try {
        await ensureObject(store, wanted, mandatory, await currentOf(name));
      } catch (e) {
        onError(name, e);
        ok = false;
      }
    }
  }
  return ok;
}

const describeError = (kind: string, name: string, e: unknown) =>
  `error: priority and fairness bootstrap: ${kind} ${name}: ${e instanceof Error ? e.message : String(e)}`;

/** Creates and reconciles the bootstrap configuration once; run before the first request is served. */
export async function ensureApfConfiguration(registry: Registry, log: (line: string) => void): Promise<void> {
  for (const set of SETS) {
    const store = registry.byKind(FLOWCONTROL_GROUP, set.kind);
    if (!store) continue;
    await ensureSet(
      store,
      set,
      (name) => store.get('', name).catch((e: unknown) => (isCode(e, 404) ? undefined : Promise.reject(e))),
      (name, e) => log(describeError(set.kind, name, e)),
    );
  }
}

/**
 * Deletes what an earlier release's bootstrap configuration created and this one no longer defines: an object
 * annotated for automatic update whose name is not in the set, as upstream's ensurer removes them. The preconditions
 * keep an object recreated or opted out meanwhile.
 */
async function removeObsolete(
  store: ResourceStore,
  set: BootstrapSet,
  objects: ReadonlyMap<string, KObject>,
  onError: (name: string, e: unknown) => void,
): Promise<boolean> {
  const wanted = new Set([...set.mandatory, ...set.suggested].map((o) => o.metadata.name));
  let ok = true;
  for (const [name, have] of objects) {
    if (wanted.has(name) || parseBool(have.metadata.annotations?.[AUTOUPDATE_SPEC_ANNOTATION]) !== true) continue;
    const preconditions = { uid: have.metadata.uid, resourceVersion: have.metadata.resourceVersion };
    try {
      await store.delete('', name, { preconditions }, internalWrite());
    } catch (e) {
      if (isCode(e, 404) || isCode(e, 409)) continue;
      onError(name, e);
      ok = false;
    }
  }
  return ok;
}

/** Follows both kinds and undoes, as soon as it is seen, a deletion or edit of what the server keeps. */
export function startApfBootstrapController(
  registry: Registry,
  opts: { log: (line: string) => void; retryMs?: number },
): Controller {
  const running: Controller[] = [];
  for (const set of SETS) {
    const store = registry.byKind(FLOWCONTROL_GROUP, set.kind);
    if (!store) continue;
    running.push(
      startCachedReconciler(
        store,
        async (objects) => {
          const onError = (name: string, e: unknown) => opts.log(describeError(set.kind, name, e));
          const ensured = await ensureSet(store, set, (name) => objects.get(name), onError);
          return (await removeObsolete(store, set, objects, onError)) && ensured;
        },
        { log: opts.log, retryMs: opts.retryMs ?? 1000 },
      ),
    );
  }
  return {
    async stop() {
      await Promise.all(running.map((c) => c.stop()));
    },
  };
}
