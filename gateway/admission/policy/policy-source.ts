// Policies, bindings and params as the admission plugin reads them: two informers keep policies (each compiled once
// per generation) and bindings in memory, and one more per paramKind some policy names keeps its objects. A write on
// any replica reaches every replica through its own watch, so a change takes effect without a restart.
import type { KObject } from '../../../api/meta/types.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../../api/admissionregistration/v1/admission-common.js';
import { startInformer, type Informer } from '../../controllers/informer.js';
import type { Registry } from '../../registry/registry.js';
import type { ResourceStore } from '../../registry/store.js';
import { compilePolicy, type CompiledPolicy } from './compile-policy.js';
import { storeOfParamKind } from './kind-resolution.js';
import { createParamCache, type ParamObjects } from './param-cache.js';

export interface PolicySource {
  snapshot(): { policies: ReadonlyMap<string, CompiledPolicy>; bindings: readonly KObject[] };
  /** The in-memory objects of a policy's paramKind, with its store; undefined when no served kind is its paramKind. */
  paramsOf(policy: CompiledPolicy): { store: ResourceStore; objects: ParamObjects } | undefined;
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export function startPolicySource(registry: Registry, opts: { log: (line: string) => void }): PolicySource {
  const policies = new Map<string, CompiledPolicy>();
  const bindings = new Map<string, KObject>();
  let bindingList: KObject[] = [];
  const informers: Informer[] = [];
  const params = createParamCache(opts);
  const paramStores = new WeakMap<CompiledPolicy, ResourceStore | null>();
  const paramStoreOf = (policy: CompiledPolicy): ResourceStore | undefined => {
    if (!policy.paramKind) return undefined;
    let store = paramStores.get(policy);
    if (store === undefined)
      paramStores.set(policy, (store = storeOfParamKind(registry.stores, policy.paramKind) ?? null));
    return store ?? undefined;
  };
  // Upstream starts a paramKind's informer when a policy names the kind and stops it when none does any more.
  const retainParams = () => {
    const wanted = new Set<ResourceStore>();
    for (const policy of policies.values()) {
      const store = paramStoreOf(policy);
      if (store) wanted.add(store);
    }
    params.retain(wanted);
  };

  function putPolicy(obj: KObject): void {
    const name = obj.metadata.name ?? '';
    const known = policies.get(name);
    if (known && known.generation === (obj.metadata.generation ?? 0) && known.generation !== 0) return;
    const { compiled } = compilePolicy(obj);
    // A stored policy always compiled when written; a missing result means the environment changed, and upstream
    // then leaves the policy out rather than refusing every write.
    if (compiled) policies.set(name, compiled);
    else policies.delete(name);
  }
  // Bindings are evaluated in name order, so which Deny answers first does not depend on the order of events.
  const refreshBindings = () => {
    bindingList = [...bindings.values()].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  };

  const policyStore = registry.byKind(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicy');
  const bindingStore = registry.byKind(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicyBinding');
  if (policyStore && bindingStore) {
    informers.push(
      startInformer(
        policyStore,
        {
          replace(objects) {
            policies.clear();
            for (const o of objects) putPolicy(o);
            retainParams();
          },
          put(o) {
            putPolicy(o);
            retainParams();
          },
          removed(o) {
            policies.delete(o.metadata.name ?? '');
            retainParams();
          },
        },
        opts,
      ),
      startInformer(
        bindingStore,
        {
          replace(objects) {
            bindings.clear();
            for (const o of objects) bindings.set(o.metadata.name ?? '', o);
            refreshBindings();
          },
          put(o) {
            bindings.set(o.metadata.name ?? '', o);
            refreshBindings();
          },
          removed(o) {
            bindings.delete(o.metadata.name ?? '');
            refreshBindings();
          },
        },
        opts,
      ),
    );
  }
  return {
    snapshot: () => ({ policies, bindings: bindingList }),
    paramsOf(policy) {
      const store = paramStoreOf(policy);
      return store ? { store, objects: params.objectsOf(store) } : undefined;
    },
    synced: Promise.all(informers.map((i) => i.synced)).then(() => undefined),
    async stop() {
      // Policies first: a policy event after the params' stop would start an informer again.
      await Promise.all(informers.map((i) => i.stop()));
      await params.stop();
    },
  };
}
