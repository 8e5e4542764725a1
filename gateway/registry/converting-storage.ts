// Storage seen through another representation (KindDefinition.storedAs): the events.platform.io/v1 Event store reads
// and writes the core/v1 events, and every version of a custom resource the objects of its storage version, converting
// every object on its way in and out, so that all of them serve one set of objects with one history of revisions and
// one watch stream. Predicates see this kind's form, as they do for stored kinds.
import type { KObject } from '../../api/meta/types.js';
import type { StoredRepresentation } from '../../api/scheme.js';
import type { SelectionPredicate, Storage, StorageEvent } from '../../backends/storage.js';

export function convertingStorage(inner: Storage, representation: StoredRepresentation): Storage {
  const out = (stored: KObject): KObject => representation.fromStorage(stored);
  const into = (obj: KObject): KObject => representation.toStorage(obj);
  // A conversion with a round trip (a webhook) converts what callers are handed; predicates keep the local form, which
  // they must match synchronously while the backend pages through its objects.
  const convert = representation.convert;
  const outAll = convert
    ? (stored: readonly KObject[]) => convert.listFromStorage(stored)
    : (stored: readonly KObject[]) => stored.map(out);
  const outOne = convert ? (stored: KObject) => convert.fromStorage(stored) : out;
  const intoStored = convert ? (obj: KObject) => convert.toStorage(obj) : into;
  // The placeholder a PUT-create starts from was never stored and holds nothing to convert.
  const outCurrent = (stored: KObject) => (stored.metadata.resourceVersion ? outOne(stored) : out(stored));
  const outPredicate = (predicate: SelectionPredicate | undefined): SelectionPredicate | undefined =>
    predicate && !predicate.empty ? { empty: false, matches: (stored) => predicate.matches(out(stored)) } : predicate;
  const outEvent = async (ev: StorageEvent): Promise<StorageEvent> => {
    const converted: StorageEvent = { type: ev.type, revision: ev.revision, key: ev.key };
    // Each object on its own, as upstream decodes every watch event's object: a selector needs the previous one too.
    const [object, prevObject] = await Promise.all([
      ev.object && outOne(ev.object),
      ev.prevObject && outOne(ev.prevObject),
    ]);
    if (object) converted.object = object;
    if (prevObject) converted.prevObject = prevObject;
    return converted;
  };
  return {
    get: async (key, opts) => outOne(await inner.get(key, opts)),
    async getList(prefix, opts) {
      const result = await inner.getList(prefix, opts && { ...opts, predicate: outPredicate(opts.predicate) });
      return { ...result, items: await outAll(result.items) };
    },
    create: async (key, obj) => outOne(await inner.create(key, await intoStored(obj))),
    guaranteedUpdate: async (key, tryUpdate, opts) =>
      outOne(
        await inner.guaranteedUpdate(
          key,
          async (current) => intoStored(await tryUpdate(await outCurrent(current))),
          opts && { ...opts, createFrom: opts.createFrom && (() => into(opts.createFrom!())) },
        ),
      ),
    delete: async (key, opts) =>
      outOne(
        await inner.delete(
          key,
          opts && { ...opts, validate: opts.validate && (async (current) => opts.validate!(await outOne(current))) },
        ),
      ),
    async *watch(key, opts, signal) {
      for await (const ev of inner.watch(key, opts, signal)) yield convert ? await outEvent(ev) : syncOutEvent(ev, out);
    },
    currentRevision: () => inner.currentRevision(),
    compactedRevision: () => inner.compactedRevision(),
    count: (prefix) => inner.count(prefix),
    readiness: () => inner.readiness(),
    // The storage belongs to the registry's owner, which closes it once.
    close: async () => {},
  };
}

function syncOutEvent(ev: StorageEvent, out: (stored: KObject) => KObject): StorageEvent {
  const converted: StorageEvent = { type: ev.type, revision: ev.revision, key: ev.key };
  if (ev.object) converted.object = out(ev.object);
  if (ev.prevObject) converted.prevObject = out(ev.prevObject);
  return converted;
}
