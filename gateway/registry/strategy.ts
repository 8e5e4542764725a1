// The generic half of every resource strategy: what the server owns in metadata, how status and spec are kept
// apart when a kind has a status subresource, and when generation moves. KindDefinition hooks add the kind's own
// rules on top.
import { randomBytes, randomUUID } from 'node:crypto';
import type { KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import { cloneJson } from '../../api/meta/clone.js';

// Timestamps have whole seconds, and every create in the same second shares one: formatting a Date was a visible
// share of a create's CPU.
let formattedSecond = Number.NaN;
let formatted = '';

export function nowRFC3339(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== formattedSecond) {
    formattedSecond = second;
    // toISOString is always YYYY-MM-DDTHH:mm:ss.sssZ for the years a clock shows: drop the milliseconds.
    formatted = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
  }
  return formatted;
}

const NAME_SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** generateName + 5 random characters from the alphabet kube-apiserver uses (no vowels, no look-alikes). */
export function generateName(prefix: string): string {
  const maxPrefix = 63 - 5;
  const base = prefix.length > maxPrefix ? prefix.slice(0, maxPrefix) : prefix;
  const bytes = randomBytes(5);
  let suffix = '';
  for (const b of bytes) suffix += NAME_SUFFIX_ALPHABET[b % NAME_SUFFIX_ALPHABET.length];
  return base + suffix;
}

/**
 * The part of an object whose change bumps generation: everything outside metadata, and outside status when status
 * has a subresource of its own (without one, status is written with the rest of the object and is part of it, as
 * upstream).
 */
function specView(def: KindDefinition, obj: KObject): string {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  if (def.statusSubresource) delete rest.status;
  return JSON.stringify(rest);
}

export function prepareForCreate(def: KindDefinition, obj: KObject): void {
  const meta = obj.metadata;
  meta.uid = randomUUID();
  meta.creationTimestamp = nowRFC3339();
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  if (def.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  if (!def.namespaced) delete meta.namespace;
  // Status belongs to controllers, which write it through /status.
  if (def.statusSubresource && !def.keepStatusOnCreate) delete obj.status;
  def.prepareForCreate?.(obj);
}

/** A write through the main resource: server-owned metadata and (with a status subresource) status stay as stored. */
export function prepareForUpdate(def: KindDefinition, obj: KObject, old: KObject): void {
  const meta = obj.metadata;
  const oldMeta = old.metadata;
  // An update may omit the uid; a different one is refused by metadata validation (immutable).
  meta.uid = meta.uid || oldMeta.uid;
  meta.creationTimestamp = oldMeta.creationTimestamp;
  meta.resourceVersion = oldMeta.resourceVersion;
  if (oldMeta.deletionTimestamp) {
    meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined)
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  } else {
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
  }
  if (def.statusSubresource) {
    if (old.status === undefined) delete obj.status;
    else obj.status = cloneJson(old.status);
  }
  def.prepareForUpdate?.(obj, old);
  if (def.tracksGeneration) {
    const generation = oldMeta.generation ?? 1;
    meta.generation = specView(def, obj) === specView(def, old) ? generation : generation + 1;
  } else {
    delete meta.generation;
  }
}

/**
 * A write through /status: only status changes; everything else (metadata included, as ResetObjectMetaForStatus
 * does upstream) is taken from the stored object.
 */
export function prepareForStatusUpdate(obj: KObject, old: KObject): KObject {
  const next = cloneJson(old);
  if (obj.status === undefined) delete next.status;
  else next.status = obj.status;
  return next;
}
