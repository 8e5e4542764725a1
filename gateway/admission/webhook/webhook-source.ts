// The webhooks in force, as the admission plugins read them: an informer per configuration kind keeps them in memory,
// each configuration compiled once per generation. A write on any replica reaches every replica through its own watch,
// so a new or changed webhook takes effect without a restart. Webhooks are called in upstream's order: configurations
// sorted by name, then each configuration's webhooks in the order written.
import type { KObject } from '../../../api/meta/types.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../../api/admissionregistration/v1/admission-common.js';
import { startInformer, type Informer } from '../../controllers/informer.js';
import type { Registry } from '../../registry/registry.js';
import {
  compileWebhooks,
  MUTATING_KIND,
  VALIDATING_KIND,
  type CompiledWebhook,
  type WebhookType,
} from './webhook-config.js';

export interface WebhookSource {
  /** Every webhook of that type in calling order; the same array until a configuration changes. */
  webhooks(type: WebhookType): readonly CompiledWebhook[];
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

interface Known {
  resourceVersion: string;
  webhooks: CompiledWebhook[];
}

function followKind(
  registry: Registry,
  kind: string,
  type: WebhookType,
  opts: SourceOptions,
): { informer?: Informer; list: () => readonly CompiledWebhook[] } {
  const configurations = new Map<string, Known>();
  let ordered: CompiledWebhook[] = [];
  const refresh = () => {
    ordered = [...configurations.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([, known]) => known.webhooks);
    opts.onChange?.();
  };
  const put = (obj: KObject) => {
    const name = obj.metadata.name ?? '';
    // A relist hands every configuration again: one already compiled at this version is kept.
    if (configurations.get(name)?.resourceVersion === obj.metadata.resourceVersion) return;
    configurations.set(name, {
      resourceVersion: obj.metadata.resourceVersion ?? '',
      webhooks: compileWebhooks(obj, type),
    });
  };
  const store = registry.byKind(ADMISSIONREGISTRATION_GROUP, kind);
  if (!store) return { list: () => ordered };
  const informer = startInformer(
    store,
    {
      replace(objects) {
        const listed = new Set(objects.map((o) => o.metadata.name ?? ''));
        for (const name of [...configurations.keys()]) if (!listed.has(name)) configurations.delete(name);
        for (const o of objects) put(o);
        refresh();
      },
      put(o) {
        put(o);
        refresh();
      },
      removed(o) {
        configurations.delete(o.metadata.name ?? '');
        refresh();
      },
    },
    { log: opts.log },
  );
  return { informer, list: () => ordered };
}

export interface SourceOptions {
  log: (line: string) => void;
  /** Called after the webhooks in force changed. */
  onChange?: () => void;
}

export function startWebhookSource(registry: Registry, opts: SourceOptions): WebhookSource {
  const mutating = followKind(registry, MUTATING_KIND, 'mutating', opts);
  const validating = followKind(registry, VALIDATING_KIND, 'validating', opts);
  const informers = [mutating.informer, validating.informer].filter((i): i is Informer => i !== undefined);
  return {
    webhooks: (type) => (type === 'mutating' ? mutating.list() : validating.list()),
    synced: Promise.all(informers.map((i) => i.synced)).then(() => undefined),
    async stop() {
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}
