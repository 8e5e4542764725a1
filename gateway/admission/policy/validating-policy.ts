// The ValidatingAdmissionPolicy admission plugin. Policies and bindings come from informers (a change reaches every
// replica through its own watch, no restart); each binding in force whose policy and narrowing match the write is
// evaluated with its params, and its validationActions decide what a failure does: Deny refuses with upstream's
// Status, Warn adds a Warning header, Audit records the failure in the audit event.
import type { KObject } from '../../../api/meta/types.js';
import { StatusError, qualifiedResource, type StatusReason } from '../../../api/meta/errors.js';
import { asArr, asObj, asStr, selectorMatches, specOf } from '../../../api/common/validation-helpers.js';
import { isExemptAdmissionConfigurationKind } from '../../../api/admissionregistration/v1/admission-common.js';
import type { Authorizer } from '../../../policies/authorizer.js';
import { ConvertedCelValue } from '../../../policies/cel/index.js';
import type { Registry } from '../../registry/registry.js';
import type { AdmissionRequest, DeleteAdmissionRequest } from '../../registry/admission-types.js';
import type { AdmissionPlugin } from '../plugin.js';
import type { CompiledPolicy } from './compile-policy.js';
import { evaluatePolicy, type Activation, type Decision } from './evaluate.js';
import { matchResourcesMatch, type MatchAttributes } from './matching.js';
import { namespaceObjectOf, selectorInput } from '../match-rules.js';
import type { PolicyMetrics } from './policy-metrics.js';
import { admissionRequestValue } from './request-value.js';
import { createParamAuthorization } from './param-authorization.js';
import type { PolicySource } from './policy-source.js';

export const VALIDATION_FAILURE_ANNOTATION = 'validation.policy.admission.platform.io/validation_failure';

const CODES: Record<string, number> = { Forbidden: 403, Unauthorized: 401, RequestEntityTooLarge: 413, Invalid: 422 };

interface Deps {
  registry: Registry;
  source: PolicySource;
  metrics?: PolicyMetrics;
  authorizer?: Authorizer;
}

type Request = AdmissionRequest | DeleteAdmissionRequest;

export function createValidatingAdmissionPolicy(deps: Deps): AdmissionPlugin {
  const { registry, source } = deps;

  /** The params a binding points at, from the paramKind's informer; none found is for parameterNotFoundAction. */
  async function paramsOf(policy: CompiledPolicy, binding: KObject, req: Request): Promise<(KObject | null)[]> {
    const ref = asObj(specOf(binding).paramRef);
    // A binding that names no params is evaluated once with null params, as upstream.
    if (!ref) return [null];
    const found = source.paramsOf(policy);
    const paramKind = policy.paramKind ?? { apiVersion: '', kind: '' };
    if (!found)
      throw new Error(
        `failed to find resource referenced by paramKind: '${paramKind.apiVersion}, Kind=${paramKind.kind}'`,
      );
    const { store, objects } = found;
    if (!(await objects.ready()))
      throw new Error(
        `paramKind kind \`${paramKind.apiVersion}, Kind=${paramKind.kind}\` not yet synced to use for admission`,
      );
    let namespace = '';
    if (!store.def.namespaced && asStr(ref.namespace))
      throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    if (store.def.namespaced) {
      // Without a namespace in the ref, a namespaced param is looked up in the namespace of the request.
      namespace = asStr(ref.namespace) || req.namespace;
      if (namespace === '')
        throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    }
    const name = asStr(ref.name) ?? '';
    if (name !== '') {
      const param = objects.get(namespace, name);
      return param ? [param] : [];
    }
    return objects
      .list(namespace)
      .filter((item) => isEmptySelector(ref.selector) || selectorMatches(ref.selector, item.metadata.labels ?? {}));
  }

  // Params come from the informers' objects, which are replaced on change, never modified: each is converted once.
  const convertedParams = new WeakMap<KObject, ConvertedCelValue>();
  function convertedParam(param: KObject): ConvertedCelValue {
    let converted = convertedParams.get(param);
    if (!converted) convertedParams.set(param, (converted = new ConvertedCelValue(param)));
    return converted;
  }

  async function admit(req: Request, object: KObject | undefined, oldObject: KObject | undefined, subresource: string) {
    // The server's own writes (controllers, bootstrap) are not admitted through policies, as no other check here.
    if (!req.user) return;
    const { policies, bindings } = source.snapshot();
    if (bindings.length === 0) return;
    const attributes: MatchAttributes = {
      operation: req.operation,
      group: req.def.group,
      groupAliases: req.def.groupAliases ?? [],
      requestGroup: req.requestResource.group,
      version: req.def.version,
      resource: req.def.resource,
      subresource,
      namespaced: req.def.namespaced,
      name: req.name,
    };
    let nsObject: KObject | undefined;
    let nsRead = false;
    // What every binding's evaluation reads alike, converted once per write rather than once per expression.
    let activation: Omit<Activation, 'params'> | undefined;
    const denied: { policy: string; binding: string; decision: Decision }[] = [];
    // Upstream publishes each policy's annotations once, every distinct value of a key (one per binding or param)
    // joined by ", "; and an audit event keeps the first value of a key, so the first Audit failure is the one told.
    const annotations = new Map<string, string[]>();
    let auditFailure: string | undefined;
    for (const binding of bindings) {
      const spec = specOf(binding);
      const policy = policies.get(asStr(spec.policyName) ?? '');
      if (!policy) continue;
      if (!nsRead) {
        nsObject = await namespaceObjectOf(registry, req);
        nsRead = true;
      }
      const labels = selectorInput(req.def, nsObject, object, oldObject);
      if (!matchResourcesMatch(policy.matchConstraints, attributes, labels, false)) continue;
      if (spec.matchResources !== undefined && !matchResourcesMatch(spec.matchResources, attributes, labels, true))
        continue;
      const bindingName = binding.metadata.name ?? '';
      const actions = asArr(spec.validationActions).map(String);
      const decisions: Decision[] = [];
      let params: (KObject | null)[] = [null];
      if (policy.paramKind) {
        try {
          const found = await paramsOf(policy, binding, req);
          if (found.length === 0) {
            if (asObj(spec.paramRef)?.parameterNotFoundAction === 'Allow') continue;
            decisions.push({
              action: 'deny',
              evaluation: 'deny',
              message: 'no params found for policy binding with `Deny` parameterNotFoundAction',
              expressionIndex: 0,
              elapsedSeconds: 0,
            });
            params = [];
          } else params = found;
        } catch (e) {
          if (policy.failurePolicy === 'Ignore') continue;
          decisions.push({
            action: 'deny',
            evaluation: 'error',
            message: (e as Error).message,
            expressionIndex: 0,
            elapsedSeconds: 0,
          });
          params = [];
        }
      }
      // As authorization saw the request: the kind's own group (an alias path is authorized as it).
      const requestResource = {
        group: req.def.group,
        resource: req.def.resource,
        subresource,
        namespace: req.namespace,
        name: req.name,
      };
      activation ??= {
        object: object ? new ConvertedCelValue(object) : null,
        oldObject: oldObject ? new ConvertedCelValue(oldObject) : null,
        request: convertedFields(admissionRequestValue(req, object, oldObject)),
        namespaceObject: nsObject ? new ConvertedCelValue(nsObject) : null,
      };
      for (const param of params) {
        const outcome = await evaluatePolicy(
          policy,
          { ...activation, params: param ? convertedParam(param) : null },
          req.user,
          policy.usesAuthorizer ? deps.authorizer : undefined,
          requestResource,
        );
        if (outcome.skipped) continue;
        decisions.push(...outcome.decisions);
        for (const [key, value] of outcome.auditAnnotations) {
          const values = annotations.get(`${policy.name}/${key}`) ?? [];
          if (!values.includes(value)) values.push(value);
          annotations.set(`${policy.name}/${key}`, values);
        }
      }
      for (const decision of decisions) {
        const errorType =
          decision.evaluation !== 'error' ? 'no_error' : decision.outOfBudget ? 'out_of_budget' : 'invalid_error';
        if (decision.action === 'admit') {
          deps.metrics?.observe(policy.name, bindingName, errorType, 'allow', decision.elapsedSeconds);
          continue;
        }
        for (const action of actions) {
          if (action === 'Deny') denied.push({ policy: policy.name, binding: bindingName, decision });
          else if (action === 'Warn')
            req.warnings?.push(
              `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bindingName}': ${decision.message}`,
            );
          else if (action === 'Audit')
            auditFailure ??= JSON.stringify([
              {
                message: decision.message,
                policy: policy.name,
                binding: bindingName,
                expressionIndex: decision.expressionIndex,
                validationActions: actions,
              },
            ]);
          deps.metrics?.observe(policy.name, bindingName, errorType, action.toLowerCase(), decision.elapsedSeconds);
        }
      }
    }
    for (const [key, values] of annotations) req.annotate?.(key, values.join(', '));
    if (auditFailure !== undefined) req.annotate?.(VALIDATION_FAILURE_ANNOTATION, auditFailure);
    if (denied.length > 0) throw denial(req, denied[0]);
  }

  const checkParams = deps.authorizer ? createParamAuthorization(registry, deps.authorizer) : undefined;

  return {
    name: 'ValidatingAdmissionPolicy',
    handles: () => true,
    validate: (req) => {
      // Upstream exempts the admission configuration kinds, so no policy can lock out the way to change policies or
      // webhooks; what applies to them is the check that their authors may read the params they name.
      if (isExemptAdmissionConfigurationKind(req.def)) return checkParams?.(req) ?? Promise.resolve();
      // A write through a projection (`scale`) shows policies the projection, an autoscaling/v1 Scale, as upstream.
      const projection = req.subresource === '' ? undefined : req.def.projectionSubresources?.[req.subresource];
      if (!projection) return admit(req, req.object, req.oldObject, req.subresource);
      const old = req.oldObject ? projection.read(req.oldObject) : undefined;
      return admit(req, projection.read(req.object), old, req.subresource);
    },
    validateDelete: (req) =>
      isExemptAdmissionConfigurationKind(req.def) ? Promise.resolve() : admit(req, undefined, req.oldObject, ''),
  };
}

/** A map whose values are converted once: an expression's activation then converts only the map itself. */
function convertedFields(map: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(map)) out[key] = new ConvertedCelValue(map[key]);
  return out;
}

function isEmptySelector(selector: unknown): boolean {
  const s = asObj(selector);
  return !s || (asArr(s.matchExpressions).length === 0 && Object.keys(asObj(s.matchLabels) ?? {}).length === 0);
}

/** Upstream's refusal: admission.NewForbidden's message and details, with the validation's reason and its code. */
function denial(req: Request, denied: { policy: string; binding: string; decision: Decision }): StatusError {
  const message = `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}' denied request: ${denied.decision.message}`;
  const reason = (denied.decision.reason ?? 'Invalid') as StatusReason;
  const gr = { group: req.def.group, resource: req.def.resource };
  const what = req.name ? `${qualifiedResource(gr)} "${req.name}"` : qualifiedResource(gr);
  const details = {
    kind: req.def.resource,
    ...(req.name ? { name: req.name } : {}),
    ...(gr.group ? { group: gr.group } : {}),
    causes: [{ message }],
  };
  return new StatusError(CODES[reason] ?? 422, reason, `${what} is forbidden: ${message}`, details);
}
