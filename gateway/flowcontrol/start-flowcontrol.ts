// Starts API Priority and Fairness for one server: the dispatcher over the server's seats (--max-requests-inflight
// plus --max-mutating-requests-inflight), its metrics, the periodic adjustment of the levels' limits, and informers
// that hand it the stored FlowSchemas and PriorityLevelConfigurations whenever they change. A server that does not
// serve those kinds runs on the mandatory exempt and catch-all configuration alone.
import type { KObject } from '../../api/meta/types.js';
import { FLOWCONTROL_GROUP } from '../../api/flowcontrol/v1/flowcontrol-common.js';
import { startInformer, type Informer } from '../controllers/informer.js';
import type { PriorityAndFairness } from '../filters/priority-and-fairness.js';
import type { MetricsRegistry } from '../metrics/registration.js';
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../server/clock.js';
import { Dispatcher } from './dispatcher.js';
import { createFlowcontrolMetrics } from './metrics.js';
import type { FlowSchemaObject, PriorityLevelObject } from './types.js';
import { WatchCount } from './watch-count.js';

export interface RunningFlowControl {
  /** For createGateway: undefined when --enable-priority-and-fairness is false. */
  readonly apf: PriorityAndFairness | undefined;
  /** Resolves once the stored configuration (if any) has been read. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export function startFlowControl(opts: {
  options: {
    enablePriorityAndFairness: boolean;
    maxRequestsInflight: number;
    maxMutatingRequestsInflight: number;
    requestTimeoutMs: number;
  };
  registry: Registry;
  clock: Clock;
  metrics: MetricsRegistry;
  /** Objects stored per resource (`<resource>.<group>`), from storage's periodic count. */
  objectCount: (type: string) => number | undefined;
  log: (line: string) => void;
}): RunningFlowControl {
  const { options, registry } = opts;
  if (!options.enablePriorityAndFairness) return { apf: undefined, synced: Promise.resolve(), stop: async () => {} };
  const dispatcher = new Dispatcher({
    serverConcurrencyLimit: options.maxRequestsInflight + options.maxMutatingRequestsInflight,
    clock: opts.clock,
    metrics: createFlowcontrolMetrics(opts.metrics),
  });
  const stopAdjusting = dispatcher.startAdjusting();

  const schemas = new Map<string, FlowSchemaObject>();
  const levels = new Map<string, PriorityLevelObject>();
  const reconfigure = (): void => dispatcher.configure([...schemas.values()], [...levels.values()]);
  const follow = <T>(resource: string, into: Map<string, T>): Informer | undefined => {
    const store = registry.stores.find((s) => s.def.group === FLOWCONTROL_GROUP && s.def.resource === resource);
    if (!store) return undefined;
    const name = (obj: KObject): string => (obj.metadata as { name: string }).name;
    return startInformer(
      store,
      {
        replace(objects) {
          into.clear();
          for (const obj of objects) into.set(name(obj), obj as T);
          reconfigure();
        },
        put(obj) {
          into.set(name(obj), obj as T);
          reconfigure();
        },
        removed(obj) {
          into.delete(name(obj));
          reconfigure();
        },
      },
      { log: opts.log },
    );
  };
  const informers = [follow('flowschemas', schemas), follow('prioritylevelconfigurations', levels)].filter(
    (i): i is Informer => i !== undefined,
  );
  return {
    apf: {
      dispatcher,
      watches: new WatchCount(),
      requestTimeoutMs: options.requestTimeoutMs,
      objectCount: (info) => opts.objectCount(info.apiGroup ? `${info.resource}.${info.apiGroup}` : info.resource),
    },
    synced: Promise.all(informers.map((i) => i.synced)).then(() => undefined),
    async stop() {
      stopAdjusting();
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}
