// Server-side apply against random ownership histories, through the real registry store on memory storage: creates,
// updates, merge patches, client-side applies (the last-applied annotation by kubectl's Update manager), applies with
// and without force, kubectl's move of an Update entry's fields into an Apply entry, and entries rewritten to own
// maps and list elements as a whole (both bring FieldsV1 "." markers into appliers' sets), by several managers.
// After every apply that succeeds:
//   - the same apply, repeated at once, writes nothing (the resourceVersion stays);
//   - every field of its configuration is in the result, and so is every field another manager owned before it.
// Histories are seeded: a failure names its seed and prints its history; SSA_FUZZ_SEED=<n> replays one seed, and
// SSA_FUZZ_HISTORIES=<n> runs more of them.
import type { KObject } from '../../api/meta/types.js';
import { isStatusError } from '../../api/meta/errors.js';
import { builtinKinds } from '../../api/register.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import { createRegistry } from '../../gateway/registry/registry.js';
import type { ResourceStore } from '../../gateway/registry/store.js';
import type { WriteContext } from '../../gateway/registry/admission-types.js';
import { mergePatch } from '../../gateway/patch/patch-types.js';
import { FieldSet } from '../../gateway/registry/managed-fields/field-set.js';
import { toFieldSet } from '../../gateway/registry/managed-fields/typed.js';

const HISTORIES_PER_KIND = Number(process.env.SSA_FUZZ_HISTORIES ?? 80);
const OPS_PER_HISTORY = 12;
const NS = 'fuzz';
const MANAGERS = ['alpha', 'beta', 'kubectl'];
const CLIENT_SIDE = 'kubectl-client-side-apply';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

type Random = { int(n: number): number; chance(p: number): boolean; pick<T>(items: readonly T[]): T };

/** mulberry32: small, fast and the same on every machine. */
function random(seed: number): Random {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
  };
}

/** A random string map over a few keys (values from a few), or undefined. */
function someMap(
  r: Random,
  keys: readonly string[],
  values: readonly string[],
  p = 0.5,
): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const k of keys) if (r.chance(p)) out[k] = r.pick(values);
  return Object.keys(out).length > 0 || r.chance(0.3) ? out : undefined;
}

/** A random merge patch over the same keys: set, delete (null) or leave each. */
function someMapPatch(
  r: Random,
  keys: readonly string[],
  values: readonly string[],
): Record<string, string | null> | undefined {
  const out: Record<string, string | null> = {};
  for (const k of keys) {
    const roll = r.int(3);
    if (roll === 0) out[k] = r.pick(values);
    else if (roll === 1) out[k] = null;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

interface KindUnderTest {
  kind: string;
  group: string;
  /** A random applied configuration (also a create body, a client-side applied manifest). */
  config(r: Random, name: string): KObject;
  /** A random merge patch. */
  patch(r: Random): Record<string, unknown>;
}

const configMaps: KindUnderTest = {
  kind: 'ConfigMap',
  group: '',
  config(r, name) {
    const metadata: Record<string, unknown> = { name };
    const labels = someMap(r, ['x', 'y'], ['1', '2']);
    if (labels) metadata.labels = labels;
    const annotations = someMap(r, ['note'], ['a', 'b'], 0.3);
    if (annotations) metadata.annotations = annotations;
    // A set list: its elements are owned by value (v: elements).
    if (r.chance(0.3)) metadata.finalizers = ['fuzz.io/a', 'fuzz.io/b'].filter(() => r.chance(0.5));
    const obj: Record<string, unknown> = { apiVersion: 'v1', kind: 'ConfigMap', metadata };
    const data = someMap(r, ['a', 'b', 'c'], ['1', '2']);
    if (data) obj.data = data;
    return obj as KObject;
  },
  patch(r) {
    const out: Record<string, unknown> = {};
    const data = someMapPatch(r, ['a', 'b', 'c'], ['1', '2', '3']);
    if (data) out.data = r.chance(0.1) ? null : data;
    const labels = someMapPatch(r, ['x', 'y'], ['1', '2']);
    if (labels) out.metadata = { labels };
    if (r.chance(0.2)) out.metadata = { ...(out.metadata as object), finalizers: r.chance(0.5) ? null : ['fuzz.io/b'] };
    return out;
  },
};

const replicaSets: KindUnderTest = {
  kind: 'ReplicaSet',
  group: 'apps',
  config(r, name) {
    const spec: Record<string, unknown> = {};
    if (r.chance(0.5)) spec.replicas = r.int(2);
    // Mostly valid: the selector and the template labels agree; sometimes one is left to whoever owns it.
    if (r.chance(0.85)) spec.selector = { matchLabels: { app: 'w' } };
    const template: Record<string, unknown> = {};
    if (r.chance(0.85))
      template.metadata = { labels: { app: 'w', ...(r.chance(0.3) ? { tier: r.pick(['a', 'b']) } : {}) } };
    const containers = ['c1', 'c2']
      .filter(() => r.chance(0.6))
      .map((c) => ({
        name: c,
        image: r.pick(['i:1', 'i:2']),
        ...(r.chance(0.3) ? { args: [r.pick(['x', 'y'])] } : {}),
      }));
    if (containers.length > 0) template.spec = { containers };
    if (Object.keys(template).length > 0) spec.template = template;
    const metadata: Record<string, unknown> = { name };
    const labels = someMap(r, ['x'], ['1', '2']);
    if (labels) metadata.labels = labels;
    return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata, spec };
  },
  patch(r) {
    const roll = r.int(4);
    if (roll === 0) return { spec: { replicas: r.int(3) } };
    if (roll === 1) return { metadata: { labels: someMapPatch(r, ['x', 'y'], ['1', '2']) ?? { x: null } } };
    if (roll === 2)
      return { spec: { template: { metadata: { labels: { tier: r.chance(0.5) ? null : r.pick(['a', 'b']) } } } } };
    return {
      spec: { template: { spec: { containers: [{ name: r.pick(['c1', 'c2']), image: r.pick(['i:1', 'i:3']) }] } } },
    };
  },
};

type Step =
  | { op: 'create' | 'update' | 'client-side-apply'; manager: string; body: unknown }
  | { op: 'patch'; manager: string; patch: unknown }
  | { op: 'apply'; manager: string; force: boolean; config: KObject }
  | { op: 'migrate'; from: string; to: string }
  | { op: 'mark'; manager: string; fieldsV1: unknown };

const ctxOf = (manager: string): WriteContext => ({
  dryRun: false,
  fieldValidation: 'Ignore',
  duplicateFields: [],
  warnings: [],
  fieldManager: manager,
});

function withoutManagedFields(obj: KObject): Record<string, unknown> {
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** kubectl's csaupgrade: the Update entry's fields joined into the manager's Apply entry, the Update entry dropped. */
function migrated(current: KObject, from: string, to: string): KObject['metadata']['managedFields'] | undefined {
  const entries = (current.metadata.managedFields ?? []) as Array<Record<string, any>>;
  const source = entries.find((e) => e.manager === from && e.operation === 'Update');
  if (!source) return undefined;
  const target = entries.find((e) => e.manager === to && e.operation === 'Apply') ?? {
    ...source,
    manager: to,
    operation: 'Apply',
  };
  const joined = FieldSet.fromFieldsV1(target.fieldsV1 ?? {}).union(FieldSet.fromFieldsV1(source.fieldsV1 ?? {}));
  const rest = entries.filter((e) => e !== source && e !== target);
  return [...rest, { ...target, fieldsV1: joined.toFieldsV1() }] as KObject['metadata']['managedFields'];
}

/** The entry's FieldsV1 with a random choice of its inner nodes also owned as a whole, as an Update would own them. */
function withDots(r: Random, fieldsV1: Record<string, any>, depth = 0): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(fieldsV1)) {
    const inner = Object.keys(v).filter((key) => key !== '.');
    out[k] =
      inner.length > 0 ? { ...withDots(r, v, depth + 1), ...(depth > 0 && r.chance(0.5) ? { '.': {} } : {}) } : v;
  }
  return out;
}

async function runHistory(store: ResourceStore, kut: KindUnderTest, seed: number): Promise<void> {
  const r = random(seed);
  const name = `h${seed}`;
  const history: Step[] = [];
  const fail = (why: string): never => {
    throw new Error(
      `seed ${seed} (${kut.kind}): ${why}\nhistory:\n${history.map((s) => JSON.stringify(s)).join('\n')}`,
    );
  };
  const current = async (): Promise<KObject | undefined> =>
    store.get(NS, name).catch((e) => {
      if (isStatusError(e) && e.code === 404) return undefined;
      throw e;
    });
  const attempt = async <T>(write: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await write();
    } catch (e) {
      // Refusals (conflicts, invalid objects) are part of a history; anything else is a finding.
      if (isStatusError(e) && e.code >= 400 && e.code < 500) return undefined;
      return fail(`unexpected error ${String(e instanceof Error ? e.stack : e)}`);
    }
  };

  for (let i = 0; i < OPS_PER_HISTORY; i++) {
    const live = await current();
    const manager = r.pick([...MANAGERS, CLIENT_SIDE]);
    const roll = r.int(10);
    if (!live && roll < 3) {
      const body = kut.config(r, name);
      history.push({ op: 'create', manager, body });
      await attempt(() => store.create(NS, structuredClone(body), ctxOf(manager)));
    } else if (live && roll < 2) {
      const body = mergePatch(structuredClone(live), kut.patch(r));
      history.push({ op: 'update', manager, body });
      await attempt(() => store.update(NS, name, body, ctxOf(manager), ''));
    } else if (live && roll < 4) {
      const patch = kut.patch(r);
      history.push({ op: 'patch', manager, patch });
      await attempt(() => store.patch(NS, name, (cur) => mergePatch(cur, patch), ctxOf(manager), ''));
    } else if (roll < 5) {
      // What `kubectl apply -f` leaves: the manifest's fields and the annotation, written by its Update manager.
      const manifest = kut.config(r, name);
      const annotated = mergePatch(manifest, {
        metadata: { annotations: { [LAST_APPLIED]: `${JSON.stringify(manifest)}\n` } },
      });
      history.push({ op: 'client-side-apply', manager: CLIENT_SIDE, body: annotated });
      await attempt(() =>
        live
          ? store.patch(NS, name, (cur) => mergePatch(cur, annotated), ctxOf(CLIENT_SIDE), '')
          : store.create(NS, structuredClone(annotated), ctxOf(CLIENT_SIDE)),
      );
    } else if (live && roll < 6 && r.chance(0.4)) {
      const entries = (live.metadata.managedFields ?? []) as Array<Record<string, any>>;
      const index = r.int(entries.length);
      if (entries.length === 0) continue;
      const fieldsV1 = withDots(r, entries[index].fieldsV1 ?? {});
      history.push({ op: 'mark', manager: entries[index].manager, fieldsV1 });
      const managedFields = entries.map((e, i) =>
        i === index ? { ...e, fieldsV1 } : e,
      ) as KObject['metadata']['managedFields'];
      await attempt(() =>
        store.patch(NS, name, (cur) => ({ ...cur, metadata: { ...cur.metadata, managedFields } }), ctxOf('marker'), ''),
      );
    } else if (live && roll < 6) {
      const from = r.pick([CLIENT_SIDE, ...MANAGERS]);
      const to = r.pick(MANAGERS);
      const managedFields = migrated(live, from, to);
      if (!managedFields) continue;
      history.push({ op: 'migrate', from, to });
      await attempt(() =>
        store.patch(
          NS,
          name,
          (cur) => ({ ...cur, metadata: { ...cur.metadata, managedFields } }),
          ctxOf('kubectl'),
          '',
        ),
      );
    } else {
      const applier = r.pick(MANAGERS);
      const config = kut.config(r, name);
      const force = r.chance(0.3);
      history.push({ op: 'apply', manager: applier, force, config });
      const result = await attempt(() => store.apply(NS, name, structuredClone(config), force, ctxOf(applier), ''));
      if (result) await checkApply(store, live, result.object, applier, force, config, name, fail);
    }
  }
}

async function checkApply(
  store: ResourceStore,
  before: KObject | undefined,
  after: KObject,
  applier: string,
  force: boolean,
  config: KObject,
  name: string,
  fail: (why: string) => never,
): Promise<void> {
  const schema = store.def.schema;
  const again = await store
    .apply(NS, name, structuredClone(config), force, ctxOf(applier), '')
    .catch((e) => fail(`the repeated apply failed: ${String(e)}`));
  if (again.object.metadata.resourceVersion !== after.metadata.resourceVersion) {
    fail(`the repeated apply wrote again:\nfirst:  ${JSON.stringify(after)}\nsecond: ${JSON.stringify(again.object)}`);
  }
  const present = toFieldSet(withoutManagedFields(after), schema);
  for (const path of toFieldSet(config, schema).paths()) {
    if (!present.hasPrefix(path))
      fail(`the apply lost ${path.join('/')} of its configuration: ${JSON.stringify(after)}`);
  }
  if (!before) return;
  const existed = toFieldSet(withoutManagedFields(before), schema);
  for (const entry of before.metadata.managedFields ?? []) {
    if (entry.manager === applier && entry.operation === 'Apply') continue;
    for (const path of FieldSet.fromFieldsV1(entry.fieldsV1 ?? {}).paths()) {
      if (existed.hasPrefix(path) && !present.hasPrefix(path)) {
        fail(
          `the apply removed ${path.join('/')}, owned by ${entry.manager} (${entry.operation}):\nbefore: ${JSON.stringify(before)}\nafter:  ${JSON.stringify(after)}`,
        );
      }
    }
  }
}

describe('server-side apply over random ownership histories', function () {
  this.timeout(HISTORIES_PER_KIND * 1_000);
  const only = process.env.SSA_FUZZ_SEED ? Number(process.env.SSA_FUZZ_SEED) : undefined;

  for (const kut of [configMaps, replicaSets]) {
    it(`${kut.kind}: a repeated apply is a no-op, and an apply keeps its configuration and others' fields`, async () => {
      const storage = createMemoryStorage({ historyWindowMs: 1_000 });
      try {
        const registry = createRegistry(builtinKinds, storage, createKindValidator);
        await registry.byKind('', 'Namespace')!.create('', { metadata: { name: NS } }, ctxOf('setup'));
        const store = registry.byKind(kut.group, kut.kind)!;
        const seeds = only !== undefined ? [only] : Array.from({ length: HISTORIES_PER_KIND }, (_, i) => i + 1);
        for (const seed of seeds) await runHistory(store, kut, seed);
      } finally {
        await storage.close();
      }
    });
  }
});
