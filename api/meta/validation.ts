// ObjectMeta validation and the string rules behind it. The detail strings follow apimachinery's validation
// package word for word: clients and tests compare them, and kubectl prints them as they come.
import { fieldErrors, FieldPath, type FieldError } from './field-errors.js';
import { isObject } from './types.js';

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

/** Total bytes of annotation keys plus values an object may carry. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** apimachinery's RegexError: examples are joined with "', " + " or " (hence the double space). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export function dns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errs;
}

/** IsDNS1035Label: as an RFC 1123 label, but starting with a letter (API versions, Service names). */
export function dns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        '[a-z]([-a-z0-9]*[a-z0-9])?',
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

export function dns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

export function pathSegmentName(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (value.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** Label keys, annotation keys, finalizers: `[dns-subdomain/]name` with a name of at most 63 characters. */
export function qualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME_RE.test(name))
    errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function labelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Every key and value of a label map; errors sit on the map's own path, as ValidateLabels reports them. */
export function validateLabels(labels: unknown, at: FieldPath): FieldError[] {
  if (labels === undefined || labels === null) return [];
  if (!isObject(labels)) return [fieldErrors.typeInvalid(at, labels, 'must be a map of string keys to string values')];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of qualifiedName(k)) errs.push(fieldErrors.invalid(at, k, msg));
    if (typeof v !== 'string') {
      errs.push(fieldErrors.typeInvalid(at.key(k), v, 'must be a string'));
      continue;
    }
    for (const msg of labelValue(v)) errs.push(fieldErrors.invalid(at, v, msg));
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, at: FieldPath): FieldError[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isObject(annotations))
    return [fieldErrors.typeInvalid(at, annotations, 'must be a map of string keys to string values')];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    // Annotation keys are case-insensitive in spirit: kube validates the lowercased key.
    for (const msg of qualifiedName(k.toLowerCase())) errs.push(fieldErrors.invalid(at, k, msg));
    if (typeof v !== 'string') {
      errs.push(fieldErrors.typeInvalid(at.key(k), v, 'must be a string'));
      continue;
    }
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(fieldErrors.tooLong(at, '', TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}

function validateFinalizers(finalizers: unknown, at: FieldPath): FieldError[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers)) return [fieldErrors.typeInvalid(at, finalizers, 'must be an array of strings')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  finalizers.forEach((f, i) => {
    if (typeof f !== 'string') {
      errs.push(fieldErrors.typeInvalid(at.index(i), f, 'must be a string'));
      return;
    }
    for (const msg of qualifiedName(f)) errs.push(fieldErrors.invalid(at, f, msg));
    if (seen.has(f)) errs.push(fieldErrors.duplicate(at.index(i), f));
    seen.add(f);
  });
  return errs;
}

function validateOwnerReferences(refs: unknown, at: FieldPath): FieldError[] {
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs)) return [fieldErrors.typeInvalid(at, refs, 'must be an array of owner references')];
  const errs: FieldError[] = [];
  const controllers: string[] = [];
  refs.forEach((ref, i) => {
    const p = at.index(i);
    if (!isObject(ref)) {
      errs.push(fieldErrors.typeInvalid(p, ref, 'must be an object'));
      return;
    }
    const str = (k: string) => (typeof ref[k] === 'string' ? ref[k] : '');
    const apiVersion = str('apiVersion');
    // The version is what follows the last '/', or the whole string for the core group.
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.lastIndexOf('/') + 1) : apiVersion;
    if (!version) errs.push(fieldErrors.invalid(p.child('apiVersion'), apiVersion, 'version must not be empty'));
    if (!str('kind')) errs.push(fieldErrors.invalid(p.child('kind'), str('kind'), 'kind must not be empty'));
    if (!str('name')) errs.push(fieldErrors.invalid(p.child('name'), str('name'), 'name must not be empty'));
    if (!str('uid')) errs.push(fieldErrors.invalid(p.child('uid'), str('uid'), 'uid must not be empty'));
    if (ref.controller === true) controllers.push(`${str('kind')}/${str('name')}`);
  });
  if (controllers.length > 1) {
    errs.push(
      fieldErrors.invalid(
        at,
        controllers,
        `Only one reference can have Controller set to true. Found "true" in references for ${controllers.join(' and ')}`,
      ),
    );
  }
  return errs;
}

/** Masks a trailing '-' of a generateName prefix so the name rule judges what generated names will look like. */
function maskTrailingDash(prefix: string): string {
  return prefix.length > 1 && prefix.endsWith('-') ? `${prefix.slice(0, -1)}a` : prefix;
}

export interface ObjectMetaOptions {
  namespaced: boolean;
  /** The kind's name rule: dns1123Subdomain, dns1123Label, pathSegmentName or its own. */
  nameValidator: (name: string) => string[];
  /** Where metadata sits; `metadata` unless told. */
  path?: FieldPath;
}

/**
 * Validates metadata of an object being created. Expects a generated name to be filled in already when
 * generateName was used (the name is then checked like any other), but accepts generateName alone too.
 */
export function validateObjectMeta(meta: unknown, opts: ObjectMetaOptions): FieldError[] {
  const at = opts.path ?? FieldPath.root('metadata');
  if (!isObject(meta)) return [fieldErrors.required(at, '')];
  const errs: FieldError[] = [];
  const name = meta.name;
  const generateName = meta.generateName;

  if (typeof generateName === 'string' && generateName !== '') {
    for (const msg of opts.nameValidator(maskTrailingDash(generateName)))
      errs.push(fieldErrors.invalid(at.child('generateName'), generateName, msg));
  }
  if (name === undefined || name === null || name === '') {
    if (!generateName) errs.push(fieldErrors.required(at.child('name'), 'name or generateName is required'));
  } else if (typeof name !== 'string') {
    errs.push(fieldErrors.typeInvalid(at.child('name'), name, 'must be a string'));
  } else {
    for (const msg of opts.nameValidator(name)) errs.push(fieldErrors.invalid(at.child('name'), name, msg));
  }

  const ns = meta.namespace;
  if (opts.namespaced) {
    if (typeof ns !== 'string' || ns === '') errs.push(fieldErrors.required(at.child('namespace'), ''));
    else for (const msg of dns1123Label(ns)) errs.push(fieldErrors.invalid(at.child('namespace'), ns, msg));
  } else if (ns !== undefined && ns !== null && ns !== '') {
    errs.push(fieldErrors.forbidden(at.child('namespace'), 'not allowed on this type'));
  }

  if (typeof meta.generation === 'number' && meta.generation < 0) {
    errs.push(fieldErrors.invalid(at.child('generation'), meta.generation, 'must be greater than or equal to 0'));
  }
  errs.push(...validateCommonMaps(meta, at));
  return errs;
}

function validateCommonMaps(meta: Record<string, unknown>, at: FieldPath): FieldError[] {
  return [
    ...validateLabels(meta.labels, at.child('labels')),
    ...validateAnnotations(meta.annotations, at.child('annotations')),
    ...validateOwnerReferences(meta.ownerReferences, at.child('ownerReferences')),
    ...validateFinalizers(meta.finalizers, at.child('finalizers')),
  ];
}

function sameValue(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === null || v === '' ? undefined : v);
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/**
 * Validates metadata of an object replacing oldMeta: identity fields are immutable, generation may not go
 * back, finalizers may not be added once deletion started, and maps are checked as on create.
 * resourceVersion presence is not checked here: the registry fills it in for unconditional updates.
 */
export function validateObjectMetaUpdate(
  meta: unknown,
  oldMeta: unknown,
  opts: { path?: FieldPath } = {},
): FieldError[] {
  const at = opts.path ?? FieldPath.root('metadata');
  if (!isObject(meta)) return [fieldErrors.required(at, '')];
  const old = isObject(oldMeta) ? oldMeta : {};
  const errs: FieldError[] = [];
  for (const f of [
    'name',
    'namespace',
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
  ]) {
    if (!sameValue(meta[f], old[f])) errs.push(fieldErrors.invalid(at.child(f), meta[f], 'field is immutable'));
  }
  if (typeof meta.generation === 'number' && typeof old.generation === 'number' && meta.generation < old.generation) {
    errs.push(fieldErrors.invalid(at.child('generation'), meta.generation, 'must not be decremented'));
  }
  if (old.deletionTimestamp && Array.isArray(meta.finalizers)) {
    const before = new Set(Array.isArray(old.finalizers) ? old.finalizers : []);
    const added = [...new Set(meta.finalizers.filter((f) => !before.has(f)))].sort();
    if (added.length > 0) {
      errs.push(
        fieldErrors.forbidden(
          at.child('finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  errs.push(...validateCommonMaps(meta, at));
  return errs;
}
