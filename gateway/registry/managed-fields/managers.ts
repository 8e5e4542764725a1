// Field ownership in `metadata.managedFields`, as kube-apiserver's field manager keeps it. Every write names a
// manager: an Update (POST, PUT, non-apply PATCH) takes ownership of the fields it added or changed and takes them
// away from everyone else; an Apply owns exactly the fields of its configuration, conflicts with other owners of
// values it changes (unless forced), and removes the fields it stopped applying that nobody else owns.
import { errors, type StatusError } from '../../../api/meta/errors.js';
import type { StatusCause } from '../../../api/meta/types.js';
import { isObject, type KObject } from '../../../api/meta/types.js';
import type { JSONSchema } from '../../../api/schema.js';
import { FieldSet, FieldsV1Error, fieldElement, pathString, type FieldPath } from './field-set.js';
import { compare, merge, removePaths, toFieldSet } from './typed.js';
import { CLIENT_SIDE_APPLY_SUCCESSOR, fieldsStillAsLastApplied, syncLastApplied } from './last-applied.js';

export type Operation = 'Apply' | 'Update';

export interface ManagerRef {
  manager: string;
  operation: Operation;
  /** The apiVersion the manager wrote with (kept for Update entries' identity, recorded for both). */
  apiVersion: string;
  subresource: '' | 'status' | 'scale';
}

export interface TrackingScope {
  schema: JSONSchema;
  /** Kinds with a status subresource: writes to the main resource own no status, and the other way round. */
  statusSubresource: boolean;
  /** Every spelling of the kind's group-version (a hidden alias group's too): last-applied annotations must name one. */
  apiVersions: readonly string[];
}

interface Entry extends ManagerRef {
  time?: string;
  set: FieldSet;
}

/**
 * Entries are built field by field, never as `{ ...ref, time, set }`: V8 gives a spread that adds fields a hidden
 * class of its own per result once the site has seen a few shapes, and every later read of the entry then misses
 * its inline caches.
 */
function entryOf(ref: ManagerRef, time: string | undefined, set: FieldSet): Entry {
  return {
    manager: ref.manager,
    operation: ref.operation,
    apiVersion: ref.apiVersion,
    subresource: ref.subresource,
    time,
    set,
  };
}

/** Fields nobody owns: identity and server-maintained metadata (upstream's strip set). */
const STRIPPED: FieldPath[] = [
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ['f:metadata', 'f:name'],
  ['f:metadata', 'f:namespace'],
  ['f:metadata', 'f:creationTimestamp'],
  ['f:metadata', 'f:selfLink'],
  ['f:metadata', 'f:uid'],
  ['f:metadata', 'f:clusterName'],
  ['f:metadata', 'f:generation'],
  ['f:metadata', 'f:resourceVersion'],
  ['f:metadata', 'f:deletionTimestamp'],
  ['f:metadata', 'f:deletionGracePeriodSeconds'],
];
const STRIPPED_SET = FieldSet.fromPaths(STRIPPED);
const MANAGED_FIELDS_PATH: FieldPath = ['f:metadata', 'f:managedFields'];
const STATUS_PATH: FieldPath = [fieldElement('status')];

function identity(ref: ManagerRef): string {
  // An applier is the same manager whatever version it applies with; an updater is not.
  return JSON.stringify([
    ref.manager,
    ref.operation,
    ref.operation === 'Update' ? ref.apiVersion : '',
    ref.subresource,
  ]);
}

/** What a write may own, given where it was sent. */
function ownable(set: FieldSet, ref: ManagerRef, scope: TrackingScope): FieldSet {
  let out = set.difference(STRIPPED_SET).withoutPrefixes([MANAGED_FIELDS_PATH]);
  if (scope.statusSubresource) {
    out =
      ref.subresource === 'status'
        ? out.onlyPrefixes([STATUS_PATH, ['f:metadata', 'f:labels'], ['f:metadata', 'f:annotations']])
        : out.withoutPrefixes([STATUS_PATH]);
  }
  return out;
}

function decodeEntry(raw: unknown): Entry | undefined {
  // `manager` is omitted when empty, as ManagedFieldsEntry's omitempty has it.
  if (!isObject(raw) || (raw.manager !== undefined && typeof raw.manager !== 'string')) return undefined;
  if (raw.operation !== 'Apply' && raw.operation !== 'Update') return undefined;
  if (raw.fieldsType !== undefined && raw.fieldsType !== 'FieldsV1') return undefined;
  let set: FieldSet;
  try {
    set = raw.fieldsV1 === undefined ? new FieldSet() : FieldSet.fromFieldsV1(raw.fieldsV1);
  } catch (e) {
    if (e instanceof FieldsV1Error) return undefined;
    throw e;
  }
  return {
    manager: raw.manager ?? '',
    operation: raw.operation,
    apiVersion: typeof raw.apiVersion === 'string' ? raw.apiVersion : '',
    subresource: raw.subresource === 'status' || raw.subresource === 'scale' ? raw.subresource : '',
    time: typeof raw.time === 'string' ? raw.time : undefined,
    set,
  };
}

/** Decoded managers of stored (frozen, shared) managedFields lists: every update of an object decodes them again. */
const decodedStored = new WeakMap<object, Map<string, Entry>>();

function decodeManagers(raw: unknown): Map<string, Entry> {
  if (!Array.isArray(raw)) return new Map();
  const cached = decodedStored.get(raw);
  // Entries are copied (callers replace their sets); the FieldSets themselves are never changed once built.
  if (cached) return new Map([...cached].map(([id, entry]) => [id, entryOf(entry, entry.time, entry.set)]));
  const out = parseManagers(raw);
  if (Object.isFrozen(raw))
    decodedStored.set(raw, new Map([...out].map(([id, entry]) => [id, entryOf(entry, entry.time, entry.set)])));
  return out;
}

function parseManagers(raw: unknown[]): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const item of raw) {
    const entry = decodeEntry(item);
    if (!entry) continue;
    const id = identity(entry);
    const seen = out.get(id);
    out.set(id, seen ? entryOf(entry, entry.time, seen.set.union(entry.set)) : entry);
  }
  return out;
}

const OPERATION_ORDER: Record<Operation, number> = { Apply: 0, Update: 1 };

/** Sorted as upstream sorts them: operation, then time, then manager, apiVersion and subresource. */
function encodeManagers(managers: Map<string, Entry>): Record<string, unknown>[] {
  const entries = [...managers.values()].filter((e) => !e.set.isEmpty());
  entries.sort(
    (a, b) =>
      OPERATION_ORDER[a.operation] - OPERATION_ORDER[b.operation] ||
      (a.time ?? '').localeCompare(b.time ?? '') ||
      a.manager.localeCompare(b.manager) ||
      a.apiVersion.localeCompare(b.apiVersion) ||
      a.subresource.localeCompare(b.subresource),
  );
  return entries.map((e) => {
    const out: Record<string, unknown> = e.manager ? { manager: e.manager } : {};
    out.operation = e.operation;
    out.apiVersion = e.apiVersion;
    if (e.time) out.time = e.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = e.set.toFieldsV1();
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}

/** managedFields goes last in metadata, where ObjectMeta declares it (and a no-op write then stays byte-equal). */
function setManagedFields(obj: KObject, managers: Map<string, Entry>): void {
  const encoded = encodeManagers(managers);
  delete obj.metadata.managedFields;
  if (encoded.length > 0) obj.metadata.managedFields = encoded;
}

/** Moves managedFields back to the end of metadata after server-set fields were added behind it. */
export function placeManagedFieldsLast(obj: KObject): void {
  const managed = obj.metadata.managedFields;
  if (managed === undefined) return;
  delete obj.metadata.managedFields;
  obj.metadata.managedFields = managed;
}

/** `[{}]` (only empty entries) is the documented way to strip every entry; `[]` keeps what is stored. */
function requestsReset(raw: unknown): boolean {
  return Array.isArray(raw) && raw.length > 0 && raw.every((e) => isObject(e) && Object.keys(e).length === 0);
}

function withoutMeta(obj: KObject | undefined): Record<string, unknown> | undefined {
  if (!obj) return undefined;
  const { managedFields: _ignored, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

let lastSecond = -1;
let lastStamp = '';

/** RFC 3339 to the second, as managedFields times are; formatted once per second, since every write asks. */
function nowSeconds(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastStamp = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
  }
  return lastStamp;
}

/**
 * Records an Update by `ref` that turned `live` (absent for a create) into `next`, in next.metadata.managedFields.
 * The managers to start from are the ones `next` carries when the writer set some, else the stored ones.
 */
export function recordUpdate(live: KObject | undefined, next: KObject, ref: ManagerRef, scope: TrackingScope): void {
  const requested = next.metadata.managedFields;
  if (requestsReset(requested)) {
    delete next.metadata.managedFields;
    return;
  }
  const fromRequest = Array.isArray(requested) && requested.length > 0 && requested !== live?.metadata.managedFields;
  const managers = decodeManagers(fromRequest ? requested : live?.metadata.managedFields);
  const diff = compare(withoutMeta(live), withoutMeta(next), scope.schema);
  const changed = ownable(diff.added.union(diff.modified), ref, scope);
  const removed = diff.removed;
  if (changed.isEmpty() && removed.isEmpty() && !fromRequest) {
    setManagedFields(next, managers);
    return;
  }
  const id = identity(ref);
  for (const [other, entry] of managers) {
    if (other === id) continue;
    entry.set = entry.set.difference(changed).difference(removed);
  }
  const own = managers.get(id);
  const set = (own?.set ?? new FieldSet()).union(changed).difference(removed);
  managers.set(id, entryOf(ref, own && own.set.equals(set) ? own.time : nowSeconds(), set));
  setManagedFields(next, managers);
}

export interface ApplyResult {
  object: KObject;
}

/**
 * Server-side apply of `config` by `ref` onto `live` (absent: the object is created from the configuration).
 * Throws a 409 naming every conflicting field and manager unless `force`; the manager `kubectl` is let through
 * conflicts on fields still as its client-side last-applied annotation recorded them (last-applied.ts).
 */
export function applyConfiguration(
  live: KObject | undefined,
  config: KObject,
  ref: ManagerRef,
  force: boolean,
  scope: TrackingScope,
): KObject {
  const liveBody = withoutMeta(live) ?? {};
  const merged = merge(liveBody, config, scope.schema) as KObject;
  const managers = decodeManagers(live?.metadata.managedFields);
  const id = identity(ref);
  const diff = compare(liveBody, merged, scope.schema);
  const changing = ownable(diff.added.union(diff.modified), ref, scope);

  const conflicts: { manager: Entry; path: FieldPath }[] = [];
  for (const [other, entry] of managers) {
    if (other === id) continue;
    for (const path of entry.set.intersection(changing).paths()) conflicts.push({ manager: entry, path });
  }
  if (conflicts.length > 0 && !force) {
    const waived =
      live && ref.manager === CLIENT_SIDE_APPLY_SUCCESSOR
        ? fieldsStillAsLastApplied(live, liveBody, scope.schema, scope.apiVersions)
        : undefined;
    const remaining = waived ? conflicts.filter((c) => !waived.has(c.path)) : conflicts;
    if (remaining.length > 0) throw conflictError(remaining);
  }
  for (const [other, entry] of managers) {
    if (other !== id) entry.set = entry.set.difference(changing);
  }

  const previous = managers.get(id);
  const applied = ownable(toFieldSet(config, scope.schema), ref, scope);
  const dropped = previous
    ? droppedPaths(
        previous.set,
        applied,
        [...managers].filter(([other]) => other !== id).map(([, e]) => e.set),
      )
    : [];
  removePaths(merged, dropped, scope.schema);

  // Re-applying the same configuration is a no-op: the entry keeps its time so that nothing is written.
  const unchanged =
    !!previous &&
    previous.set.equals(applied) &&
    conflicts.length === 0 &&
    dropped.length === 0 &&
    diff.added.isEmpty() &&
    diff.modified.isEmpty() &&
    previous.apiVersion === ref.apiVersion;
  managers.set(id, entryOf(ref, unchanged ? previous.time : nowSeconds(), applied));

  merged.metadata = isObject(merged.metadata) ? merged.metadata : {};
  setManagedFields(merged, managers);
  if (ref.manager === CLIENT_SIDE_APPLY_SUCCESSOR) syncLastApplied(merged, config);
  return merged;
}

/**
 * What an applier's previous set loses from the object: the paths it no longer applies, except those with anything
 * at or below them still owned, by another manager or by the new configuration itself. A path can own a map or list
 * element as a whole (FieldsV1's `.`) while the configuration names only what is inside it; removing it would take
 * the configured fields along.
 */
function droppedPaths(previous: FieldSet, applied: FieldSet, others: FieldSet[]): FieldPath[] {
  const owners = [applied, ...others];
  return [...previous.difference(applied).paths()].filter((p) => !owners.some((s) => s.hasPrefix(p)));
}

/** kube-apiserver's description of a manager in conflict messages. */
function describe(entry: Entry): string {
  let out = JSON.stringify(entry.manager);
  if (entry.subresource) out += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === 'Update')
    out += entry.time ? ` using ${entry.apiVersion} at ${entry.time}` : ` using ${entry.apiVersion}`;
  return out;
}

function conflictError(conflicts: { manager: Entry; path: FieldPath }[]): StatusError {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${describe(c.manager)}`,
    field: pathString(c.path),
  }));
  if (conflicts.length === 1) {
    return errors.applyConflict(
      `Apply failed with 1 conflict: conflict with ${describe(conflicts[0].manager)}: ${pathString(conflicts[0].path)}`,
      causes,
    );
  }
  const byManager = new Map<string, { entry: Entry; paths: string[] }>();
  for (const c of conflicts) {
    const key = describe(c.manager);
    const group = byManager.get(key) ?? { entry: c.manager, paths: [] };
    group.paths.push(pathString(c.path));
    byManager.set(key, group);
  }
  const lines: string[] = [];
  for (const key of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${key}:`);
    for (const p of byManager.get(key)!.paths) lines.push(`- ${p}`);
  }
  return errors.applyConflict(`Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`, causes);
}
