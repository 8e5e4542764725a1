// Whether the server behind a remote APIService answers: a GET of its group-version's discovery document
// (`/apis/<group>/<version>`) over HTTPS, as kube-aggregator's availability controller checks, with upstream's
// condition reasons and message shapes. Any 2xx passes, whatever the body; the transport's TLS rules are
// upstream-transport.ts's, shared with merged discovery.
import type { KObject } from '../../api/meta/types.js';
import { serviceOf } from '../../api/apiregistration/v1/api-service.js';
import { asStr, specOf } from '../../api/common/validation-helpers.js';
import type { Clock } from '../server/clock.js';
import type { ServiceResolver } from './service-resolver.js';
import { upstreamGet, upstreamTarget, upstreamUrl } from './upstream-transport.js';
import type { ClientCertificateSource } from './upstream-tls.js';

export type Availability =
  | { available: true; reason: 'Local' | 'Passed'; message: string }
  | { available: false; reason: 'ServiceNotFound' | 'FailedDiscoveryCheck'; message: string };

export const LOCAL: Availability = {
  available: true,
  reason: 'Local',
  message: 'Local APIServices are always available',
};

export interface CheckDeps {
  resolver: ServiceResolver;
  clock: Clock;
  timeoutMs: number;
  /** Aborts the check (the controller stopping): it then resolves as failed, and nobody reads it. */
  signal?: AbortSignal;
  /** Presented to the upstream when given (the front-proxy client certificate). */
  clientCert?: ClientCertificateSource;
}

export const discoveryUrl = (base: URL, group: string, version: string): URL =>
  upstreamUrl(base, `/apis/${group}/${version}`);

export async function checkAvailability(apiService: KObject, deps: CheckDeps): Promise<Availability> {
  const service = serviceOf(apiService);
  if (!service) return LOCAL;
  const notFound: Availability = {
    available: false,
    reason: 'ServiceNotFound',
    message: `service/${service.name} in ${JSON.stringify(service.namespace)} is not present`,
  };
  const target = upstreamTarget(apiService, deps.resolver, deps.clientCert);
  if (target === 'unresolved' || target === undefined) return notFound;
  const spec = specOf(apiService);
  const url = discoveryUrl(target.base, asStr(spec.group) ?? '', asStr(spec.version) ?? '');
  // The body is not read: upstream passes any 2xx.
  const answer = await upstreamGet(url, target, { accept: 'application/json' }, { ...deps, readBody: false });
  const outcome =
    answer.kind !== 'response'
      ? answer
      : answer.status >= 200 && answer.status < 300
        ? { kind: 'ok' as const }
        : { kind: 'failed' as const, problem: `bad status from ${url.href}: ${answer.status}` };
  switch (outcome.kind) {
    case 'ok':
      return { available: true, reason: 'Passed', message: 'all checks passed' };
    case 'unresolved':
      return notFound;
    case 'timeout':
      return { available: false, reason: 'FailedDiscoveryCheck', message: `timed out waiting for ${url.href}` };
    case 'failed':
      return {
        available: false,
        reason: 'FailedDiscoveryCheck',
        message: `failing or missing response from ${url.href}: ${outcome.problem}`,
      };
  }
}
