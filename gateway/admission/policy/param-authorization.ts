// Who writes a policy's paramKind or a binding's paramRef must be able to read those params, as upstream's strategies
// for the two kinds require: otherwise a policy would let its author read, through its messages and audit
// annotations, objects RBAC keeps from them. Upstream checks it with the other rules of the kind (a 422 naming
// spec.paramKind or spec.paramRef); system:masters is exempt, as from every escalation check.
import type { KObject } from '../../../api/meta/types.js';
import type { UserInfo } from '../../../api/meta/user.js';
import { errors } from '../../../api/meta/errors.js';
import { fieldErrors } from '../../../api/meta/field-errors.js';
import { asObj, asStr, specOf } from '../../../api/common/validation-helpers.js';
import { parseApiVersion } from '../../../api/proto/object-codec.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../../api/admissionregistration/v1/admission-common.js';
import type { Authorizer } from '../../../policies/authorizer.js';
import type { Registry } from '../../registry/registry.js';
import type { AdmissionRequest } from '../../registry/admission-types.js';

type ParamKind = { apiVersion: string; kind: string };

const paramKindOf = (policy: KObject | undefined): ParamKind | undefined => {
  const pk = asObj(policy ? specOf(policy).paramKind : undefined);
  return pk ? { apiVersion: asStr(pk.apiVersion) ?? '', kind: asStr(pk.kind) ?? '' } : undefined;
};

export function createParamAuthorization(registry: Registry, authorizer: Authorizer) {
  /** Group, version and resource of a paramKind; `*` for what cannot be resolved, as upstream widens it. */
  function resourceOf(paramKind: ParamKind | undefined): { group: string; version: string; resource: string } {
    if (!paramKind) return { group: '*', version: '*', resource: '*' };
    const { group, version } = parseApiVersion(paramKind.apiVersion);
    const store = registry.stores.find(
      (s) => s.def.kind === paramKind.kind && (s.def.group === group || (s.def.groupAliases ?? []).includes(group)),
    );
    return { group, version, resource: store?.def.resource ?? '*' };
  }

  async function allowed(
    user: UserInfo,
    verb: string,
    target: ReturnType<typeof resourceOf>,
    namespace: string,
    name: string,
  ) {
    const result = await authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: '',
      apiGroup: target.group,
      apiVersion: target.version,
      resource: target.resource,
      subresource: '',
      namespace,
      name,
    });
    return result.decision === 'Allow';
  }

  const refusal = (who: UserInfo, paramKind: ParamKind | undefined) =>
    `user ${who.name} must have "get" permission on all objects of the referenced paramKind (kind=${paramKind?.kind ?? '*'}, apiVersion=${paramKind?.apiVersion ?? '*'})`;

  /** The bound policy's paramKind; `found` false when the policy does not exist (yet). */
  async function boundParamKind(binding: KObject): Promise<{ found: boolean; paramKind?: ParamKind }> {
    const store = registry.byKind(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicy');
    try {
      const policy = await store?.get('', asStr(specOf(binding).policyName) ?? '');
      return { found: policy !== undefined, paramKind: paramKindOf(policy) };
    } catch {
      return { found: false };
    }
  }

  return async function check(req: AdmissionRequest): Promise<void> {
    const user = req.user;
    if (!user || user.groups.includes('system:masters') || req.subresource !== '') return;
    const invalid = (field: string, detail: string) =>
      errors.invalid(req.def.kind, req.def.group, req.name, [fieldErrors.forbidden(field, detail)]);
    if (req.def.kind === 'ValidatingAdmissionPolicy') {
      const paramKind = paramKindOf(req.object);
      if (!paramKind) return;
      // An update that keeps the paramKind needs no new permission.
      const old = paramKindOf(req.oldObject);
      if (old && old.apiVersion === paramKind.apiVersion && old.kind === paramKind.kind) return;
      if (!(await allowed(user, 'get', resourceOf(paramKind), '*', '*')))
        throw invalid('spec.paramKind', refusal(user, paramKind));
      return;
    }
    if (req.def.kind !== 'ValidatingAdmissionPolicyBinding') return;
    const ref = asObj(specOf(req.object).paramRef);
    if (!ref) return;
    const oldRef = req.oldObject ? asObj(specOf(req.oldObject).paramRef) : undefined;
    if (
      oldRef &&
      JSON.stringify(oldRef) === JSON.stringify(ref) &&
      specOf(req.oldObject!).policyName === specOf(req.object).policyName
    )
      return;
    const bound = await boundParamKind(req.object);
    // A selector reads every param it matches: listing them is what it takes.
    const name = asStr(ref.name) ?? '';
    const verb = name === '' ? 'list' : 'get';
    if (await allowed(user, verb, resourceOf(bound.paramKind), asStr(ref.namespace) ?? '', name)) return;
    throw invalid(
      'spec.paramRef',
      bound.found
        ? `user ${user.name} does not have "${verb}" permission on the object referenced by paramRef`
        : `unable to get policy ${asStr(specOf(req.object).policyName) ?? ''} to determine minimum required permissions and user ${user.name} does not have "${verb}" permission for all groups, versions and resources`,
    );
  };
}
