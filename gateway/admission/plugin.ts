// The shape of an admission plugin and the chain that runs an ordered list of them. As in kube-apiserver, a write
// goes through two phases: every plugin's mutating step in list order, then every plugin's validating step in list
// order, so a validating plugin sees the object as the mutating ones left it. The built-in plugins only validate;
// mutating webhooks fill the first phase, deletions included.
import type { KindDefinition } from '../../api/scheme.js';
import type { AdmissionRequest, DeleteAdmissionRequest } from '../registry/admission-types.js';

export interface AdmissionPlugin {
  /** Upstream's plugin name where there is one (NamespaceLifecycle, NodeRestriction, ResourceQuota). */
  readonly name: string;
  /** Whether this plugin looks at writes of this kind at all. */
  handles(def: KindDefinition): boolean;
  /** Mutating phase: may change `req.object`; refuses by throwing a StatusError. */
  mutate?(req: AdmissionRequest): Promise<void>;
  /** Mutating phase of a deletion (upstream calls it with no object): may refuse, has nothing to change. */
  mutateDelete?(req: DeleteAdmissionRequest): Promise<void>;
  /** Validating phase: refuses by throwing a StatusError; never changes the object. */
  validate?(req: AdmissionRequest): Promise<void>;
  /** Validating phase of a deletion, for the plugins that look at deletions at all. */
  validateDelete?(req: DeleteAdmissionRequest): Promise<void>;
}

export interface AdmissionChain {
  mutate(req: AdmissionRequest): Promise<void>;
  mutateDelete(req: DeleteAdmissionRequest): Promise<void>;
  validate(req: AdmissionRequest): Promise<void>;
  validateDelete(req: DeleteAdmissionRequest): Promise<void>;
}

export function admissionChain(plugins: readonly AdmissionPlugin[]): AdmissionChain {
  return {
    async mutate(req) {
      for (const plugin of plugins) if (plugin.mutate && plugin.handles(req.def)) await plugin.mutate(req);
    },
    async mutateDelete(req) {
      for (const plugin of plugins) if (plugin.mutateDelete && plugin.handles(req.def)) await plugin.mutateDelete(req);
    },
    async validate(req) {
      for (const plugin of plugins) if (plugin.validate && plugin.handles(req.def)) await plugin.validate(req);
    },
    async validateDelete(req) {
      for (const plugin of plugins)
        if (plugin.validateDelete && plugin.handles(req.def)) await plugin.validateDelete(req);
    },
  };
}
