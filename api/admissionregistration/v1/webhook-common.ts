// What ValidatingWebhookConfiguration and MutatingWebhookConfiguration share: the webhook's fields, their v1
// defaults (SetDefaults_ValidatingWebhook, SetDefaults_MutatingWebhook) and rules (upstream's
// validateValidatingWebhook, validateMutatingWebhook and the configuration around them), and the kind itself. The
// matchConditions' CEL is compiled by the gateway at write time (gateway/admission/policy/expression-check.ts).
import type { KindDefinition } from '../../scheme.js';
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { dns1035Label, dns1123Subdomain } from '../../meta/validation.js';
import { kindSchema, labelSelectorSchema } from '../../common/object-meta.js';
import type { JSONSchema } from '../../schema.js';
import { arr, describe, enumStr, int32, mapList, named, obj, str, stringList } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asArr, asObj, asStr, type Obj, root, validateLabelSelector } from '../../common/validation-helpers.js';
import { ageColumn, integerColumn } from '../../common/printers.js';
import {
  ADMISSIONREGISTRATION_GROUP,
  ADMISSIONREGISTRATION_GROUP_ALIASES,
  defaultRuleScope,
  FAILURE_POLICIES,
  MATCH_POLICIES,
  matchConditionSchema,
  ruleWithOperationsSchema,
  validateMatchConditions,
  validateRuleWithOperations,
} from './admission-common.js';
import { defaultClientConfig, validateClientConfig, webhookClientConfigSchema } from './webhook-client-config.js';

const DEF = 'io.platform.api.admissionregistration.v1';
export const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
/** What v1 accepts: Some and Unknown exist only for webhooks written through v1beta1. */
export const NO_SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun'];
export const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];
export const DEFAULT_TIMEOUT_SECONDS = 10;

/** The fields both webhook types have, in upstream's order. */
function webhookProperties(): Record<string, JSONSchema> {
  return {
    name: str(
      'The name of the admission webhook. Name should be fully qualified, e.g., imagepolicy.kubernetes.io, where "imagepolicy" is the name of the webhook, and kubernetes.io is the name of the organization. Required.',
    ),
    clientConfig: describe(
      webhookClientConfigSchema,
      'ClientConfig defines how to communicate with the hook. Required',
    ),
    rules: arr(
      ruleWithOperationsSchema,
      'Rules describes what operations on what resources/subresources the webhook cares about. The webhook cares about an operation if it matches _any_ Rule. Webhooks are never called on admission requests for ValidatingWebhookConfiguration and MutatingWebhookConfiguration objects.',
      'atomic',
    ),
    failurePolicy: enumStr(
      FAILURE_POLICIES,
      'FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed values are Ignore or Fail. Defaults to Fail.',
    ),
    matchPolicy: enumStr(
      MATCH_POLICIES,
      'matchPolicy defines how the "rules" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent". Exact matches a request only if it exactly matches a specified rule; Equivalent also matches a request that modifies a resource listed in rules through another API group or version. Defaults to "Equivalent"',
    ),
    namespaceSelector: describe(
      labelSelectorSchema,
      'NamespaceSelector decides whether to run the webhook on an object based on whether the namespace for that object matches the selector. If the object itself is a namespace, the matching is performed on object.metadata.labels. If the object is another cluster scoped resource, it never skips the webhook. Default to the empty LabelSelector, which matches everything.',
    ),
    objectSelector: describe(
      labelSelectorSchema,
      'ObjectSelector decides whether to run the webhook based on if the object has matching labels. objectSelector is evaluated against both the oldObject and newObject that would be sent to the webhook, and is considered to match if either object matches the selector. Default to the empty LabelSelector, which matches everything.',
    ),
    sideEffects: enumStr(
      SIDE_EFFECT_CLASSES,
      'SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun (webhooks created via v1beta1 may also specify Some or Unknown). Requests with the dryRun attribute will be auto-rejected if they match a webhook with sideEffects == Unknown or Some.',
    ),
    timeoutSeconds: int32(
      'TimeoutSeconds specifies the timeout for this webhook. After the timeout passes, the webhook call will be ignored or the API call will fail based on the failure policy. The timeout value must be between 1 and 30 seconds. Default to 10 seconds.',
    ),
    admissionReviewVersions: stringList(
      'AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects. API server will try to use first version in the list which it supports. If none of the versions specified in this list supported by API server, validation will fail for this object.',
      'atomic',
    ),
    matchConditions: mapList(
      matchConditionSchema,
      'name',
      'MatchConditions is a list of conditions that must be met for a request to be sent to this webhook. Match conditions filter requests that have already been matched by the rules, namespaceSelector, and objectSelector. An empty list of matchConditions matches all requests. There are a maximum of 64 match conditions allowed.',
    ),
  };
}

const REQUIRED_WEBHOOK_FIELDS = ['name', 'clientConfig', 'sideEffects', 'admissionReviewVersions'];

/** Upstream's IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function validateFullyQualifiedName(name: string, at: FieldPath): FieldError[] {
  if (name === '') return [fieldErrors.required(at)];
  const problems = dns1123Subdomain(name);
  if (problems.length > 0) return [fieldErrors.invalid(at, name, problems.join(','))];
  if (name.split('.').length < 3)
    return [fieldErrors.invalid(at, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

function validateAdmissionReviewVersions(raw: unknown, at: FieldPath): FieldError[] {
  const versions = asArr(raw);
  if (versions.length === 0)
    return [fieldErrors.required(at, `must specify one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<unknown>();
  versions.forEach((v, i) => {
    if (seen.has(v)) errs.push(fieldErrors.duplicate(at.index(i), v));
    seen.add(v);
    for (const p of dns1035Label(asStr(v) ?? '')) errs.push(fieldErrors.invalid(at.index(i), v, p));
  });
  if (!versions.some((v) => ADMISSION_REVIEW_VERSIONS.includes(asStr(v) ?? '')))
    errs.push(
      fieldErrors.invalid(at, versions, `must include at least one of ${ADMISSION_REVIEW_VERSIONS.join(', ')}`),
    );
  return errs;
}

function validateSideEffects(sideEffects: unknown, at: FieldPath): FieldError[] {
  if (sideEffects === undefined)
    return [fieldErrors.required(at, `must specify one of ${NO_SIDE_EFFECT_CLASSES.join(', ')}`)];
  const errs: FieldError[] = [];
  const value = asStr(sideEffects) ?? '';
  if (!SIDE_EFFECT_CLASSES.includes(value)) errs.push(fieldErrors.notSupported(at, sideEffects, SIDE_EFFECT_CLASSES));
  if (!NO_SIDE_EFFECT_CLASSES.includes(value))
    errs.push(fieldErrors.notSupported(at, sideEffects, NO_SIDE_EFFECT_CLASSES));
  return errs;
}

function validateEnum(value: unknown, allowed: string[], at: FieldPath): FieldError[] {
  return value === undefined || allowed.includes(asStr(value) ?? '')
    ? []
    : [fieldErrors.notSupported(at, value, allowed)];
}

/** One webhook, in upstream's order of checks. */
function validateWebhook(hook: Obj, at: FieldPath): FieldError[] {
  const errs = validateFullyQualifiedName(asStr(hook.name) ?? '', at.child('name'));
  asArr(hook.rules).forEach((rule, i) =>
    errs.push(...validateRuleWithOperations(asObj(rule) ?? {}, at.child('rules').index(i))),
  );
  errs.push(...validateEnum(hook.failurePolicy, FAILURE_POLICIES, at.child('failurePolicy')));
  errs.push(...validateEnum(hook.matchPolicy, MATCH_POLICIES, at.child('matchPolicy')));
  for (const selector of ['namespaceSelector', 'objectSelector'])
    errs.push(...validateLabelSelector(hook[selector], at.child(selector)));
  errs.push(...validateSideEffects(hook.sideEffects, at.child('sideEffects')));
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout < 1 || timeout > 30))
    errs.push(
      fieldErrors.invalid(at.child('timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'),
    );
  errs.push(...validateClientConfig(hook.clientConfig, at.child('clientConfig')));
  errs.push(...validateMatchConditions(hook.matchConditions, at.child('matchConditions')));
  return errs;
}

function defaultWebhook(hook: Obj): void {
  hook.failurePolicy ??= 'Fail';
  hook.matchPolicy ??= 'Equivalent';
  hook.namespaceSelector ??= {};
  hook.objectSelector ??= {};
  hook.timeoutSeconds ??= DEFAULT_TIMEOUT_SECONDS;
  asArr(hook.rules).forEach(defaultRuleScope);
  defaultClientConfig(hook.clientConfig);
}

export interface WebhookConfigurationOptions {
  kind: string;
  resource: string;
  description: string;
  webhookDescription: string;
  /** Fields only this webhook type has, with their defaults and rules. */
  extra?: {
    properties: Record<string, JSONSchema>;
    defaults: (hook: Obj) => void;
    validate: (hook: Obj, at: FieldPath) => FieldError[];
  };
}

/** A webhook configuration kind: cluster-scoped, named as a DNS subdomain, a map list of webhooks keyed by name. */
export function webhookConfigurationKind(o: WebhookConfigurationOptions): KindDefinition {
  const webhookKind = o.kind.replace(/Configuration$/, '');
  const webhookSchema = named(
    `${DEF}.${webhookKind}`,
    obj({ ...webhookProperties(), ...o.extra?.properties }, o.webhookDescription, REQUIRED_WEBHOOK_FIELDS),
  );
  const validate = (config: KObject): FieldError[] => {
    const errs = validateMetadata(config, false, 'subdomain');
    const names = new Set<string>();
    asArr(config.webhooks).forEach((raw, i) => {
      const hook = asObj(raw) ?? {};
      const at = root('webhooks').index(i);
      errs.push(...validateWebhook(hook, at));
      if (o.extra) errs.push(...o.extra.validate(hook, at));
      errs.push(...validateAdmissionReviewVersions(hook.admissionReviewVersions, at.child('admissionReviewVersions')));
      const name = asStr(hook.name) ?? '';
      if (name !== '' && names.has(name)) errs.push(fieldErrors.duplicate(at.child('name'), name));
      names.add(name);
    });
    return errs;
  };
  return {
    group: ADMISSIONREGISTRATION_GROUP,
    version: 'v1',
    kind: o.kind,
    resource: o.resource,
    singular: o.resource.replace(/s$/, ''),
    namespaced: false,
    categories: ['api-extensions'],
    groupAliases: ADMISSIONREGISTRATION_GROUP_ALIASES,
    statusSubresource: false,
    tracksGeneration: true,
    schema: kindSchema({
      group: ADMISSIONREGISTRATION_GROUP,
      version: 'v1',
      kind: o.kind,
      description: o.description,
      properties: {
        webhooks: mapList(
          webhookSchema,
          'name',
          'Webhooks is a list of webhooks and the affected resources and operations.',
        ),
      },
    }),
    defaults: (config) => {
      for (const raw of asArr(config.webhooks)) {
        const hook = asObj(raw);
        if (!hook) continue;
        defaultWebhook(hook);
        o.extra?.defaults(hook);
      }
    },
    validate,
    tableColumns: [
      integerColumn('Webhooks', 'Webhooks indicates the number of webhooks.', (c) => asArr(c.webhooks).length),
      ageColumn,
    ],
  };
}
