// ValidatingAdmissionPolicyBinding: puts a ValidatingAdmissionPolicy in force, with its parameters, a narrowing of
// the resources it matches, and what a failed validation does (Deny, Warn, Audit). admissionregistration.k8s.io/v1.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema, labelSelectorSchema } from '../../common/object-meta.js';
import { describe, enumStr, named, obj, str, stringList } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asArr, asObj, asStr, root, specOf, validateLabelSelector } from '../../common/validation-helpers.js';
import { dns1123Subdomain } from '../../meta/validation.js';
import { ageColumn, column, formatLabelSelector } from '../../common/printers.js';
import {
  ADMISSIONREGISTRATION_GROUP,
  ADMISSIONREGISTRATION_GROUP_ALIASES,
  defaultMatchResources,
  matchResourcesSchema,
  validateMatchResources,
} from './admission-common.js';

export const VALIDATION_ACTIONS = ['Deny', 'Warn', 'Audit'];
export const PARAMETER_NOT_FOUND_ACTIONS = ['Allow', 'Deny'];

const specSchema = obj(
  {
    policyName: str(
      'PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to. Required.',
    ),
    paramRef: named(
      'io.platform.api.admissionregistration.v1.ParamRef',
      obj(
        {
          name: str('name is the name of the resource being referenced. One of `name` or `selector` must be set.'),
          namespace: str('namespace is the namespace of the referenced resource.'),
          selector: describe(
            labelSelectorSchema,
            'selector can be used to match multiple param objects based on their labels. One of `name` or `selector` must be set.',
          ),
          parameterNotFoundAction: enumStr(
            PARAMETER_NOT_FOUND_ACTIONS,
            '`parameterNotFoundAction` controls the behavior of the binding when the resource exists, and name or selector is valid, but there are no parameters matched by the binding. Allowed values are `Allow` or `Deny`. Required.',
          ),
        },
        'ParamRef describes how to locate the params to be used as input to expressions of rules applied by a policy binding.',
      ),
    ),
    matchResources: describe(
      matchResourcesSchema,
      "MatchResources declares what resources match this binding and will be validated by it. Note that this is intersected with the policy's matchConstraints.",
    ),
    validationActions: stringList(
      'validationActions declares how Validations of the referenced ValidatingAdmissionPolicy are enforced. Allowed values: Deny, Warn, Audit. Required.',
      'set',
    ),
  },
  'ValidatingAdmissionPolicyBindingSpec is the specification of the ValidatingAdmissionPolicyBinding.',
);

function validateBinding(binding: KObject): FieldError[] {
  const spec = specOf(binding);
  const at = root('spec');
  const errs = validateMetadata(binding, false, 'subdomain');
  const policyName = asStr(spec.policyName) ?? '';
  if (policyName === '') errs.push(fieldErrors.required(at.child('policyName')));
  else
    for (const p of dns1123Subdomain(policyName)) errs.push(fieldErrors.invalid(at.child('policyName'), policyName, p));

  const paramRef = asObj(spec.paramRef);
  if (paramRef) {
    const refAt = at.child('paramRef');
    const name = asStr(paramRef.name) ?? '';
    if (name !== '' && paramRef.selector !== undefined)
      errs.push(fieldErrors.forbidden(refAt.child('name'), '`name` and `selector` are mutually exclusive'));
    if (name === '' && paramRef.selector === undefined)
      errs.push(fieldErrors.required(refAt, 'one of `name` or `selector` must be set'));
    if (paramRef.selector !== undefined)
      errs.push(...validateLabelSelector(paramRef.selector, refAt.child('selector')));
    const action = paramRef.parameterNotFoundAction;
    if (action === undefined) errs.push(fieldErrors.required(refAt.child('parameterNotFoundAction')));
    else if (!PARAMETER_NOT_FOUND_ACTIONS.includes(asStr(action) ?? ''))
      errs.push(fieldErrors.notSupported(refAt.child('parameterNotFoundAction'), action, PARAMETER_NOT_FOUND_ACTIONS));
  }
  errs.push(...validateMatchResources(spec.matchResources, at.child('matchResources'), false));

  const actionsAt = at.child('validationActions');
  const actions = asArr(spec.validationActions);
  if (actions.length === 0) errs.push(fieldErrors.required(actionsAt, 'at least one validation action is required'));
  const seen = new Set<unknown>();
  actions.forEach((action, i) => {
    if (seen.has(action)) errs.push(fieldErrors.duplicate(actionsAt.index(i), action));
    seen.add(action);
    if (!VALIDATION_ACTIONS.includes(asStr(action) ?? ''))
      errs.push(fieldErrors.notSupported(actionsAt.index(i), action, VALIDATION_ACTIONS));
  });
  if (seen.has('Deny') && seen.has('Warn'))
    errs.push(
      fieldErrors.invalid(
        actionsAt,
        actions,
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  return errs;
}

function defaults(binding: KObject): void {
  const spec = asObj(binding.spec);
  if (!spec) return;
  const match = asObj(spec.matchResources);
  if (match) defaultMatchResources(match);
}

/** The PARAMREF cell, as upstream prints it: `<ns>/<name>`, `*\/<name>` without a namespace, or the selector. */
export function paramRefCell(binding: KObject): string {
  const ref = asObj(specOf(binding).paramRef);
  if (!ref) return '<unset>';
  const name = asStr(ref.name) ?? '';
  if (name !== '') return `${asStr(ref.namespace) || '*'}/${name}`;
  return ref.selector !== undefined ? formatLabelSelector(ref.selector) : '<unset>';
}

export const validatingAdmissionPolicyBinding: KindDefinition = {
  group: ADMISSIONREGISTRATION_GROUP,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  resource: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding',
  namespaced: false,
  categories: ['api-extensions'],
  groupAliases: ADMISSIONREGISTRATION_GROUP_ALIASES,
  statusSubresource: false,
  tracksGeneration: true,
  schema: kindSchema({
    group: ADMISSIONREGISTRATION_GROUP,
    version: 'v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    description:
      'ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources. ValidatingAdmissionPolicyBinding and parameter CRDs together define how cluster administrators configure policies for clusters.',
    properties: {
      spec: describe(specSchema, 'Specification of the desired behavior of the ValidatingAdmissionPolicyBinding.'),
    },
  }),
  defaults,
  validate: validateBinding,
  tableColumns: [
    column(
      'PolicyName',
      'PolicyName indicates the policy definition which the policy binding binded to.',
      (b) => asStr(specOf(b).policyName) ?? '',
    ),
    column('ParamRef', 'ParamRef indicates the param resource which sets the configration param', paramRefCell),
    ageColumn,
  ],
};
