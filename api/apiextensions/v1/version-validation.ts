// The rules of one entry of spec.versions (upstream's ValidateCustomResourceDefinitionVersion and the per-version
// parts of ValidateCustomResourceDefinitionSpec): its schema (keyword rules, structural, defaults), subresources,
// printer columns and selectable fields.
import { fieldErrors, type FieldError, type FieldPath } from '../../meta/field-errors.js';
import { asArr, asObj, asStr, type Obj } from '../../common/validation-helpers.js';
import { dns1035Label } from '../../meta/validation.js';
import { validateOpenAPISchemaRules } from './openapi-rules.js';
import { validateDefaults, validateStructural } from './structural.js';
import { parseFieldPath, resolvePath, simpleJsonPathProblem } from './json-path.js';
import { schemaAt, type JSONSchemaProps } from './schema-props.js';

export const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
export const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
export const MAX_SELECTABLE_FIELDS = 8;
const SELECTABLE_TYPES = new Set(['string', 'integer', 'boolean']);

/** The whole schema of one version: keyword rules, then (when those pass) structure, then defaults. */
export function validateVersionSchema(raw: unknown, at: FieldPath): FieldError[] {
  const schema = schemaAt(raw);
  if (!schema) return [fieldErrors.required(at, 'schemas are required')];
  const errs = validateOpenAPISchemaRules(schema, at);
  if (schema.nullable) errs.push(fieldErrors.forbidden(at.child('nullable'), 'nullable cannot be true at the root'));
  const structural = validateStructural(schema, at);
  errs.push(...structural);
  if (errs.length === 0) errs.push(...validateDefaults(schema, at));
  return errs;
}

function pathUnder(path: string, prefixes: string[], at: FieldPath, detail: string): FieldError[] {
  const problem = simpleJsonPathProblem(path);
  if (problem) return [fieldErrors.invalid(at, path, problem)];
  return prefixes.some((p) => path.startsWith(p)) ? [] : [fieldErrors.invalid(at, path, detail)];
}

function validateSubresources(raw: unknown, at: FieldPath): FieldError[] {
  const scale = asObj(asObj(raw)?.scale);
  if (!scale) return [];
  const scaleAt = at.child('scale');
  const errs: FieldError[] = [];
  const spec = asStr(scale.specReplicasPath) ?? '';
  if (spec === '') errs.push(fieldErrors.required(scaleAt.child('specReplicasPath'), ''));
  else
    errs.push(...pathUnder(spec, ['.spec.'], scaleAt.child('specReplicasPath'), 'should be a json path under .spec'));
  const status = asStr(scale.statusReplicasPath) ?? '';
  if (status === '') errs.push(fieldErrors.required(scaleAt.child('statusReplicasPath'), ''));
  else
    errs.push(
      ...pathUnder(status, ['.status.'], scaleAt.child('statusReplicasPath'), 'should be a json path under .status'),
    );
  const selector = asStr(scale.labelSelectorPath);
  if (selector !== undefined && selector !== '')
    errs.push(
      ...pathUnder(
        selector,
        ['.spec.', '.status.'],
        scaleAt.child('labelSelectorPath'),
        'should be a json path under either .spec or .status',
      ),
    );
  return errs;
}

function validatePrinterColumns(list: unknown[], at: FieldPath): FieldError[] {
  return list.flatMap((raw, i) => {
    const c = asObj(raw) ?? {};
    const cAt = at.index(i);
    const errs: FieldError[] = [];
    if (!asStr(c.name)) errs.push(fieldErrors.required(cAt.child('name'), ''));
    const type = asStr(c.type) ?? '';
    if (type === '') errs.push(fieldErrors.required(cAt.child('type'), ''));
    else if (!PRINTER_COLUMN_TYPES.includes(type))
      errs.push(fieldErrors.notSupported(cAt.child('type'), type, PRINTER_COLUMN_TYPES));
    const format = asStr(c.format) ?? '';
    if (format !== '' && !PRINTER_COLUMN_FORMATS.includes(format))
      errs.push(fieldErrors.notSupported(cAt.child('format'), format, PRINTER_COLUMN_FORMATS));
    const jsonPath = asStr(c.jsonPath) ?? '';
    if (jsonPath === '') errs.push(fieldErrors.required(cAt.child('jsonPath'), ''));
    else {
      const problem = simpleJsonPathProblem(jsonPath);
      if (problem) errs.push(fieldErrors.invalid(cAt.child('jsonPath'), jsonPath, problem));
    }
    return errs;
  });
}

function validateSelectableFields(list: unknown[], schema: JSONSchemaProps | undefined, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (list.length > MAX_SELECTABLE_FIELDS) errs.push(fieldErrors.tooMany(at, list.length, MAX_SELECTABLE_FIELDS));
  const seen = new Set<string>();
  list.forEach((raw, i) => {
    const pathAt = at.index(i).child('jsonPath');
    const path = asStr(asObj(raw)?.jsonPath) ?? '';
    if (path === '') {
      errs.push(fieldErrors.required(pathAt, ''));
      return;
    }
    if (seen.has(path)) errs.push(fieldErrors.duplicate(pathAt, path));
    seen.add(path);
    const problem = simpleJsonPathProblem(path);
    const segments = problem ? undefined : parseFieldPath(path);
    if (problem || !segments || segments.some((s) => 'index' in s)) {
      errs.push(fieldErrors.invalid(pathAt, path, problem ?? 'must be a simple json path in the dot notation'));
      return;
    }
    // metadata.name and metadata.namespace are always selectable; the rest of metadata is not the definition's.
    if ('field' in segments[0] && segments[0].field === 'metadata') {
      errs.push(fieldErrors.invalid(pathAt, path, 'must not point to fields in metadata'));
      return;
    }
    if (!schema) return;
    const target = resolvePath(schema, segments);
    if (!target)
      errs.push(fieldErrors.invalid(pathAt, path, 'is an invalid path: does not refer to a field in the schema'));
    else if (!SELECTABLE_TYPES.has(target.type ?? ''))
      errs.push(
        fieldErrors.invalid(
          pathAt,
          path,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
  });
  return errs;
}

/** Every rule of spec.versions[i]. */
export function validateVersion(v: Obj, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = asStr(v.name) ?? '';
  if (name === '') errs.push(fieldErrors.required(at.child('name'), ''));
  else for (const p of dns1035Label(name)) errs.push(fieldErrors.invalid(at.child('name'), name, p));
  const warning = asStr(v.deprecationWarning);
  if (warning !== undefined) {
    if (v.deprecated !== true)
      errs.push(
        fieldErrors.invalid(at.child('deprecationWarning'), warning, 'can only be set for deprecated versions'),
      );
    else if (warning.length > 256) errs.push(fieldErrors.tooLong(at.child('deprecationWarning'), warning, 256));
    else if ([...warning].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
      errs.push(
        fieldErrors.invalid(at.child('deprecationWarning'), warning, 'must only contain printable UTF-8 characters'),
      );
  }
  const schemaRaw = asObj(v.schema)?.openAPIV3Schema;
  errs.push(...validateVersionSchema(schemaRaw, at.child('schema').child('openAPIV3Schema')));
  errs.push(...validateSubresources(v.subresources, at.child('subresources')));
  errs.push(...validatePrinterColumns(asArr(v.additionalPrinterColumns), at.child('additionalPrinterColumns')));
  errs.push(...validateSelectableFields(asArr(v.selectableFields), schemaAt(schemaRaw), at.child('selectableFields')));
  return errs;
}
