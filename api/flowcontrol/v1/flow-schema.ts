// FlowSchema: which requests (by subject, verb and target) go to which priority level, and how they are told apart
// into flows. Fields, defaults, rules, columns and wire form are flowcontrol.apiserver.k8s.io/v1's.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { canonicalJson } from '../../meta/canonical-json.js';
import { kindSchema } from '../../common/object-meta.js';
import { arr, describe, enumStr, int32, named, obj } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asArr, asObj, asStr, type Obj, root, specOf, statusOf } from '../../common/validation-helpers.js';
import { dns1123Subdomain } from '../../meta/validation.js';
import { ageColumn, column } from '../../common/printers.js';
import {
  EXEMPT_NAME,
  FLOWCONTROL_DEF,
  FLOWCONTROL_GROUP,
  FLOWCONTROL_GROUP_ALIASES,
  statusSchema,
  validateConditions,
} from './flowcontrol-common.js';
import { MANDATORY_FLOW_SCHEMAS } from './bootstrap-configuration.js';
import { nameOnly, policyRulesWithSubjectsSchema, validatePolicyRules } from './policy-rules.js';

export const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
export const DEFAULT_MATCHING_PRECEDENCE = 1000;
export const MAX_MATCHING_PRECEDENCE = 10000;
export const DANGLING_CONDITION = 'Dangling';

const specSchema = obj(
  {
    priorityLevelConfiguration: nameOnly(
      'PriorityLevelConfigurationReference',
      '`name` is the name of the priority level configuration being referenced Required.',
      '`priorityLevelConfiguration` should reference a PriorityLevelConfiguration in the cluster. Required.',
    ),
    matchingPrecedence: int32(
      '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. Each value must be ranged in [1,10000]; 1000 when not specified.',
    ),
    distinguisherMethod: named(
      `${FLOWCONTROL_DEF}.FlowDistinguisherMethod`,
      obj(
        {
          type: enumStr(DISTINGUISHER_METHODS, '`type` is the type of flow distinguisher method. Required.'),
        },
        '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.',
        ['type'],
      ),
    ),
    rules: arr(
      policyRulesWithSubjectsSchema,
      '`rules` describes which requests will match this flow schema.',
      'atomic',
    ),
  },
  "FlowSchemaSpec describes how the FlowSchema's specification looks like.",
  ['priorityLevelConfiguration'],
);

function validateSpec(name: string, spec: Obj): FieldError[] {
  const at = root('spec');
  const errs: FieldError[] = [];
  const precedence = spec.matchingPrecedence;
  const precedenceAt = at.child('matchingPrecedence');
  if (typeof precedence === 'number') {
    if (precedence <= 0) errs.push(fieldErrors.invalid(precedenceAt, precedence, 'must be a positive value'));
    if (precedence > MAX_MATCHING_PRECEDENCE)
      errs.push(fieldErrors.invalid(precedenceAt, precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
    if (precedence === 1 && name !== EXEMPT_NAME)
      errs.push(
        fieldErrors.invalid(precedenceAt, precedence, "only the schema named 'exempt' may have matchingPrecedence 1"),
      );
  }
  const method = asObj(spec.distinguisherMethod);
  if (method && !DISTINGUISHER_METHODS.includes(asStr(method.type) ?? ''))
    errs.push(
      fieldErrors.notSupported(at.child('distinguisherMethod').child('type'), method.type ?? '', DISTINGUISHER_METHODS),
    );
  const levelAt = at.child('priorityLevelConfiguration').child('name');
  const level = asStr(asObj(spec.priorityLevelConfiguration)?.name) ?? '';
  if (level === '') errs.push(fieldErrors.required(levelAt, 'must reference a priority level'));
  else for (const msg of dns1123Subdomain(level)) errs.push(fieldErrors.invalid(levelAt, level, msg));
  asArr(spec.rules).forEach((r, i) => errs.push(...validatePolicyRules(asObj(r) ?? {}, at.child('rules').index(i))));
  return errs;
}

function validateFlowSchema(fs: KObject): FieldError[] {
  const name = fs.metadata.name ?? '';
  const errs = [...validateMetadata(fs, false, 'subdomain'), ...validateSpec(name, specOf(fs))];
  const mandatory = MANDATORY_FLOW_SCHEMAS.find((m) => m.metadata.name === name);
  // Upstream compares with the fixed value exactly: the server depends on these two schemas as defined.
  if (mandatory && canonicalJson(fs.spec) !== canonicalJson(defaultedSpec(mandatory)))
    errs.push(fieldErrors.invalid(root('spec'), fs.spec, `spec of '${name}' must equal the fixed value`));
  errs.push(...validateConditions(fs));
  return errs;
}

function defaults(fs: KObject): void {
  const spec = asObj(fs.spec);
  if (!spec) return;
  // Go's zero value is "unset" for this int32: an explicit 0 is defaulted too.
  if (spec.matchingPrecedence === undefined || spec.matchingPrecedence === 0)
    spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE;
}

function defaultedSpec(fs: KObject): unknown {
  const copy = structuredClone(fs);
  defaults(copy);
  return copy.spec;
}

/** MISSINGPL: the status of the Dangling condition, `?` before the server has judged the reference. */
export function missingLevelCell(fs: KObject): string {
  const dangling = asArr(statusOf(fs).conditions).find((c) => asObj(c)?.type === DANGLING_CONDITION);
  return asStr(asObj(dangling)?.status) ?? '?';
}

export const flowSchema: KindDefinition = {
  group: FLOWCONTROL_GROUP,
  version: 'v1',
  kind: 'FlowSchema',
  resource: 'flowschemas',
  singular: 'flowschema',
  namespaced: false,
  groupAliases: FLOWCONTROL_GROUP_ALIASES,
  statusSubresource: true,
  tracksGeneration: true,
  schema: kindSchema({
    group: FLOWCONTROL_GROUP,
    version: 'v1',
    kind: 'FlowSchema',
    description:
      'FlowSchema defines the schema of a group of flows. Note that a flow is made up of a set of inbound API requests with similar attributes and is identified by a pair of strings: the name of the FlowSchema and a "flow distinguisher".',
    properties: {
      spec: describe(specSchema, '`spec` is the specification of the desired behavior of a FlowSchema.'),
      status: statusSchema('FlowSchema', 'FlowSchemaStatus represents the current state of a FlowSchema.'),
    },
  }),
  defaults,
  validate: validateFlowSchema,
  validateStatusUpdate: (fs) => validateConditions(fs),
  tableColumns: [
    column(
      'PriorityLevel',
      '`name` is the name of the priority level configuration being referenced Required.',
      (fs) => asStr(asObj(specOf(fs).priorityLevelConfiguration)?.name) ?? '',
    ),
    column(
      'MatchingPrecedence',
      '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.',
      (fs) => specOf(fs).matchingPrecedence ?? 0,
    ),
    column(
      'DistinguisherMethod',
      '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.',
      (fs) => asStr(asObj(specOf(fs).distinguisherMethod)?.type) ?? '<none>',
    ),
    ageColumn,
    column('MissingPL', 'references a broken or non-existent PriorityLevelConfiguration', missingLevelCell),
  ],
};
