// Storage seen through another representation (KindDefinition.storedAs): the events.platform.io/v1 Event store reads
// and writes the core/v1 events, converting every object on its way in and out, so both APIs serve one set of objects
// with one history of revisions and one watch stream. Predicates see this kind's form, as they do for stored kinds.
import type { KObject } from '../../api/meta/types.js';
import type { StoredRepresentation } from '../../api/scheme.js';
import type { SelectionPredicate, Storage, StorageEvent } from '../../backends/storage.js';

export function convertingStorage(inner: Storage, representation: StoredRepresentation): Storage {
  const out = (stored: KObject): KObject => representation.fromStorage(stored);
  const into = (obj: KObject): KObject => representation.toStorage(obj);
  const outPredicate = (predicate: SelectionPredicate | undefined): SelectionPredicate | undefined =>
    predicate && !predicate.empty ? { empty: false, matches: (stored) => predicate.matches(out(stored)) } : predicate;
  const outEvent = (ev: StorageEvent): StorageEvent => {
    const converted: StorageEvent = { type: ev.type, revision: ev.revision, key: ev.key };
    if (ev.object) converted.object = out(ev.object);
    if (ev.prevObject) converted.prevObject = out(ev.prevObject);
    return converted;
  };
  return {
    get: async (key, opts) => out(await inner.get(key, opts)),
    async getList(prefix, opts) {
      const result = await inner.getList(prefix, opts && { ...opts, predicate: outPredicate(opts.predicate) });
      return { ...result, items: result.items.map(out) };
    },
    create: async (key, obj) => out(await inner.create(key, into(obj))),
    guaranteedUpdate: async (key, tryUpdate, opts) =>
      out(
        await inner.guaranteedUpdate(
          key,
          async (current) => into(await tryUpdate(out(current))),
          opts && { ...opts, createFrom: opts.createFrom && (() => into(opts.createFrom!())) },
        ),
      ),
    delete: async (key, opts) =>
      out(
        await inner.delete(
          key,
          opts && { ...opts, validate: opts.validate && ((current) => opts.validate!(out(current))) },
        ),
      ),
    async *watch(key, opts, signal) {
      for await (const ev of inner.watch(key, opts, signal)) yield outEvent(ev);
    },
    currentRevision: () => inner.currentRevision(),
    compactedRevision: () => inner.compactedRevision(),
    count: (prefix) => inner.count(prefix),
    readiness: () => inner.readiness(),
    // The storage belongs to the registry's owner, which closes it once.
    close: async () => {},
  };
}
