// Whether the server behind a remote APIService answers: a GET of its group-version's discovery document
// (`/apis/<group>/<version>`) over HTTPS, as kube-aggregator's availability controller checks, with upstream's
// condition reasons and message shapes. Any 2xx passes, whatever the body; the certificate is verified against the
// caBundle (the system roots without one) for the name `<service>.<namespace>.svc`, unless insecureSkipTLSVerify.
import https from 'node:https';
import type { KObject } from '../../api/meta/types.js';
import { serviceOf } from '../../api/apiregistration/v1/api-service.js';
import { asStr, specOf } from '../../api/common/validation-helpers.js';
import type { Clock } from '../server/clock.js';
import type { ServiceResolver } from './service-resolver.js';
import { upstreamTlsOptions, type ClientCertificate } from './upstream-tls.js';

export type Availability =
  | { available: true; reason: 'Local' | 'Passed'; message: string }
  | { available: false; reason: 'ServiceNotFound' | 'FailedDiscoveryCheck'; message: string };

export const LOCAL: Availability = {
  available: true,
  reason: 'Local',
  message: 'Local APIServices are always available',
};

/** Failures that mean the name has no address (no such Service, in upstream's terms), not that its server failed. */
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME']);

export interface CheckDeps {
  resolver: ServiceResolver;
  clock: Clock;
  timeoutMs: number;
  /** --proxy-client-cert-file's pair, presented as upstream's checks present it. */
  clientCert?: ClientCertificate;
  /** Aborts the check (the controller stopping): it then resolves as failed, and nobody reads it. */
  signal?: AbortSignal;
}

export function discoveryUrl(base: URL, group: string, version: string): URL {
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/apis/${group}/${version}`;
  return url;
}

/** How one GET went: answered 2xx, or the problem as the condition's message will say it. */
type Outcome = { kind: 'ok' } | { kind: 'timeout' } | { kind: 'unresolved' } | { kind: 'failed'; problem: string };

function get(url: URL, options: https.RequestOptions, deps: CheckDeps): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      cancelTimer();
      deps.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const req = https.request(url, { ...options, method: 'GET', agent: false }, (res) => {
      const status = res.statusCode ?? 0;
      // The body is not read: upstream passes any 2xx, and a server still sending it must not hold the check.
      res.destroy();
      finish(
        status >= 200 && status < 300
          ? { kind: 'ok' }
          : { kind: 'failed', problem: `bad status from ${url.href}: ${status}` },
      );
    });
    const onAbort = (): void => void req.destroy(new Error('check stopped'));
    deps.signal?.addEventListener('abort', onAbort, { once: true });
    const cancelTimer = deps.clock.setTimeout(() => {
      req.destroy();
      finish({ kind: 'timeout' });
    }, deps.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== undefined && UNRESOLVED.has(e.code)) return finish({ kind: 'unresolved' });
      // Go's client error shape: `Get "<url>": <cause>`.
      finish({ kind: 'failed', problem: `Get "${url.href}": ${e.message}` });
    });
    req.end();
  });
}

export async function checkAvailability(apiService: KObject, deps: CheckDeps): Promise<Availability> {
  const service = serviceOf(apiService);
  if (!service) return LOCAL;
  const notFound: Availability = {
    available: false,
    reason: 'ServiceNotFound',
    message: `service/${service.name} in ${JSON.stringify(service.namespace)} is not present`,
  };
  const base = deps.resolver.resolve(service);
  if (!base) return notFound;
  const spec = specOf(apiService);
  const url = discoveryUrl(base, asStr(spec.group) ?? '', asStr(spec.version) ?? '');
  const outcome = await get(
    url,
    { ...upstreamTlsOptions(apiService, service, deps.clientCert), headers: { accept: 'application/json' } },
    deps,
  );
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
