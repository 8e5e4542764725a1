// The OpenAPI v3 documents served at /openapi/v3 (the index) and /openapi/v3/<api/v1 | apis/G/V> (one per group
// version). kubectl relies on them: create/apply for the fieldValidation check, explain for component schemas.
import { createHash } from 'node:crypto';
import type { KindDefinition } from '../scheme.js';
import { addEnvelopeSchemas, addKindSchemas, type Components } from './definitions.js';
import { kindPaths, type PathItem } from './operations.js';

export interface OpenAPIIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

export interface OpenAPIDocument {
  openapi: '3.0.0';
  info: { title: string; version: string };
  paths: Record<string, PathItem>;
  components: { schemas: Components };
}

/** Index key of a kind's group version: `api/v1` for core, `apis/<group>/<version>` otherwise. */
export function groupVersionKey(def: Pick<KindDefinition, 'group' | 'version'>): string {
  return def.group ? `apis/${def.group}/${def.version}` : `api/${def.version}`;
}

/** Accepts `api/v1`, `apis/apps/v1`, `v1` or `apps/v1` (with or without a leading slash). */
function normalizeKey(groupVersion: string): string {
  const gv = groupVersion.replace(/^\/+/, '').replace(/^openapi\/v3\//, '');
  if (gv.startsWith('api/') || gv.startsWith('apis/')) return gv;
  return gv.includes('/') ? `apis/${gv}` : `api/${gv}`;
}

/** One group-version document; undefined when no kind belongs to it (the handler answers 404). */
export function buildOpenAPIDocument(kinds: KindDefinition[], groupVersion: string): OpenAPIDocument | undefined {
  const key = normalizeKey(groupVersion);
  const members = kinds.filter((k) => groupVersionKey(k) === key);
  if (members.length === 0) return undefined;
  const schemas: Components = {};
  const paths: Record<string, PathItem> = {};
  for (const def of members) {
    addKindSchemas(def, schemas);
    Object.assign(paths, kindPaths(def));
  }
  addEnvelopeSchemas(schemas, [
    { group: '', version: 'v1' },
    ...uniqueGroupVersions(kinds).filter((gv) => gv.group !== ''),
  ]);
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { openapi: '3.0.0', info: { title: 'Gatehouse', version: 'v1' }, paths, components: { schemas: sorted } };
}

function uniqueGroupVersions(kinds: KindDefinition[]): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const k of kinds) seen.set(groupVersionKey(k), { group: k.group, version: k.version });
  return [...seen.values()];
}

/** The hash kube-apiserver puts in serverRelativeURL: upper-case hex SHA-512 of the served document. */
export function documentHash(doc: OpenAPIDocument): string {
  return createHash('sha512').update(JSON.stringify(doc)).digest('hex').toUpperCase();
}

export function buildOpenAPIIndex(kinds: KindDefinition[]): OpenAPIIndex {
  const paths: OpenAPIIndex['paths'] = {};
  for (const key of uniqueGroupVersions(kinds).map(groupVersionKey)) {
    const doc = buildOpenAPIDocument(kinds, key)!;
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${documentHash(doc)}` };
  }
  return { paths };
}
