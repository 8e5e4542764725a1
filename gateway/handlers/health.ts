// Health endpoints as kube-apiserver's healthz package serves them: /healthz, /livez and /readyz run their set of
// named checks; `?verbose` lists them, `?exclude=<name>` skips some, `/livez/<name>` runs one. Machines read only the
// status code (200 or 500). Failure details are withheld from the public body and go to the log instead.
//
// Which set a check joins:
// - add(): /healthz, /livez and /readyz (ping, log, the storage check `etcd`);
// - addReadyz(): /readyz only, for conditions that should take the server out of rotation without restarting it
//   (shutdown, storage readiness);
// - bootSequence()/postStartHook(): all three, failing until completed; /livez passes them anyway during
//   --livez-grace-period so that a slow start is not killed by a liveness probe.
import type { Context, Next } from 'koa';

export interface HealthCheck {
  readonly name: string;
  /**
   * Resolves when healthy; throws (with the reason, for the log) when not. A string it resolves with is a note the
   * verbose output shows beside `ok` (a check that reports a degraded state without failing).
   */
  check(signal: AbortSignal): Promise<void | string>;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';
export const HEALTH_ENDPOINTS: readonly HealthEndpoint[] = ['healthz', 'livez', 'readyz'];

/** Handle on a start-up step; its check fails until complete() is called. */
export interface BootStep {
  readonly name: string;
  complete(): void;
  /** Keeps the check failing with this reason (for the log). */
  fail(error: Error): void;
}

export interface HealthChecks {
  add(check: HealthCheck): void;
  addReadyz(check: HealthCheck): void;
  /** Registers a boot-sequence check under exactly `name` (e.g. `autoregister-completion`); the same name again
   * returns the same step. */
  bootSequence(name: string): BootStep;
  /** Registers `poststarthook/<name>`. */
  postStartHook(name: string): BootStep;
  /** From now on the `shutdown` readyz check fails; the server keeps serving. */
  beginShutdown(): void;
  readonly shuttingDown: boolean;
  /** The checks of one endpoint, in registration order. */
  checksFor(endpoint: HealthEndpoint): readonly HealthCheck[];
}

export interface HealthChecksOptions {
  /** --livez-grace-period in milliseconds, counted from creation (server start). */
  livezGracePeriodMs?: number;
  now?: () => number;
}

export function pingCheck(): HealthCheck {
  return { name: 'ping', async check() {} };
}

/** Upstream checks that the logger still flushes; here: stdout has not been closed or errored. */
export function logCheck(
  stream: NodeJS.WritableStream & { writable?: boolean; destroyed?: boolean } = process.stdout,
): HealthCheck {
  return {
    name: 'log',
    async check() {
      if (stream.destroyed || stream.writable === false) throw new Error('log output is not writable');
    },
  };
}

export function createHealthChecks(opts: HealthChecksOptions = {}): HealthChecks {
  const now = opts.now ?? Date.now;
  const startedAt = now();
  const grace = opts.livezGracePeriodMs ?? 0;
  const common: HealthCheck[] = [];
  const livezOnly: HealthCheck[] = [];
  const readyzOnly: HealthCheck[] = [];
  let shuttingDown = false;
  const names = new Set<string>();

  const claim = (name: string) => {
    if (!name || /\s/.test(name)) throw new Error(`invalid health check name "${name}"`);
    if (names.has(name)) throw new Error(`health check "${name}" is already registered`);
    names.add(name);
  };

  const bootSteps = new Map<string, BootStep>();
  const bootSequence = (name: string): BootStep => {
    // Idempotent, so that the composer and the component that finishes the step may both name it.
    const existing = bootSteps.get(name);
    if (existing) return existing;
    claim(name);
    let state: { done: boolean; error?: Error } = { done: false };
    const check: HealthCheck = {
      name,
      async check() {
        if (state.error) throw state.error;
        if (!state.done) throw new Error('not finished');
      },
    };
    common.push(check);
    // The /livez copy tolerates an unfinished step while the grace period lasts (upstream's delayedHealthCheck).
    livezOnly.push({
      name,
      async check(signal) {
        if (now() - startedAt < grace) return;
        await check.check(signal);
      },
    });
    const step: BootStep = {
      name,
      complete: () => {
        state = { done: true };
      },
      fail: (error) => {
        state = { done: false, error };
      },
    };
    bootSteps.set(name, step);
    return step;
  };

  const shutdownCheck: HealthCheck = {
    name: 'shutdown',
    async check() {
      if (shuttingDown) throw new Error('process is shutting down');
    },
  };
  names.add(shutdownCheck.name);

  return {
    add(check) {
      claim(check.name);
      common.push(check);
      livezOnly.push(check);
    },
    addReadyz(check) {
      claim(check.name);
      readyzOnly.push(check);
    },
    bootSequence,
    postStartHook: (name) => bootSequence(`poststarthook/${name}`),
    beginShutdown() {
      shuttingDown = true;
    },
    get shuttingDown() {
      return shuttingDown;
    },
    checksFor(endpoint) {
      if (endpoint === 'livez') return [...livezOnly];
      if (endpoint === 'readyz') return [...common, ...readyzOnly, shutdownCheck];
      return [...common];
    },
  };
}

export interface HealthHandlerOptions {
  /** Receives the reasons the public body withholds. */
  log?: (line: string) => void;
  /** Told each check's outcome (the /metrics/slis health check metrics). */
  onCheck?: (endpoint: HealthEndpoint, name: string, ok: boolean) => void;
}

function send(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.set('Content-Type', 'text/plain; charset=utf-8');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = body;
}

const PATH = /^\/(healthz|livez|readyz)(?:\/(.+?))?\/?$/;

/** Serves GET/HEAD on the health paths and passes everything else on. */
export function createHealthHandler(checks: HealthChecks, opts: HealthHandlerOptions = {}) {
  const log = opts.log ?? (() => {});
  const onCheck = opts.onCheck ?? (() => {});
  return async function healthHandler(ctx: Context, next: Next): Promise<void> {
    const match = PATH.exec(ctx.path);
    if (!match || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const endpoint = match[1] as HealthEndpoint;
    const set = checks.checksFor(endpoint);

    const controller = new AbortController();
    const abort = () => controller.abort();
    ctx.res.once('close', abort);
    try {
      if (match[2] !== undefined) {
        const one = set.find((c) => c.name === match[2]);
        if (!one) return next();
        try {
          await one.check(controller.signal);
          onCheck(endpoint, one.name, true);
          send(ctx, 200, 'ok');
        } catch (e) {
          onCheck(endpoint, one.name, false);
          log(`[-]${one.name} failed: ${(e as Error).message}`);
          send(ctx, 500, `internal server error: ${(e as Error).message}\n`);
        }
        return;
      }

      const query = new URLSearchParams(ctx.querystring);
      const excluded = new Set(
        query
          .getAll('exclude')
          .flatMap((v) => v.split(','))
          .map((v) => v.trim())
          .filter(Boolean),
      );
      const outcomes = await Promise.all(
        set.map(async (c) => {
          if (excluded.has(c.name)) return { name: c.name, excluded: true as const };
          try {
            const note = await c.check(controller.signal);
            onCheck(endpoint, c.name, true);
            return { name: c.name, ok: true as const, note: typeof note === 'string' ? note : undefined };
          } catch (e) {
            onCheck(endpoint, c.name, false);
            return { name: c.name, error: e as Error };
          }
        }),
      );

      const lines: string[] = [];
      const failed: string[] = [];
      for (const o of outcomes) {
        if ('excluded' in o) {
          excluded.delete(o.name);
          lines.push(`[+]${o.name} excluded: ok`);
        } else if ('ok' in o) {
          lines.push(`[+]${o.name} ok${o.note ? ` (${o.note})` : ''}`);
        } else {
          failed.push(o.name);
          lines.push(`[-]${o.name} failed: reason withheld`);
          log(`[-]${o.name} failed: ${o.error.message}`);
        }
      }
      if (excluded.size > 0) {
        const quoted = [...excluded]
          .sort()
          .map((n) => `"${n}"`)
          .join(', ');
        lines.push(`warn: some health checks cannot be excluded: no matches for ${quoted}`);
      }

      if (failed.length > 0) {
        log(`${endpoint} check failed: ${failed.join(',')}`);
        send(ctx, 500, `${lines.join('\n')}\n${endpoint} check failed\n`);
        return;
      }
      // The spec's (and the upstream documentation's) final line is the same for all three endpoints. `verbose`
      // counts by presence, whatever its value (`?verbose=false` too), as upstream reads it.
      send(ctx, 200, query.has('verbose') ? `${lines.join('\n')}\nhealthz check passed\n` : 'ok');
    } finally {
      ctx.res.off('close', abort);
    }
  };
}
