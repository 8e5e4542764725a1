// The webhook admission plugins as the unit tests drive them: two real HTTPS test webhooks started once per file, a
// fresh client, manual clock and metrics registry per test, the plugins built over configurations given as plain
// objects (compiled as the informers compile them), and admission requests for ConfigMaps in a namespace whose labels
// the namespace selector reads.
import type { KObject } from '../../api/meta/types.js';
import type { StatusError } from '../../api/meta/errors.js';
import type { KindDefinition } from '../../api/scheme.js';
import { builtinKinds } from '../../api/register.js';
import type { Registry } from '../../gateway/registry/registry.js';
import type { AdmissionRequest } from '../../gateway/registry/admission-types.js';
import { MetricsRegistry } from '../../gateway/metrics/registration.js';
import type { ServiceResolver } from '../../gateway/aggregator/service-resolver.js';
import { compileWebhooks, type CompiledWebhook } from '../../gateway/admission/webhook/webhook-config.js';
import { createWebhookClient, type WebhookClient } from '../../gateway/admission/webhook/webhook-client.js';
import { createWebhookMetrics, type WebhookMetrics } from '../../gateway/admission/webhook/webhook-metrics.js';
import {
  createMutatingWebhookAdmission,
  createValidatingWebhookAdmission,
} from '../../gateway/admission/webhook/webhook-admission.js';
import type { AdmissionReviewGroup } from '../../gateway/admission/webhook/admission-review.js';
import { ManualClock } from './manual-clock.js';
import { startTestWebhook, type TestWebhook } from './webhook-server.js';
import { answer, webhookConfiguration } from './admission-webhook.js';

export const defOf = (group: string, kind: string): KindDefinition => {
  const def = builtinKinds.find((k) => k.group === group && k.kind === kind);
  if (!def) throw new Error(`no kind ${group}/${kind}`);
  return def;
};
export const CONFIGMAP = defOf('', 'ConfigMap');
export const USER = { name: 'alice', uid: 'u-1', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['x'] } };

const namespaces: Record<string, KObject> = {
  'team-a': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { env: 'prod' } } },
  'team-b': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b', labels: { env: 'dev' } } },
};
const registry = {
  byKind: (group: string, kind: string) =>
    group === '' && kind === 'Namespace' ? { get: async (_ns: string, name: string) => namespaces[name] } : undefined,
} as unknown as Registry;

export function configMap(name: string, labels: Record<string, string> = {}): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team-a', labels }, data: { a: '1' } };
}

export interface Written extends AdmissionRequest {
  warnings: string[];
  annotations: Record<string, string>;
}

export function create(object: KObject, extra: Partial<AdmissionRequest> = {}): Written {
  const annotations: Record<string, string> = {};
  const def = extra.def ?? CONFIGMAP;
  const kind = { group: def.group, version: def.version, kind: def.kind };
  const resource = { group: def.group, version: def.version, resource: def.resource };
  return {
    uid: 'request-uid',
    operation: 'CREATE',
    def,
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    requestSubResource: '',
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name ?? '',
    subresource: '',
    object,
    user: USER,
    dryRun: extra.dryRun ?? false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', ...(extra.dryRun ? { dryRun: ['All'] } : {}) },
    warnings: [],
    annotations,
    annotate: (key, value) => void (annotations[key] ??= value),
    ...extra,
  };
}

export async function refusal(run: Promise<void>): Promise<StatusError> {
  try {
    await run;
  } catch (e) {
    return e as StatusError;
  }
  throw new Error('expected a refusal');
}

type Hooks = Record<string, unknown>[];

export interface WebhookHarness {
  /** Serves /admit, its certificate also valid for hook.webhooks.svc. */
  hook: TestWebhook;
  other: TestWebhook;
  clock: ManualClock;
  metrics: MetricsRegistry;
  /** What service clientConfigs resolve through; none by default. */
  resolver?: ServiceResolver;
  plugins: (
    mutating: Hooks,
    validating?: Hooks,
    reviewGroup?: AdmissionReviewGroup,
  ) => ReturnType<typeof webhookPlugins>;
  validate: (hooks: Hooks, req: AdmissionRequest) => Promise<void>;
  mutate: (hooks: Hooks, req: AdmissionRequest) => Promise<void>;
}

function webhookPlugins(deps: Parameters<typeof createMutatingWebhookAdmission>[0]) {
  return { mutating: createMutatingWebhookAdmission(deps), validating: createValidatingWebhookAdmission(deps) };
}

/** Registers the mocha hooks of the current describe and answers the harness its tests use. */
export function webhookHarness(): WebhookHarness {
  let client: WebhookClient;
  let webhookMetrics: WebhookMetrics;
  const h = {} as WebhookHarness;
  before(async () => {
    h.hook = await startTestWebhook((r) => answer(r), { path: '/admit', dnsNames: ['hook.webhooks.svc'] });
    h.other = await startTestWebhook((r) => answer(r), { path: '/other' });
  });
  after(async () => {
    await h.hook.close();
    await h.other.close();
  });
  beforeEach(() => {
    h.clock = new ManualClock();
    h.metrics = new MetricsRegistry();
    webhookMetrics = createWebhookMetrics(h.metrics);
    h.resolver = undefined;
    client = createWebhookClient({ resolver: () => h.resolver, clock: h.clock });
    for (const hook of [h.hook, h.other]) {
      hook.received.length = 0;
      hook.behave = (r) => answer(r);
    }
  });
  afterEach(() => {
    client.close();
    h.resolver?.close();
  });
  h.plugins = (mutating, validating = [], reviewGroup = 'k8s.io') => {
    const compiled = {
      mutating: compileWebhooks(webhookConfiguration('MutatingWebhookConfiguration', 'm', mutating), 'mutating'),
      validating: compileWebhooks(
        webhookConfiguration('ValidatingWebhookConfiguration', 'v', validating),
        'validating',
      ),
    };
    const source = {
      webhooks: (type: 'mutating' | 'validating'): readonly CompiledWebhook[] => compiled[type],
      synced: Promise.resolve(),
      stop: async () => {},
    };
    return webhookPlugins({ registry, source, client, reviewGroup, metrics: webhookMetrics });
  };
  h.validate = (hooks, req) => h.plugins([], hooks).validating.validate!(req);
  h.mutate = (hooks, req) => h.plugins(hooks).mutating.mutate!(req);
  return h;
}
