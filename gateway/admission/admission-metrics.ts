// Upstream's admission step and controller latencies (k8s.io/apiserver's admission metrics): every plugin's step is
// timed as a controller (`type` admit or validate), and each phase of a write as a step, from its first plugin until
// the last one or the refusal. The plugins are wrapped rather than the chain, so that whoever builds the chain from
// the list (the registry) gets the metrics with it.
import type { MetricsRegistry } from '../metrics/registration.js';
import type { AdmissionPlugin } from './plugin.js';

const BUCKETS = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5];

type Phase = 'mutate' | 'mutateDelete' | 'validate' | 'validateDelete';
type StepType = 'admit' | 'validate';

const TYPE: Record<Phase, StepType> = {
  mutate: 'admit',
  mutateDelete: 'admit',
  validate: 'validate',
  validateDelete: 'validate',
};

export interface AdmissionMetrics {
  observeStep(type: StepType, operation: string, rejected: boolean, seconds: number): void;
  observeController(name: string, type: StepType, operation: string, rejected: boolean, seconds: number): void;
}

export function createAdmissionMetrics(registry: MetricsRegistry): AdmissionMetrics {
  const step = registry.histogram({
    name: 'apiserver_admission_step_admission_duration_seconds',
    help: 'Admission sub-step latency histogram in seconds, broken out for each operation and API resource and step type (validate or admit).',
    stability: 'STABLE',
    labelNames: ['type', 'operation', 'rejected'],
    buckets: BUCKETS,
  });
  const controller = registry.histogram({
    name: 'apiserver_admission_controller_admission_duration_seconds',
    help: 'Admission controller latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    stability: 'STABLE',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: BUCKETS,
  });
  return {
    observeStep: (type, operation, rejected, seconds) =>
      step.observe({ type, operation, rejected: String(rejected) }, seconds),
    observeController: (name, type, operation, rejected, seconds) =>
      controller.observe({ name, type, operation, rejected: String(rejected) }, seconds),
  };
}

type Step = (req: { def: Parameters<AdmissionPlugin['handles']>[0]; operation: string }) => Promise<void>;

/** The same plugins, in the same order, each step timed; the phases timed from their first step to their last. */
export function observeAdmission(plugins: readonly AdmissionPlugin[], metrics: AdmissionMetrics): AdmissionPlugin[] {
  // When each write's phase started (its first step), keyed by the request object the chain hands every plugin.
  const started = new Map<Phase, WeakMap<object, number>>([
    ['mutate', new WeakMap()],
    ['mutateDelete', new WeakMap()],
    ['validate', new WeakMap()],
    ['validateDelete', new WeakMap()],
  ]);
  const runs = (plugin: AdmissionPlugin, phase: Phase, req: Parameters<Step>[0]) =>
    plugin[phase] !== undefined && plugin.handles(req.def);

  function wrap(plugin: AdmissionPlugin, index: number, phase: Phase): Step | undefined {
    if (!plugin[phase]) return undefined;
    const step: Step = (req) => (plugin[phase] as Step).call(plugin, req);
    const type = TYPE[phase];
    return async (req) => {
      const phaseStarts = started.get(phase) as WeakMap<object, number>;
      const begin = performance.now();
      if (!phaseStarts.has(req)) phaseStarts.set(req, begin);
      let rejected = true;
      try {
        await step(req);
        rejected = false;
      } finally {
        const end = performance.now();
        metrics.observeController(plugin.name, type, req.operation, rejected, (end - begin) / 1000);
        const last = !plugins.slice(index + 1).some((p) => runs(p, phase, req));
        if (rejected || last) {
          metrics.observeStep(type, req.operation, rejected, (end - (phaseStarts.get(req) ?? begin)) / 1000);
          phaseStarts.delete(req);
        }
      }
    };
  }

  return plugins.map((plugin, index) => ({
    name: plugin.name,
    handles: (def) => plugin.handles(def),
    mutate: wrap(plugin, index, 'mutate'),
    mutateDelete: wrap(plugin, index, 'mutateDelete'),
    validate: wrap(plugin, index, 'validate'),
    validateDelete: wrap(plugin, index, 'validateDelete'),
  }));
}
