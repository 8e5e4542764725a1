// prom-client's Node.js process metrics. They describe the process, not a server instance, and collecting them starts
// an event-loop delay monitor and a GC observer that prom-client never stops: so they are collected once per process,
// into a registry of their own, and each server's registry registers the same metric objects.
import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';

let processMetrics: Metric[] | undefined;

export function processMetricObjects(): Metric[] {
  if (!processMetrics) {
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    // The registry's own metric objects (its typing names them by their serialized form only).
    processMetrics = registry.getMetricsAsArray() as unknown as Metric[];
  }
  return processMetrics;
}
