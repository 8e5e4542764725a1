// The two webhook admission plugins, MutatingAdmissionWebhook and ValidatingAdmissionWebhook, as upstream's
// dispatchers run them. Mutating webhooks are called one after another, each seeing the object as the previous one
// left it; once one of them changed the object, every earlier webhook with reinvocationPolicy IfNeeded is called once
// more (upstream's reinvocation: a webhook is never called for the first time in that round). Validating webhooks are
// called all at once. A call that fails is decided by the webhook's failurePolicy: Fail refuses the write with a 500,
// Ignore lets it go on and counts the failure open.
import type { KObject } from '../../../api/meta/types.js';
import { cloneJson } from '../../../api/meta/clone.js';
import type { StatusError } from '../../../api/meta/errors.js';
import { isExemptAdmissionConfigurationKind } from '../../../api/admissionregistration/v1/admission-common.js';
import type { Registry } from '../../registry/registry.js';
import type { AdmissionPlugin } from '../plugin.js';
import { namespaceObjectOf } from '../match-rules.js';
import {
  callWebhook,
  invocationOf,
  type CallDeps,
  type CallOutcome,
  type Request,
  type WriteView,
} from './webhook-call.js';
import type { CompiledWebhook } from './webhook-config.js';
import { callingFailure } from './webhook-errors.js';
import type { WebhookMetrics, WebhookStepType } from './webhook-metrics.js';
import type { WebhookSource } from './webhook-source.js';

export interface WebhookAdmissionDeps extends CallDeps {
  registry: Registry;
  source: WebhookSource;
  metrics?: WebhookMetrics;
  log?: (line: string) => void;
}

/** Upstream's audit annotation of a call that failed open, per round and position. */
const FAILED_OPEN_PREFIX = { admit: 'failed-open.mutation', validating: 'failed-open.validating' } as const;
/** Upstream's audit annotations of every mutating call: whether it changed the object, and the patch it applied. */
const MUTATION_ANNOTATION_PREFIX = 'mutation.webhook.admission.k8s.io/';
const PATCH_ANNOTATION_PREFIX = 'patch.webhook.admission.k8s.io/';

/**
 * A mutating call in the audit event, as upstream's dispatcher records it: `mutated` at Metadata level for every call
 * made (refused and failed ones too), and the patch it applied, which may carry the object's content, from Request.
 */
function annotateMutation(view: WriteView, hook: CompiledWebhook, position: string, outcome: CallOutcome): void {
  const annotate = view.req.annotate;
  if (!annotate) return;
  const configuration = hook.configurationName;
  const mutated = outcome.kind === 'allowed' && outcome.patched !== undefined;
  annotate(`${MUTATION_ANNOTATION_PREFIX}${position}`, JSON.stringify({ configuration, webhook: hook.name, mutated }));
  if (outcome.kind !== 'allowed' || outcome.patch === undefined) return;
  // Go marshals each operation as a map, its keys sorted.
  const patch = outcome.patch.map((op) =>
    op !== null && typeof op === 'object' && !Array.isArray(op)
      ? Object.fromEntries(Object.entries(op).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : op,
  );
  const value = JSON.stringify({ configuration, webhook: hook.name, patch, patchType: 'JSONPatch' });
  annotate(`${PATCH_ANNOTATION_PREFIX}${position}`, value, 'Request');
}

/** The webhooks' view of a write, undefined when no webhook may look at it. */
async function viewOf(
  registry: Registry,
  req: Request,
  hooks: readonly CompiledWebhook[],
): Promise<WriteView | undefined> {
  // Upstream exempts its own configuration kinds, so that no webhook can lock out the way to change webhooks; the
  // server's own writes (controllers, bootstrap) pass no admission check here.
  if (hooks.length === 0 || !req.user || isExemptAdmissionConfigurationKind(req.def)) return undefined;
  const subresource = req.operation === 'DELETE' ? '' : req.subresource;
  const projection = subresource === '' ? undefined : req.def.projectionSubresources?.[subresource];
  const read = (o: KObject | undefined) => (o && projection ? projection.read(o) : o);
  return {
    req,
    object: req.operation === 'DELETE' ? undefined : read(req.object),
    oldObject: read(req.oldObject),
    subresource,
    projection,
    namespaceObject: await namespaceObjectOf(registry, req),
  };
}

/**
 * Metrics and failurePolicy for one outcome: the refusal to answer with, undefined to go on. `position` names the
 * call in the failed-open audit annotation.
 */
function settle(
  deps: WebhookAdmissionDeps,
  hook: CompiledWebhook,
  type: WebhookStepType,
  view: WriteView,
  started: number,
  outcome: CallOutcome,
  position: string,
): StatusError | undefined {
  const operation = view.req.operation;
  const seconds = (performance.now() - started) / 1000;
  const metrics = deps.metrics;
  switch (outcome.kind) {
    case 'allowed':
      metrics?.observeCall(hook.name, type, operation, seconds, false, 200);
      return undefined;
    case 'rejected':
      metrics?.observeRejection(hook.name, type, operation, 'no_error', outcome.error.code);
      metrics?.observeCall(hook.name, type, operation, seconds, true, outcome.error.code);
      return outcome.error;
    case 'internal':
      metrics?.observeRejection(hook.name, type, operation, 'apiserver_internal_error', 0);
      metrics?.observeCall(hook.name, type, operation, seconds, true, 0);
      return outcome.error;
    case 'calling': {
      const failOpen = hook.failurePolicy === 'Ignore';
      if (!failOpen) metrics?.observeRejection(hook.name, type, operation, 'calling_webhook_error', outcome.code);
      metrics?.observeCall(hook.name, type, operation, seconds, !failOpen, outcome.code);
      if (!failOpen) {
        deps.log?.(`warning: failed calling webhook, failing closed ${hook.name}: ${outcome.reason}`);
        return callingFailure(hook.name, outcome.reason);
      }
      deps.log?.(`warning: failed calling webhook, failing open ${hook.name}: ${outcome.reason}`);
      metrics?.observeFailOpen(hook.name, type);
      view.req.annotate?.(`${FAILED_OPEN_PREFIX[type]}.webhook.admission.k8s.io/${position}`, hook.name);
      return undefined;
    }
  }
}

export function createMutatingWebhookAdmission(deps: WebhookAdmissionDeps): AdmissionPlugin {
  // A deletion comes through too, with no object: a webhook may refuse it, and a patch is refused as upstream does.
  async function mutate(req: Request): Promise<void> {
    const hooks = deps.source.webhooks('mutating');
    const view = await viewOf(deps.registry, req, hooks);
    if (!view) return;
    // Keys of IfNeeded webhooks called so far, and those a later change asks to be called again.
    const reinvocable = new Set<string>();
    let reinvoke = new Set<string>();
    for (const round of [0, 1]) {
      if (round === 1 && reinvoke.size === 0) return;
      const again = reinvoke;
      reinvoke = new Set();
      for (const [index, hook] of hooks.entries()) {
        if (round === 1 && !again.has(hook.key)) continue;
        const invocation = await invocationOf(hook, view, deps.authorizer);
        if (invocation === undefined) continue;
        if (!('hook' in invocation)) throw invocation;
        const position = `round_${round}_index_${index}`;
        const started = performance.now();
        const outcome = await callWebhook(deps, invocation, view);
        annotateMutation(view, hook, position, outcome);
        const refusal = settle(deps, hook, 'admit', view, started, outcome, position);
        if (outcome.kind === 'allowed' && outcome.patched) {
          accept(view, outcome.patched);
          for (const key of reinvocable) reinvoke.add(key);
        }
        if (hook.reinvokeIfNeeded) reinvocable.add(hook.key);
        if (refusal) throw refusal;
      }
      // The second round reinvokes once: a change it makes asks for nothing more.
      if (round === 1) return;
    }
  }
  return {
    name: 'MutatingAdmissionWebhook',
    // Asked at each write: with no mutating webhook in force the registry skips the re-check a mutation needs.
    handles: (def) => deps.source.webhooks('mutating').length > 0 && !isExemptAdmissionConfigurationKind(def),
    mutate,
    mutateDelete: mutate,
  };
}

/** The patched object becomes the write's: through a projection, carried into a copy of the parent. */
function accept(view: WriteView, patched: KObject): void {
  const req = view.req;
  if (req.operation === 'DELETE') return;
  view.object = patched;
  if (view.projection) {
    const parent = cloneJson(req.object);
    view.projection.write(patched, parent);
    req.object = parent;
  } else req.object = patched;
}

export function createValidatingWebhookAdmission(deps: WebhookAdmissionDeps): AdmissionPlugin {
  async function validate(req: Request): Promise<void> {
    const hooks = deps.source.webhooks('validating');
    const view = await viewOf(deps.registry, req, hooks);
    if (!view) return;
    const refusals = await Promise.all(
      hooks.map(async (hook, index): Promise<StatusError | undefined> => {
        const invocation = await invocationOf(hook, view, deps.authorizer);
        if (invocation === undefined) return undefined;
        if (!('hook' in invocation)) return invocation;
        const started = performance.now();
        const outcome = await callWebhook(deps, invocation, view);
        return settle(deps, hook, 'validating', view, started, outcome, `round_0_index_${index}`);
      }),
    );
    // Upstream answers with whichever refusal arrived first; the first in webhook order does not depend on timing.
    const refusal = refusals.find((r) => r !== undefined);
    if (refusal) throw refusal;
  }
  return {
    name: 'ValidatingAdmissionWebhook',
    handles: (def) => deps.source.webhooks('validating').length > 0 && !isExemptAdmissionConfigurationKind(def),
    validate,
    validateDelete: validate,
  };
}
