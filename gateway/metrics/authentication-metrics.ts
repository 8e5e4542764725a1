// kube-apiserver's authentication metrics (endpoints/filters/metrics.go): attempts and their duration by result, and
// authenticated requests by a user name compressed to a few fixed values. Recorded around the authenticator, so the
// authentication filter itself stays unaware of them.
import type { Authenticator } from '../authn/authenticator.js';
import type { MetricsRegistry } from './registration.js';
import { compressUsername } from './request-labels.js';

export function instrumentAuthenticator(authenticator: Authenticator, metrics: MetricsRegistry): Authenticator {
  const attempts = metrics.routeCounter({
    name: 'authentication_attempts',
    help: 'Counter of authenticated attempts.',
    stability: 'ALPHA',
    labelNames: ['result'],
  });
  const duration = metrics.routeHistogram({
    name: 'authentication_duration_seconds',
    help: 'Authentication duration in seconds broken out by result.',
    stability: 'ALPHA',
    labelNames: ['result'],
    buckets: Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i),
  });
  const userRequests = metrics.routeCounter({
    name: 'authenticated_user_requests',
    help: 'Counter of authenticated requests broken out by username.',
    stability: 'ALPHA',
    labelNames: ['username'],
  });
  const seriesOf = (result: string) => ({
    attempts: attempts.child({ result }),
    duration: duration.child({ result }),
  });
  const byResult = { success: seriesOf('success'), failure: seriesOf('failure'), error: seriesOf('error') };
  // compressUsername's few values: a bounded map.
  const byUser = new Map<string, () => void>();
  const record = (result: 'success' | 'failure' | 'error', started: number): void => {
    byResult[result].attempts();
    byResult[result].duration((performance.now() - started) / 1000);
  };
  return {
    name: authenticator.name,
    async authenticate(req) {
      const started = performance.now();
      let result;
      try {
        result = await authenticator.authenticate(req);
      } catch (e) {
        // As upstream: a credential refused is the authenticator's error, no credential at all is a failure.
        record('error', started);
        throw e;
      }
      if (!result) {
        record('failure', started);
        return result;
      }
      record('success', started);
      const username = compressUsername(result.user.name);
      let countUser = byUser.get(username);
      if (!countUser) {
        countUser = userRequests.child({ username });
        byUser.set(username, countUser);
      }
      countUser();
      return result;
    },
  };
}
