// ValidateCustomResourceDefinition, its update and status counterparts (upstream's apiextensions validation.go):
// names, group, scope, versions, conversion, the API approval of protected groups and storedVersions. Each problem is
// one field error; the registry answers them together in one 422. The CEL rules of the schemas are compiled by the
// gateway (gateway/apiextensions/rule-compilation.ts).
import type { KObject } from '../../meta/types.js';
import { fieldErrors, FieldPath, type FieldError } from '../../meta/field-errors.js';
import { asArr, asObj, asStr, root, type Obj } from '../../common/validation-helpers.js';
import { dns1035Label, dns1123Subdomain, validateObjectMeta } from '../../meta/validation.js';
import { CONVERSION_STRATEGIES, crdSpecOf, namesOf, SCOPES, storedVersionsOf, versionsOf } from './crd-types.js';
import { validateVersion } from './version-validation.js';
import { approvalAnnotationProblem } from './api-approval.js';
import { validateClientConfig } from '../../common/webhook-client-config.js';

export const crdName = (plural: string, group: string): string => `${plural}.${group}`;

/** ValidateCustomResourceDefinitionNames: spec.names and status.acceptedNames alike. */
export function validateNames(raw: unknown, at: FieldPath): FieldError[] {
  const n = namesOf(raw);
  const errs: FieldError[] = [];
  const label = (value: string, fieldAt: FieldPath, prefix = '') => {
    const problems = dns1035Label(prefix ? value.toLowerCase() : value);
    if (value !== '' && problems.length > 0)
      errs.push(fieldErrors.invalid(fieldAt, value, prefix + problems.join(',')));
  };
  label(n.plural, at.child('plural'));
  label(n.singular, at.child('singular'));
  label(n.kind, at.child('kind'), 'may have mixed case, but should otherwise match: ');
  label(n.listKind, at.child('listKind'), 'may have mixed case, but should otherwise match: ');
  n.shortNames.forEach((s, i) => label(s, at.child('shortNames').index(i)));
  if (n.kind !== '' && n.kind === n.listKind)
    errs.push(fieldErrors.invalid(at.child('listKind'), n.listKind, 'kind and listKind may not be the same'));
  n.categories.forEach((c, i) => label(c, at.child('categories').index(i)));
  return errs;
}

function validateConversion(raw: unknown, at: FieldPath): FieldError[] {
  const conversion = asObj(raw);
  if (!conversion) return [];
  const errs: FieldError[] = [];
  const strategy = asStr(conversion.strategy) ?? '';
  if (strategy === '') errs.push(fieldErrors.required(at.child('strategy'), ''));
  else if (!CONVERSION_STRATEGIES.includes(strategy))
    errs.push(fieldErrors.notSupported(at.child('strategy'), strategy, CONVERSION_STRATEGIES));
  const webhook = asObj(conversion.webhook);
  const webhookAt = at.child('webhook');
  if (strategy !== 'Webhook') {
    if (webhook) errs.push(fieldErrors.forbidden(webhookAt, 'should not be set when strategy is not set to Webhook'));
    return errs;
  }
  if (!webhook) return [...errs, fieldErrors.required(webhookAt, 'required when strategy is set to Webhook')];
  if (!asObj(webhook.clientConfig))
    errs.push(fieldErrors.required(webhookAt.child('clientConfig'), 'required when strategy is set to Webhook'));
  else errs.push(...validateClientConfig(webhook.clientConfig, webhookAt.child('clientConfig')));
  errs.push(
    ...validateReviewVersions(asArr(webhook.conversionReviewVersions), webhookAt.child('conversionReviewVersions')),
  );
  return errs;
}

const KNOWN_REVIEW_VERSIONS = ['v1', 'v1beta1'];

function validateReviewVersions(versions: unknown[], at: FieldPath): FieldError[] {
  if (versions.length === 0) return [fieldErrors.required(at, 'must specify one of v1, v1beta1')];
  const errs: FieldError[] = [];
  const seen = new Set<unknown>();
  versions.forEach((v, i) => {
    if (seen.has(v)) errs.push(fieldErrors.invalid(at.index(i), v, 'duplicate version'));
    seen.add(v);
    for (const p of dns1035Label(asStr(v) ?? '')) errs.push(fieldErrors.invalid(at.index(i), v, p));
  });
  if (!versions.some((v) => KNOWN_REVIEW_VERSIONS.includes(asStr(v) ?? '')))
    errs.push(fieldErrors.invalid(at, versions, 'must include at least one of v1, v1beta1'));
  return errs;
}

function validateVersions(spec: Obj, at: FieldPath): FieldError[] {
  const versions = asArr(spec.versions).map((v) => asObj(v) ?? {});
  const errs: FieldError[] = [];
  if (versions.length === 0)
    return [fieldErrors.required(at, 'must have exactly one version marked as storage version')];
  const names = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const name = asStr(v.name) ?? '';
    if (names.has(name)) unique = false;
    names.add(name);
    errs.push(...validateVersion(v, at.index(i)));
  });
  const brief = versions.map((v) => asStr(v.name) ?? '');
  if (!unique) errs.push(fieldErrors.invalid(at, brief, 'must contain unique version names'));
  if (versions.filter((v) => v.storage === true).length !== 1)
    errs.push(fieldErrors.invalid(at, brief, 'must have exactly one version marked as storage version'));
  if (!versions.some((v) => v.served === true))
    errs.push(fieldErrors.invalid(at, brief, 'must have at least one served version'));
  return errs;
}

function validateSpec(spec: Obj): FieldError[] {
  const at = root('spec');
  const errs: FieldError[] = [];
  const group = asStr(spec.group) ?? '';
  if (group === '') errs.push(fieldErrors.required(at.child('group'), ''));
  else {
    const problems = dns1123Subdomain(group);
    if (problems.length > 0) errs.push(fieldErrors.invalid(at.child('group'), group, problems.join(',')));
    else if (group.split('.').length < 2)
      errs.push(fieldErrors.invalid(at.child('group'), group, 'should be a domain with at least one dot'));
  }
  const scope = asStr(spec.scope) ?? '';
  if (scope === '') errs.push(fieldErrors.required(at.child('scope'), ''));
  else if (!SCOPES.includes(scope)) errs.push(fieldErrors.notSupported(at.child('scope'), scope, SCOPES));
  const namesAt = at.child('names');
  const names = namesOf(spec.names);
  for (const key of ['plural', 'singular', 'kind', 'listKind'] as const)
    if (names[key] === '') errs.push(fieldErrors.required(namesAt.child(key), ''));
  errs.push(...validateNames(spec.names, namesAt));
  errs.push(...validateVersions(spec, at.child('versions')));
  errs.push(...validateConversion(spec.conversion, at.child('conversion')));
  if (spec.preserveUnknownFields === true)
    errs.push(
      fieldErrors.invalid(
        at.child('preserveUnknownFields'),
        true,
        'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
      ),
    );
  return errs;
}

/** ValidateCustomResourceDefinitionStoredVersions: every stored version still listed, the storage version among them. */
export function validateStoredVersions(crd: KObject): FieldError[] {
  const at = root('status').child('storedVersions');
  const stored = storedVersionsOf(crd);
  if (stored.length === 0) return [fieldErrors.invalid(at, stored, 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const v of versionsOf(crd)) {
    const name = asStr(v.name) ?? '';
    if (v.storage === true && !remaining.has(name))
      errs.push(fieldErrors.invalid(at, stored, `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [v, i] of remaining) errs.push(fieldErrors.invalid(at.index(i), v, 'must appear in spec.versions'));
  return errs;
}

/** The rules of every write through the main resource (create and update alike). */
export function validateCRD(crd: KObject): FieldError[] {
  const spec = crdSpecOf(crd);
  const required = crdName(namesOf(spec.names).plural, asStr(spec.group) ?? '');
  const errs = validateObjectMeta(crd.metadata, {
    namespaced: false,
    nameValidator: (name) => {
      const problems = dns1123Subdomain(name);
      if (problems.length > 0) return problems;
      return name === required ? [] : ['must be spec.names.plural+"."+spec.group'];
    },
  });
  errs.push(...validateSpec(spec));
  errs.push(...validateNames(asObj(crd.status)?.acceptedNames, root('status').child('acceptedNames')));
  if (storedVersionsOf(crd).length > 0) errs.push(...validateStoredVersions(crd));
  return errs;
}

export const validateCRDCreate = (crd: KObject): FieldError[] => approvalAnnotationProblem(crd);

/** What may not change once a definition exists: its group, plural (they make its name) and scope. */
export function validateCRDUpdate(crd: KObject, old: KObject): FieldError[] {
  const errs = approvalAnnotationProblem(crd, old);
  const spec = crdSpecOf(crd);
  const oldSpec = crdSpecOf(old);
  const at = root('spec');
  const immutable = (value: unknown, prev: unknown, fieldAt: FieldPath) => {
    if (JSON.stringify(value) !== JSON.stringify(prev))
      errs.push(fieldErrors.invalid(fieldAt, value, 'field is immutable'));
  };
  immutable(spec.scope, oldSpec.scope, at.child('scope'));
  immutable(spec.group, oldSpec.group, at.child('group'));
  immutable(namesOf(spec.names).plural, namesOf(oldSpec.names).plural, at.child('names').child('plural'));
  return errs;
}

export function validateCRDStatus(crd: KObject): FieldError[] {
  return [
    ...validateNames(asObj(crd.status)?.acceptedNames, root('status').child('acceptedNames')),
    ...validateStoredVersions(crd),
  ];
}

export { FieldPath };
