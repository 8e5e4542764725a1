// The bridge from client-side to server-side apply, as kube-apiserver builds it for the field manager named exactly
// `kubectl` (users opt out by naming another manager). Client-side apply keeps its intent in the
// last-applied-configuration annotation and owns fields as the Update manager `kubectl-client-side-apply`; the first
// server-side apply of the same manifest would conflict with that manager on every changed field. Fields whose live
// value still equals the annotation's were set by the same tool, so those conflicts are waived; afterwards every
// server-side apply by `kubectl` keeps the annotation (where it still exists) equal to what was applied, so that a
// later client-side apply computes its three-way patch from the right base.
import { isObject, type KObject } from '../../../api/meta/types.js';
import type { FieldSet } from './field-set.js';
import { compare, toFieldSet } from './typed.js';
import { assertNestingWithin, MAX_NESTING_DEPTH } from '../../negotiation/json.js';
import type { JSONSchema } from '../../../api/schema.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The only manager whose applies read and write the annotation. */
export const CLIENT_SIDE_APPLY_SUCCESSOR = 'kubectl';

/** ObjectMeta's limit on all annotations together (keys and values, in bytes). */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function annotationsOf(obj: KObject | Record<string, unknown> | undefined): Record<string, string> | undefined {
  const metadata = obj?.metadata;
  if (!isObject(metadata) || !isObject(metadata.annotations)) return undefined;
  return metadata.annotations as Record<string, string>;
}

function lastAppliedOf(obj: KObject | Record<string, unknown> | undefined): string | undefined {
  const value = annotationsOf(obj)?.[LAST_APPLIED_ANNOTATION];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The fields of the annotation's configuration whose live value is still the one it recorded: conflicts on them
 * are the client-side applier's own and may be taken over. Undefined when there is no usable annotation, or when it
 * was written for another group-version (`apiVersions` lists every spelling of the request's one, aliases included).
 */
export function fieldsStillAsLastApplied(
  live: KObject,
  liveWithoutMeta: unknown,
  schema: JSONSchema,
  apiVersions: readonly string[],
): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  let lastApplied: unknown;
  try {
    // Any client may have written the annotation, and the walks below recurse: as deep as a request body, no deeper.
    assertNestingWithin(text, MAX_NESTING_DEPTH);
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (
    !isObject(lastApplied) ||
    typeof lastApplied.apiVersion !== 'string' ||
    !apiVersions.includes(lastApplied.apiVersion)
  )
    return undefined;
  const differs = compare(lastApplied, liveWithoutMeta, schema);
  return toFieldSet(lastApplied, schema)
    .difference(differs.modified)
    .difference(differs.added)
    .difference(differs.removed);
}

/**
 * After a successful apply by `kubectl`: an annotation still on the result is rewritten to the applied configuration
 * (itself without the annotation), and dropped when it would make the annotations exceed their size limit.
 */
export function syncLastApplied(result: KObject, config: KObject): void {
  const annotations = annotationsOf(result);
  if (!annotations || lastAppliedOf(result) === undefined) return;
  annotations[LAST_APPLIED_ANNOTATION] = encodeLastApplied(config);
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) total += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED_ANNOTATION];
}

/** The configuration as kubectl and kube-apiserver encode it into the annotation: Go's encoding/json of a map. */
export function encodeLastApplied(config: KObject): string {
  const metadata = isObject(config.metadata) ? { ...config.metadata } : undefined;
  if (metadata && isObject(metadata.annotations)) {
    const { [LAST_APPLIED_ANNOTATION]: _dropped, ...rest } = metadata.annotations;
    metadata.annotations = rest;
  }
  const body = metadata ? { ...config, metadata } : config;
  return `${goJson(body)}\n`;
}

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * encoding/json's output for decoded JSON: object keys in byte order (written out here, since a JS object would put
 * integer-like keys first), HTML-sensitive characters and line separators escaped.
 */
function goJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${keys.map((k) => `${goString(k)}:${goJson(value[k])}`).join(',')}}`;
  }
  if (typeof value === 'string') return goString(value);
  return JSON.stringify(value) ?? 'null';
}

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (ch) => GO_ESCAPES[ch]);
}
