// Puts the default RBAC policy in place at start (upstream's rbac/bootstrap-roles post-start hook): each default
// ClusterRole and ClusterRoleBinding is created when missing; an existing one annotated autoupdate "true" (the
// default) gets back what was removed from it: rules not covered any more, selectors of an aggregationRule,
// subjects, labels and annotations. Nothing is taken away, so an operator's additions survive restarts; setting the
// annotation to "false" opts an object out.
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import {
  AUTOUPDATE_ANNOTATION,
  bootstrapClusterRoleBindings,
  bootstrapClusterRoles,
} from '../../policies/rbac/bootstrap-policy.js';
import { uncovered } from '../../policies/rbac/covers.js';
import { RBAC_GROUP, type BindingObject, type RoleObject, type Subject } from '../../policies/rbac/types.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';
import { cloneJson } from '../../api/meta/clone.js';

function mergeMeta(current: KObject, wanted: KObject): boolean {
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    const want = wanted.metadata[field];
    if (!want) continue;
    const have = (current.metadata[field] ??= {});
    for (const [k, v] of Object.entries(want)) {
      // The autoupdate annotation is the owner's switch: present with any value, it stays as set.
      if (k in have && (k === AUTOUPDATE_ANNOTATION || have[k] === v)) continue;
      have[k] = v;
      changed = true;
    }
  }
  return changed;
}

function reconcileRole(current: RoleObject, wanted: RoleObject): boolean {
  let changed = mergeMeta(current, wanted);
  if (wanted.aggregationRule) {
    // The aggregation controller owns the rules; only the selectors are reconciled.
    const have = (current.aggregationRule ??= { clusterRoleSelectors: [] });
    const selectors = (have.clusterRoleSelectors ??= []);
    for (const s of wanted.aggregationRule.clusterRoleSelectors ?? []) {
      if (!selectors.some((x) => JSON.stringify(x) === JSON.stringify(s))) {
        selectors.push(s);
        changed = true;
      }
    }
    return changed;
  }
  const rules = (current.rules ??= []);
  for (const rule of wanted.rules ?? []) {
    if (uncovered(rules, [rule]).length > 0) {
      rules.push(rule);
      changed = true;
    }
  }
  return changed;
}

const sameSubject = (a: Subject, b: Subject): boolean =>
  a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');

function reconcileBinding(current: BindingObject, wanted: BindingObject): boolean {
  let changed = mergeMeta(current, wanted);
  const subjects = (current.subjects ??= []);
  for (const s of wanted.subjects ?? []) {
    if (!subjects.some((x) => sameSubject(x, s))) {
      subjects.push(s);
      changed = true;
    }
  }
  return changed;
}

async function ensure<T extends KObject>(
  store: ResourceStore,
  wanted: T,
  reconcile: (current: T, wanted: T) => boolean,
): Promise<void> {
  const name = wanted.metadata.name as string;
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await store.get('', name).catch((e: unknown) => {
      if (isStatusError(e) && e.code === 404) return undefined;
      throw e;
    });
    if (!existing) {
      try {
        await store.create('', cloneJson(wanted), internalWrite());
        return;
      } catch (e) {
        // Another replica created it first: reconcile what it wrote.
        if (isStatusError(e) && e.code === 409) continue;
        throw e;
      }
    }
    if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return;
    const next = cloneJson(existing) as T;
    if (!reconcile(next, wanted)) return;
    try {
      await store.update('', name, next, internalWrite(), '');
      return;
    } catch (e) {
      if (isStatusError(e) && e.code === 409) continue;
      throw e;
    }
  }
}

export async function ensureBootstrapPolicy(registry: Registry): Promise<void> {
  const roles = registry.byKind(RBAC_GROUP, 'ClusterRole');
  const bindings = registry.byKind(RBAC_GROUP, 'ClusterRoleBinding');
  if (roles) for (const role of bootstrapClusterRoles()) await ensure(roles, role, reconcileRole);
  if (bindings) for (const binding of bootstrapClusterRoleBindings()) await ensure(bindings, binding, reconcileBinding);
}
