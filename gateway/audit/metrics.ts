// kube-apiserver's audit metrics, created in whichever registry the server serves at /metrics.
import { Counter, type Registry } from 'prom-client';

export interface AuditMetrics {
  event(): void;
  /** One event a backend could not deliver (`plugin`: log or webhook). */
  error(plugin: string): void;
}

export function createAuditMetrics(registry: Registry): AuditMetrics {
  const events = new Counter({
    name: 'apiserver_audit_event_total',
    help: 'Counter of audit events generated and sent to the audit backend.',
    registers: [registry],
  });
  const errors = new Counter({
    name: 'apiserver_audit_error_total',
    help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
    labelNames: ['plugin'],
    registers: [registry],
  });
  return { event: () => events.inc(), error: (plugin) => errors.inc({ plugin }) };
}
