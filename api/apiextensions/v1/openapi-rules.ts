// The rules every node of a definition's openAPIV3Schema follows whatever its place (upstream's
// ValidateCustomResourceDefinitionOpenAPISchema and its v3 standard validator): supported types and keywords,
// where defaults may stand, properties against additionalProperties, and the x-kubernetes-* list and map markers.
// structural.ts adds the structural-schema invariants on top.
import { fieldErrors, type FieldError, type FieldPath } from '../../meta/field-errors.js';
import { asArr, asObj } from '../../common/validation-helpers.js';
import { itemsOf, MAX_SCHEMA_DEPTH, propertiesOf, schemaAt, type JSONSchemaProps } from './schema-props.js';
import { validateValidationRules } from './validation-rules.js';
import { keywordTypeErrors } from './keyword-types.js';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

interface Context {
  allowDefaults: boolean;
  defaultsReason: string;
  insideResourceMeta: boolean;
}

const forbidDefaults = (ctx: Context, reason: string): Context => ({
  ...ctx,
  allowDefaults: false,
  defaultsReason: reason,
});

function standardRules(s: JSONSchemaProps, at: FieldPath, ctx: Context): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof s.type === 'string' && s.type !== '' && !OPENAPI_V3_TYPES.includes(s.type))
    errs.push(fieldErrors.notSupported(at.child('type'), s.type, OPENAPI_V3_TYPES));
  if (s.default !== undefined && !ctx.allowDefaults)
    errs.push(
      fieldErrors.forbidden(
        at.child('default'),
        `must not be set${ctx.defaultsReason ? ` ${ctx.defaultsReason}` : ''}`,
      ),
    );
  if (s.id) errs.push(fieldErrors.forbidden(at.child('id'), 'id is not supported'));
  if (s.additionalItems !== undefined)
    errs.push(fieldErrors.forbidden(at.child('additionalItems'), 'additionalItems is not supported'));
  if (Object.keys(asObj(s.patternProperties) ?? {}).length > 0)
    errs.push(fieldErrors.forbidden(at.child('patternProperties'), 'patternProperties is not supported'));
  if (Object.keys(asObj(s.definitions) ?? {}).length > 0)
    errs.push(fieldErrors.forbidden(at.child('definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined)
    errs.push(fieldErrors.forbidden(at.child('dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(fieldErrors.forbidden(at.child('$ref'), '$ref is not supported'));
  if (s.type === 'null')
    errs.push(fieldErrors.forbidden(at.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0)
    errs.push(fieldErrors.forbidden(at.child('items'), 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource'])
    errs.push(
      fieldErrors.forbidden(at.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'),
    );
  return errs;
}

function listAndMapRules(s: JSONSchemaProps, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = typeof s.type === 'string' ? s.type : '';
  const typeError = (wanted: string, marker: string) =>
    type === ''
      ? fieldErrors.required(at.child('type'), `must be ${wanted} if ${marker} is specified`)
      : fieldErrors.invalid(at.child('type'), type, `must be ${wanted} if ${marker} is specified`);
  if (s['x-kubernetes-preserve-unknown-fields'] === false)
    errs.push(
      fieldErrors.invalid(at.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'),
    );
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && type !== 'object') errs.push(typeError('object', 'x-kubernetes-map-type'));
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular')
    errs.push(fieldErrors.notSupported(at.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  const listType = s['x-kubernetes-list-type'];
  const items = itemsOf(s);
  if (listType !== undefined && type !== 'array') errs.push(typeError('array', 'x-kubernetes-list-type'));
  else if (listType === 'set' && items) {
    if (
      items.type === 'array' &&
      items['x-kubernetes-list-type'] !== undefined &&
      items['x-kubernetes-list-type'] !== 'atomic'
    )
      errs.push(
        fieldErrors.invalid(
          at.child('items').child('x-kubernetes-list-type'),
          items['x-kubernetes-list-type'],
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic')
      errs.push(
        fieldErrors.invalid(
          at.child('items').child('x-kubernetes-map-type'),
          items['x-kubernetes-map-type'],
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map')
    errs.push(fieldErrors.notSupported(at.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  const keys = asArr(s['x-kubernetes-list-map-keys']);
  if (keys.length > 0) {
    if (listType === undefined)
      errs.push(
        fieldErrors.required(
          at.child('x-kubernetes-list-type'),
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
    else if (listType !== 'map')
      errs.push(
        fieldErrors.invalid(
          at.child('x-kubernetes-list-type'),
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
  }
  if (listType === 'map') errs.push(...mapListRules(s, keys, at));
  if ((listType === 'map' || listType === 'set') && items?.nullable)
    errs.push(
      fieldErrors.forbidden(
        at.child('items').child('nullable'),
        `cannot be nullable when x-kubernetes-list-type is ${listType}`,
      ),
    );
  return errs;
}

function mapListRules(s: JSONSchemaProps, keys: unknown[], at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (keys.length === 0)
    errs.push(
      fieldErrors.required(
        at.child('x-kubernetes-list-map-keys'),
        'must not be empty if x-kubernetes-list-type is map',
      ),
    );
  if (s.items === undefined)
    errs.push(fieldErrors.required(at.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
  else if (Array.isArray(s.items))
    errs.push(
      fieldErrors.invalid(
        at.child('items'),
        s.items,
        'must only have a single schema if x-kubernetes-list-type is map',
      ),
    );
  const items = itemsOf(s);
  if (!items) return errs;
  if (items.type !== 'object') {
    errs.push(
      fieldErrors.invalid(
        at.child('items').child('type'),
        items.type ?? '',
        "must be object if parent array's x-kubernetes-list-type is map",
      ),
    );
    return errs;
  }
  const props = new Map(propertiesOf(items));
  const required = new Set(asArr(items.required));
  const seen = new Set<unknown>();
  for (const key of keys) {
    const prop = typeof key === 'string' ? props.get(key) : undefined;
    const keyAt = at.child('items').child('properties').key(String(key));
    if (!prop)
      errs.push(
        fieldErrors.invalid(
          at.child('x-kubernetes-list-map-keys'),
          keys,
          'entries must all be names of item properties',
        ),
      );
    else {
      if (prop.type === 'array' || prop.type === 'object')
        errs.push(
          fieldErrors.invalid(
            keyAt.child('type'),
            prop.type,
            "must be a scalar type if parent array's x-kubernetes-list-type is map",
          ),
        );
      if (!required.has(key) && prop.default === undefined)
        errs.push(
          fieldErrors.required(
            keyAt.child('default'),
            'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
          ),
        );
      if (prop.nullable)
        errs.push(
          fieldErrors.forbidden(
            keyAt.child('nullable'),
            'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
          ),
        );
    }
    if (seen.has(key))
      errs.push(
        fieldErrors.invalid(at.child('x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'),
      );
    seen.add(key);
  }
  return errs;
}

function walk(raw: unknown, at: FieldPath, ctx: Context, isRoot: boolean, depth: number): FieldError[] {
  const s = schemaAt(raw);
  if (!s) return [];
  if (depth > MAX_SCHEMA_DEPTH)
    return [fieldErrors.forbidden(at, `must not be nested more than ${MAX_SCHEMA_DEPTH} levels deep`)];
  const errs = [...keywordTypeErrors(s, at), ...standardRules(s, at, ctx)];
  if (s.uniqueItems === true)
    errs.push(
      fieldErrors.forbidden(
        at.child('uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  const props = propertiesOf(s);
  if (s.additionalProperties !== undefined) {
    // Properties are for structs, additionalProperties for maps: both at once would contradict the convention that
    // unknown fields are dropped.
    if (props.length > 0 && s.additionalProperties !== true)
      errs.push(
        fieldErrors.forbidden(
          at.child('additionalProperties'),
          'additionalProperties and properties are mutual exclusive',
        ),
      );
    const sub = ctx.insideResourceMeta
      ? forbidDefaults(ctx, 'inside additionalProperties applying to object metadata')
      : ctx;
    errs.push(...walk(s.additionalProperties, at.child('additionalProperties'), sub, false, depth + 1));
  }
  for (const [name, child] of props) {
    let sub = ctx;
    if ((isRoot || s['x-kubernetes-embedded-resource']) && META_FIELDS.has(name)) {
      sub = { ...ctx, insideResourceMeta: true };
      if (isRoot) sub = forbidDefaults(sub, `in top-level ${name}`);
    }
    errs.push(...walk(child, at.child('properties').key(name), sub, false, depth + 1));
  }
  errs.push(...walk(s.not, at.child('not'), ctx, false, depth + 1));
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const)
    asArr(s[key]).forEach((child, i) => errs.push(...walk(child, at.child(key).index(i), ctx, false, depth + 1)));
  if (Array.isArray(s.items))
    s.items.forEach((child, i) => errs.push(...walk(child, at.child('items').index(i), ctx, false, depth + 1)));
  else errs.push(...walk(s.items, at.child('items'), ctx, false, depth + 1));
  errs.push(...listAndMapRules(s, at));
  errs.push(...validateValidationRules(s, at));
  return errs;
}

/** The keyword and marker rules of a whole openAPIV3Schema, from its root. */
export function validateOpenAPISchemaRules(schema: unknown, at: FieldPath): FieldError[] {
  return walk(schema, at, { allowDefaults: true, defaultsReason: '', insideResourceMeta: false }, true, 0);
}
