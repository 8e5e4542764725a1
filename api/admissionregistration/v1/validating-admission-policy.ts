// ValidatingAdmissionPolicy: CEL validations run in admission against the writes its matchConstraints select, once
// a binding puts it in force. Rules, defaults, columns and wire form are admissionregistration.k8s.io/v1's; the CEL
// expressions are compiled by the gateway at write time (see admission-common.ts).
import type { KindDefinition } from '../../scheme.js';
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema } from '../../common/object-meta.js';
import { arr, describe, enumStr, int64, mapList, named, obj, str } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asArr, asObj, asStr, type Obj, root, specOf } from '../../common/validation-helpers.js';
import { qualifiedName } from '../../meta/validation.js';
import { ageColumn, column, integerColumn } from '../../common/printers.js';
import {
  ADMISSIONREGISTRATION_GROUP,
  ADMISSIONREGISTRATION_GROUP_ALIASES,
  defaultMatchResources,
  FAILURE_POLICIES,
  matchConditionSchema,
  matchResourcesSchema,
  validateMatchConditions,
  validateMatchResources,
} from './admission-common.js';

const DEF = 'io.platform.api.admissionregistration.v1';
export const VALIDATION_REASONS = ['Unauthorized', 'Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

const expressionPair = (nameField: string, nameHelp: string, exprField: string, exprHelp: string, help: string) =>
  obj({ [nameField]: str(nameHelp), [exprField]: str(exprHelp) }, help, [nameField, exprField]);

const specSchema = obj(
  {
    paramKind: named(
      `${DEF}.ParamKind`,
      obj(
        {
          apiVersion: str('APIVersion is the API group version the resources belong to. In format of "group/version".'),
          kind: str('Kind is the API kind the resources belong to.'),
        },
        'ParamKind is a tuple of Group Kind and Version.',
      ),
    ),
    matchConstraints: describe(
      matchResourcesSchema,
      'MatchConstraints specifies what resources this policy is designed to validate. Required.',
    ),
    validations: arr(
      named(
        `${DEF}.Validation`,
        obj(
          {
            expression: str('Expression represents the expression which will be evaluated by CEL. Required.'),
            message: str('Message represents the message displayed when validation fails.'),
            reason: str(
              'Reason represents a machine-readable description of why this validation failed. Supported values: "Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge".',
            ),
            messageExpression: str(
              'messageExpression declares a CEL expression that evaluates to the validation failure message that is returned when this rule fails.',
            ),
          },
          'Validation specifies the CEL expression which is used to apply the validation.',
          ['expression'],
        ),
      ),
      'Validations contain CEL expressions which is used to apply the validation.',
      'atomic',
    ),
    failurePolicy: enumStr(
      FAILURE_POLICIES,
      'failurePolicy defines how to handle failures for the admission policy. Allowed values are Ignore or Fail. Defaults to Fail.',
    ),
    auditAnnotations: arr(
      named(
        `${DEF}.AuditAnnotation`,
        expressionPair(
          'key',
          'key specifies the audit annotation key. The audit annotation keys of a ValidatingAdmissionPolicy must be unique.',
          'valueExpression',
          'valueExpression represents the expression which is evaluated by CEL to produce an audit annotation value.',
          'AuditAnnotation describes how to produce an audit annotation for an API request.',
        ),
      ),
      'auditAnnotations contains CEL expressions which are used to produce audit annotations for the audit event of the API request.',
      'atomic',
    ),
    matchConditions: mapList(
      matchConditionSchema,
      'name',
      'MatchConditions is a list of conditions that must be met for a request to be validated.',
    ),
    variables: arr(
      named(
        `${DEF}.Variable`,
        expressionPair(
          'name',
          'Name is the name of the variable. The name must be a valid CEL identifier and unique among all variables.',
          'expression',
          'Expression is the expression that will be evaluated as the value of the variable.',
          'Variable is the definition of a variable that is used for composition.',
        ),
      ),
      'Variables contain definitions of variables that can be used in composition of other expressions.',
      'atomic',
    ),
  },
  'ValidatingAdmissionPolicySpec is the specification of the desired behavior of the AdmissionPolicy.',
);

const statusSchema = obj(
  {
    observedGeneration: int64('The generation observed by the controller.'),
    typeChecking: obj(
      {
        expressionWarnings: arr(
          obj(
            {
              fieldRef: str('The path to the field that refers the expression.'),
              warning: str('The content of type checking information in a human-readable form.'),
            },
            'ExpressionWarning is a warning information that targets a specific expression.',
            ['fieldRef', 'warning'],
          ),
          'The type checking warnings for each expression.',
          'atomic',
        ),
      },
      'The results of type checking for each expression.',
    ),
    conditions: arr(
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      "The conditions represent the latest available observations of a policy's current state.",
    ),
  },
  'ValidatingAdmissionPolicyStatus represents the status of an admission validation policy.',
);

function validateNamedExpressions(
  items: unknown[],
  at: FieldPath,
  nameField: string,
  checkName: (name: string) => string[],
): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  items.forEach((raw, i) => {
    const item = asObj(raw) ?? {};
    const name = asStr(item[nameField]) ?? '';
    const nameAt = at.index(i).child(nameField);
    if (name === '') errs.push(fieldErrors.required(nameAt));
    else {
      for (const p of checkName(name)) errs.push(fieldErrors.invalid(nameAt, name, p));
      if (seen.has(name)) errs.push(fieldErrors.duplicate(nameAt, name));
      seen.add(name);
    }
  });
  return errs;
}

function validateSpec(spec: Obj): FieldError[] {
  const at = root('spec');
  const errs: FieldError[] = [];
  const failurePolicy = spec.failurePolicy;
  if (failurePolicy !== undefined && !FAILURE_POLICIES.includes(asStr(failurePolicy) ?? ''))
    errs.push(fieldErrors.notSupported(at.child('failurePolicy'), failurePolicy, FAILURE_POLICIES));
  const paramKind = asObj(spec.paramKind);
  if (paramKind) {
    const pkAt = at.child('paramKind');
    const apiVersion = asStr(paramKind.apiVersion) ?? '';
    if (apiVersion === '') errs.push(fieldErrors.required(pkAt.child('apiVersion')));
    else if (apiVersion.split('/').length > 2 || apiVersion.endsWith('/') || apiVersion.startsWith('/'))
      errs.push(fieldErrors.invalid(pkAt.child('apiVersion'), apiVersion, 'must be a valid group/version'));
    if ((asStr(paramKind.kind) ?? '') === '') errs.push(fieldErrors.required(pkAt.child('kind')));
  }
  errs.push(...validateMatchResources(spec.matchConstraints, at.child('matchConstraints'), true));

  const validations = asArr(spec.validations);
  const auditAnnotations = asArr(spec.auditAnnotations);
  if (validations.length === 0 && auditAnnotations.length === 0)
    errs.push(
      fieldErrors.required(at.child('validations'), 'validations or auditAnnotations must contain at least one item'),
    );
  validations.forEach((raw, i) => {
    const v = asObj(raw) ?? {};
    const vAt = at.child('validations').index(i);
    if ((asStr(v.expression) ?? '').trim() === '') errs.push(fieldErrors.required(vAt.child('expression')));
    const message = asStr(v.message);
    if (message !== undefined && message.trim() === '' && message !== '')
      errs.push(fieldErrors.invalid(vAt.child('message'), message, 'message must be non-empty if specified'));
    if (message !== undefined && /[\r\n]/.test(message))
      errs.push(fieldErrors.invalid(vAt.child('message'), message, 'message must not contain line breaks'));
    if (v.reason !== undefined && !VALIDATION_REASONS.includes(asStr(v.reason) ?? ''))
      errs.push(fieldErrors.notSupported(vAt.child('reason'), v.reason, VALIDATION_REASONS));
  });
  // The annotation lands in the audit event as `<policy name>/<key>`, which must be a qualified name itself.
  errs.push(
    ...validateNamedExpressions(auditAnnotations, at.child('auditAnnotations'), 'key', (key) =>
      qualifiedName(`x/${key}`),
    ),
  );
  auditAnnotations.forEach((raw, i) => {
    if ((asStr(asObj(raw)?.valueExpression) ?? '').trim() === '')
      errs.push(fieldErrors.required(at.child('auditAnnotations').index(i).child('valueExpression')));
  });
  errs.push(...validateMatchConditions(spec.matchConditions, at.child('matchConditions')));
  errs.push(
    ...validateNamedExpressions(asArr(spec.variables), at.child('variables'), 'name', (name) =>
      CEL_IDENTIFIER.test(name) ? [] : ['name is not a valid CEL identifier'],
    ),
  );
  asArr(spec.variables).forEach((raw, i) => {
    if ((asStr(asObj(raw)?.expression) ?? '').trim() === '')
      errs.push(fieldErrors.required(at.child('variables').index(i).child('expression')));
  });
  return errs;
}

function defaults(policy: KObject): void {
  const spec = asObj(policy.spec);
  if (!spec) return;
  spec.failurePolicy ??= 'Fail';
  const match = asObj(spec.matchConstraints);
  if (match) defaultMatchResources(match);
}

/** The PARAMKIND cell: `<apiVersion>/<kind>`, `<unset>` without one. */
export function paramKindCell(policy: KObject): string {
  const pk = asObj(specOf(policy).paramKind);
  return pk ? `${asStr(pk.apiVersion) ?? ''}/${asStr(pk.kind) ?? ''}` : '<unset>';
}

export const validatingAdmissionPolicy: KindDefinition = {
  group: ADMISSIONREGISTRATION_GROUP,
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  resource: 'validatingadmissionpolicies',
  singular: 'validatingadmissionpolicy',
  namespaced: false,
  categories: ['api-extensions'],
  groupAliases: ADMISSIONREGISTRATION_GROUP_ALIASES,
  statusSubresource: true,
  tracksGeneration: true,
  schema: kindSchema({
    group: ADMISSIONREGISTRATION_GROUP,
    version: 'v1',
    kind: 'ValidatingAdmissionPolicy',
    description:
      'ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.',
    properties: {
      spec: describe(specSchema, 'Specification of the desired behavior of the ValidatingAdmissionPolicy.'),
      status: describe(statusSchema, 'The status of the ValidatingAdmissionPolicy.'),
    },
  }),
  defaults,
  validate: (policy) => [...validateMetadata(policy, false, 'subdomain'), ...validateSpec(specOf(policy))],
  tableColumns: [
    integerColumn(
      'Validations',
      'Validations indicates the number of validation rules.',
      (p) => asArr(specOf(p).validations).length,
    ),
    column('ParamKind', 'ParamKind specifies the kind of resources used to parameterize this policy', paramKindCell),
    ageColumn,
  ],
};
