// The OpenAPI v2 (Swagger 2.0) document served at /openapi/v2: one document for every served group version, made
// from the same definitions and operations as the v3 documents, plus the create-only kinds (the reviews). Clients
// that never moved to v3 read it (Helm's validation; kubectl's client-side validation when a kind has no PATCH
// operation in v3, as the reviews and `kind: List` files). Definitions keep the v3 component names; a definition
// that several group versions serve (a kind and its `*.k8s.io` alias) lists each group-version-kind in
// x-kubernetes-group-version-kind.
import type { KindDefinition } from '../scheme.js';
import {
  addCreateOnlySchemas,
  addEnvelopeSchemas,
  addKindSchemas,
  type Components,
  type CreateOnlyKind,
} from './definitions.js';
import { createOnlyPaths, kindPaths, type PathItem } from './operations.js';

type Json = Record<string, unknown>;

export interface SwaggerDocument {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, Json>;
  definitions: Record<string, Json>;
  securityDefinitions: Record<string, Json>;
  security: Record<string, string[]>[];
}

const GVK = 'x-kubernetes-group-version-kind';
const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';

const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A v3 schema in v2 form: references point into `definitions`, and a reference with a use-site description
 * (`{description, allOf: [{$ref}]}`, which v3 needs) becomes the `{description, $ref}` pair Swagger 2.0 documents use.
 */
export function v2Schema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(v2Schema);
  if (!isJson(schema)) return schema;
  const allOf = schema.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && isJson(allOf[0]) && typeof allOf[0].$ref === 'string') {
    const out: Json = {};
    if (schema.description !== undefined) out.description = schema.description;
    out.$ref = v2Ref(allOf[0].$ref);
    return out;
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string') out[k] = v2Ref(v);
    else if (k === 'properties' && isJson(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, v2Schema(s)]));
    else if (k === 'items' || k === 'additionalProperties' || k === 'allOf') out[k] = v2Schema(v);
    else out[k] = v;
  }
  return out;
}

function v2Ref(ref: string): string {
  return ref.startsWith(V3_REF) ? V2_REF + ref.slice(V3_REF.length) : ref;
}

/** Adds `from` to `into`; a definition present in both keeps one body and the union of their group-version-kinds. */
function mergeDefinitions(into: Components, from: Components): void {
  for (const [name, schema] of Object.entries(from)) {
    const known = into[name];
    if (!known) {
      into[name] = schema;
      continue;
    }
    const gvks = [...((known[GVK] as Json[] | undefined) ?? [])];
    for (const gvk of (schema[GVK] as Json[] | undefined) ?? []) {
      if (!gvks.some((g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind)) gvks.push(gvk);
    }
    if (gvks.length > 0) into[name] = { ...known, [GVK]: gvks };
  }
}

/** A v3 parameter (`schema: {type}`) in v2 form (the type on the parameter itself). */
function v2Parameter(param: Json): Json {
  const { schema, ...rest } = param;
  return { ...(isJson(schema) ? schema : {}), ...rest };
}

function mediaTypes(content: unknown): string[] {
  return isJson(content) ? Object.keys(content) : [];
}

/** One v3 operation in v2 form: the request body becomes a `body` parameter, content types consumes/produces. */
function v2Operation(op: Json): Json {
  const requestBody = isJson(op.requestBody) ? op.requestBody : undefined;
  const responses = isJson(op.responses) ? op.responses : {};
  const produces = [...new Set(Object.values(responses).flatMap((r) => (isJson(r) ? mediaTypes(r.content) : [])))];
  const parameters: Json[] = [];
  if (requestBody) {
    const [first] = Object.values(isJson(requestBody.content) ? requestBody.content : {});
    const body: Json = { name: 'body', in: 'body', schema: v2Schema(isJson(first) ? first.schema : {}) };
    if (requestBody.required) body.required = true;
    parameters.push(body);
  }
  parameters.push(...((op.parameters as Json[] | undefined) ?? []).map(v2Parameter));
  const out: Json = { description: op.description };
  if (requestBody) out.consumes = mediaTypes(requestBody.content);
  out.produces = produces;
  out.schemes = ['https'];
  out.tags = op.tags;
  out.operationId = op.operationId;
  if (parameters.length > 0) out.parameters = parameters;
  out.responses = Object.fromEntries(
    Object.entries(responses).map(([code, r]) => {
      if (!isJson(r)) return [code, r];
      const [first] = Object.values(isJson(r.content) ? r.content : {});
      return [
        code,
        isJson(first) ? { description: r.description, schema: v2Schema(first.schema) } : { description: r.description },
      ];
    }),
  );
  for (const [k, v] of Object.entries(op)) if (k.startsWith('x-')) out[k] = v;
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function v2PathItem(item: PathItem): Json {
  const out: Json = {};
  for (const method of METHODS) if (isJson(item[method])) out[method] = v2Operation(item[method]);
  if (Array.isArray(item.parameters)) out.parameters = (item.parameters as Json[]).map(v2Parameter);
  return out;
}

/** `kinds` and `createOnly`: every kind as served, the alias views included. */
export function buildOpenAPIV2(
  kinds: KindDefinition[],
  version: string,
  createOnly: CreateOnlyKind[] = [],
): SwaggerDocument {
  const definitions: Components = {};
  const paths: Record<string, Json> = {};
  for (const def of kinds) {
    const own: Components = {};
    addKindSchemas(def, own);
    mergeDefinitions(definitions, own);
    for (const [path, item] of Object.entries(kindPaths(def))) paths[path] = v2PathItem(item);
  }
  for (const k of createOnly) {
    const own: Components = {};
    addCreateOnlySchemas(k, own);
    mergeDefinitions(definitions, own);
    for (const [path, item] of Object.entries(createOnlyPaths(k))) paths[path] = v2PathItem(item);
  }
  const named = new Map<string, { group: string; version: string }>();
  for (const k of [...kinds, ...createOnly])
    if (k.group !== '') named.set(`${k.group}/${k.version}`, { group: k.group, version: k.version });
  const envelope: Components = {};
  addEnvelopeSchemas(envelope, [{ group: '', version: 'v1' }, ...named.values()]);
  mergeDefinitions(definitions, envelope);
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const sortedDefinitions = Object.fromEntries(
    Object.entries(definitions)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, s]) => [name, v2Schema(s) as Json]),
  );
  return {
    swagger: '2.0',
    info: { title: 'Gatehouse', version },
    paths: sortedPaths,
    definitions: sortedDefinitions,
    securityDefinitions: {
      BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' },
    },
    security: [{ BearerToken: [] }],
  };
}
