// Patch bodies by Content-Type. Each patch type turns (stored object, patch document) into the new body, which then
// runs through the same admission as an update. Types not in the table answer 415.
import { errors } from '../../api/meta/errors.js';
import { isObject, ownValue, type KObject } from '../../api/meta/types.js';
import type { JSONSchema } from '../../api/schema.js';
import { strategicMergePatch } from './strategic-merge.js';
import { applyJsonPatch } from './json-patch.js';
import { cloneJson, setOwn, shallowCopy } from '../../api/meta/clone.js';

/** `schema` is the kind's object schema: strategic merge patch takes its list semantics from it. */
export type PatchFunction = (current: KObject, patch: unknown, schema: JSONSchema) => unknown;

/** RFC 7386: objects merge recursively, null deletes, everything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return cloneJson(patch);
  // Not `{ ...target }`: the keys the patch adds to a spread's copy gave every patched object a hidden class of its own.
  const result: Record<string, unknown> = isObject(target) ? shallowCopy(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    // Own keys only, read and written: `"__proto__": {...}` is a field like any other, never the copy's prototype.
    if (value === null) delete result[key];
    else setOwn(result, key, mergePatch(ownValue(result, key), value));
  }
  return result;
}

function applyMergePatch(current: KObject, patch: unknown): unknown {
  if (!isObject(patch)) throw errors.badRequest('a merge patch must be a JSON object');
  return mergePatch(current, patch);
}

export const JSON_PATCH_TYPE = 'application/json-patch+json';

export const PATCH_TYPES: Record<string, PatchFunction> = {
  'application/merge-patch+json': applyMergePatch,
  [JSON_PATCH_TYPE]: applyJsonPatch,
  'application/strategic-merge-patch+json': strategicMergePatch,
};

/** Server-side apply: not a function of (object, patch) but a merge with field ownership (managed-fields/). */
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

export function patchMediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

export const STRATEGIC_MERGE_PATCH_TYPE = 'application/strategic-merge-patch+json';

/**
 * `applyTypes`: the server-side apply media types served (apply-patch+cbor joins with the CBOR gate). `strategic`
 * false for kinds without patch markers to merge by (custom kinds), which upstream answers 415.
 */
export function patchFunctionFor(
  mediaType: string,
  applyTypes: readonly string[] = [APPLY_PATCH_TYPE],
  strategic = true,
): PatchFunction {
  const served = Object.keys(PATCH_TYPES).filter((type) => strategic || type !== STRATEGIC_MERGE_PATCH_TYPE);
  const fn = served.includes(mediaType) ? ownValue(PATCH_TYPES, mediaType) : undefined;
  if (!fn) throw errors.unsupportedMediaType(mediaType, [...served, ...applyTypes]);
  return fn;
}
