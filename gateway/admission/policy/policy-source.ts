// Policies and bindings as the admission plugin reads them: two informers keep them in memory, each policy compiled
// once per generation. A write on any replica reaches every replica through its own watch, so a new policy or
// binding takes effect without a restart.
import type { KObject } from '../../../api/meta/types.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../../api/admissionregistration/v1/admission-common.js';
import { startInformer, type Informer } from '../../controllers/informer.js';
import type { Registry } from '../../registry/registry.js';
import { compilePolicy, type CompiledPolicy } from './compile-policy.js';

export interface PolicySource {
  snapshot(): { policies: ReadonlyMap<string, CompiledPolicy>; bindings: readonly KObject[] };
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export function startPolicySource(registry: Registry, opts: { log: (line: string) => void }): PolicySource {
  const policies = new Map<string, CompiledPolicy>();
  const bindings = new Map<string, KObject>();
  let bindingList: KObject[] = [];
  const informers: Informer[] = [];

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
          },
          put: putPolicy,
          removed: (o) => policies.delete(o.metadata.name ?? ''),
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
    synced: Promise.all(informers.map((i) => i.synced)).then(() => undefined),
    async stop() {
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}
