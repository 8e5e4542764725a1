// RFC 6902 JSON patch, applied one operation at a time so that each is checked before it runs: the bounds
// kube-apiserver puts on a patch (10,000 operations; 3 MiB added by `copy` in all, the fix for CVE-2019-1002100,
// without which a 1 KB body of doubling copies held the event loop for seconds and the heap for gigabytes), no path
// through `__proto__`, and no `move` of a value into itself.
import jsonpatch from 'fast-json-patch';
import { errors, StatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { cloneJson } from '../../api/meta/clone.js';

export const MAX_JSON_PATCH_OPERATIONS = 10_000;
/** Upstream's JSONPatchMaxCopyBytes: twice etcd's request size, as an object is stored smaller than its JSON. */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/** Pointers fast-json-patch refuses to walk, as they would reach a prototype rather than a field. */
const PROTOTYPE_POINTER = /(^|\/)(__proto__|constructor\/prototype)(\/|$)/;

/** How kube-apiserver answers a patch that fails while it is applied: 422, its one fixed message. */
export function patchApplyFailed(why: string): StatusError {
  return new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
    causes: [{ message: why }],
  });
}

/**
 * How many array elements the operations of one patch may shift in all. An add or remove at an index moves every
 * element after it (V8's splice takes milliseconds on an array of a million), so 10,000 operations on a long array
 * held the event loop for tens of seconds; ordinary patches shift a few thousand. Not an upstream limit: Go's copy is
 * an order of magnitude faster, and the operation cap suffices there.
 */
export const MAX_JSON_PATCH_SHIFTED_ELEMENTS = 100_000_000;

export function applyJsonPatch(current: KObject, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw errors.badRequest('a JSON patch must be a JSON array of operations');
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StatusError(
      413,
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`,
    );
  }
  let document: unknown = cloneJson(current);
  let copied = 0;
  let shifted = 0;
  for (let index = 0; index < patch.length; index++) {
    const operation = patch[index] as jsonpatch.Operation & { from?: unknown };
    checkPointers(operation, index);
    shifted += shiftedElements(document, operation);
    if (shifted > MAX_JSON_PATCH_SHIFTED_ELEMENTS) {
      throw patchApplyFailed(
        `Unable to complete the patch, its operations shift more than ${MAX_JSON_PATCH_SHIFTED_ELEMENTS} array elements`,
      );
    }
    if (operation?.op === 'copy' && typeof operation.from === 'string') {
      copied += encodedSize(valueAt(document, operation.from));
      if (copied > MAX_JSON_PATCH_COPY_BYTES) {
        throw patchApplyFailed(
          `Unable to complete the copy, the accumulated size increase of copy is ${copied}, exceeding the limit ${MAX_JSON_PATCH_COPY_BYTES}`,
        );
      }
    }
    document = applyOne(document, operation, index, current);
  }
  return document;
}

function applyOne(document: unknown, operation: jsonpatch.Operation, index: number, current: KObject): unknown {
  try {
    return jsonpatch.applyOperation(document, operation, true, true, true, index).newDocument;
  } catch (e) {
    if (!(e instanceof jsonpatch.JsonPatchError)) throw patchApplyFailed(`operation ${index}: ${(e as Error).message}`);
    if (e.name === 'TEST_OPERATION_FAILED') {
      throw errors.invalid(String(current.kind), '', current.metadata.name ?? '', [
        {
          type: 'FieldValueInvalid',
          field: String(e.operation?.path ?? ''),
          value: (e.operation as { value?: unknown } | undefined)?.value,
          detail: 'json patch test operation failed',
        },
      ]);
    }
    throw errors.badRequest(`the JSON patch is invalid: ${e.message.split('\n')[0]} (operation ${e.index ?? index})`);
  }
}

/** Refuses pointers into the prototype, and a `move` of a value into a place inside itself (RFC 6902 §4.4). */
function checkPointers(operation: { op?: unknown; path?: unknown; from?: unknown }, index: number): void {
  for (const pointer of [operation?.path, operation?.from]) {
    if (typeof pointer === 'string' && PROTOTYPE_POINTER.test(pointer)) {
      throw patchApplyFailed(`operation ${index}: ${JSON.stringify(pointer)} names a field that cannot be patched`);
    }
  }
  const { op, path, from } = operation ?? {};
  if (op === 'move' && typeof path === 'string' && typeof from === 'string' && path.startsWith(`${from}/`)) {
    throw patchApplyFailed(
      `operation ${index}: cannot move ${JSON.stringify(from)} into its own child ${JSON.stringify(path)}`,
    );
  }
}

/** At most how many elements an operation shifts: those after each array index it inserts at or removes from. */
function shiftedElements(document: unknown, operation: { op?: unknown; path?: unknown; from?: unknown }): number {
  const { op, path, from } = operation ?? {};
  let count = 0;
  if ((op === 'add' || op === 'copy' || op === 'move') && typeof path === 'string')
    count += elementsAfter(document, path);
  if (op === 'remove' && typeof path === 'string') count += elementsAfter(document, path);
  if (op === 'move' && typeof from === 'string') count += elementsAfter(document, from);
  return count;
}

/** How many elements follow the one a pointer names, when it names an array element (`-`, the end, has none). */
function elementsAfter(document: unknown, pointer: string): number {
  const slash = pointer.lastIndexOf('/');
  if (slash < 0) return 0;
  const parent = valueAt(document, pointer.slice(0, slash));
  if (!Array.isArray(parent)) return 0;
  const index = Number(pointer.slice(slash + 1));
  return Number.isInteger(index) && index >= 0 ? Math.max(0, parent.length - index) : 0;
}

/** The value a pointer names, or undefined where it names nothing (the operation's own check then reports it). */
function valueAt(document: unknown, pointer: string): unknown {
  try {
    return jsonpatch.getValueByPointer(document, pointer);
  } catch {
    return undefined;
  }
}

/** The bytes of a value's JSON, as upstream measures a copy. */
function encodedSize(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
}
