// The one Redis client of a replica, shared by everything it keeps in Redis. Redis is an optimisation here, never a
// dependency: a command waits at most --redis-timeout, nothing queues while the connection is down (the offline
// queue is off, a command in flight when it drops is not resent), and after a failure the replica stops asking at
// all ("degraded": every operation falls back to the replica's own state at once) until Redis answers again: a
// reconnect, or a PING that answers in time while the connection stayed up but the server stalled. Reconnects back
// off exponentially up to two seconds.
import { Redis } from 'ioredis';
import { redactUrl } from '../../backends/postgres/errors.js';
import type { RedisOperation, SharedStateMetrics } from '../metrics/shared-state-metrics.js';
import type { Clock } from '../server/clock.js';

export type RedisState = 'up' | 'degraded';

/** An answer of a shape the caller did not expect: Redis (or whatever answers in its place) is treated as down. */
export class UnexpectedRedisReply extends Error {
  override name = 'UnexpectedRedisReply';
}

export interface SharedRedis {
  readonly state: RedisState;
  /**
   * `command`'s result, or undefined (counted as a fallback) when Redis is degraded, fails, answers garbage or does
   * not answer within the timeout; the caller then uses its own state. Never rejects.
   */
  run<T>(operation: RedisOperation, command: (client: Redis) => Promise<T>): Promise<T | undefined>;
  close(): Promise<void>;
}

export interface SharedRedisOptions {
  url: string;
  timeoutMs: number;
  metrics: SharedStateMetrics;
  clock: Clock;
  log: (line: string) => void;
  /** How often a stalled connection is asked whether it answers again. */
  probeIntervalMs?: number;
}

const MAX_RECONNECT_DELAY_MS = 2_000;
const DEFAULT_PROBE_INTERVAL_MS = 1_000;
/** How long a start waits for the first connection, so that the first requests find Redis. */
const START_WAIT_MS = 1_000;

export function reconnectDelay(attempt: number): number {
  const delay = Math.min(50 * 2 ** Math.max(0, attempt - 1), MAX_RECONNECT_DELAY_MS);
  return delay / 2 + Math.random() * (delay / 2);
}

/** Connects (waiting at most a second for the first connection, so the first requests find it) and never throws. */
export async function connectSharedRedis(opts: SharedRedisOptions): Promise<SharedRedis> {
  const { timeoutMs, metrics, clock, log } = opts;
  const where = redactUrl(opts.url);
  const client = new Redis(opts.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(1_000, timeoutMs),
    retryStrategy: reconnectDelay,
    autoResubscribe: false,
  });
  let state: RedisState = 'degraded';
  let closed = false;
  let cancelProbe: (() => void) | undefined;
  metrics.redisUp(false);

  const markUp = (): void => {
    if (state === 'up' || closed) return;
    state = 'up';
    metrics.redisUp(true);
    log(`Redis at ${where} answers: shared state in use`);
  };
  const markDegraded = (why: string): void => {
    if (closed) return;
    if (state === 'up') {
      state = 'degraded';
      metrics.redisUp(false);
      log(
        `warning: Redis at ${where} is unavailable (${why}): this replica serves from its own state until it answers`,
      );
    }
    scheduleProbe();
  };

  const withDeadline = <T>(work: Promise<T>, ms = timeoutMs): Promise<T> => {
    // A real timer, not the server's clock: the bound is on real waiting, whatever a test does with its clock.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    });
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  };

  // Only for a connection that is up but whose server stopped answering: a dropped connection is redialled by the
  // client, and its 'ready' brings the state back.
  function scheduleProbe(): void {
    if (cancelProbe || closed) return;
    cancelProbe = clock.setTimeout(() => {
      cancelProbe = undefined;
      if (state === 'up' || closed) return;
      if (client.status !== 'ready') return scheduleProbe();
      withDeadline(client.ping()).then(
        (answer) => (answer === 'PONG' ? markUp() : scheduleProbe()),
        () => scheduleProbe(),
      );
    }, opts.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS);
  }

  client.on('ready', markUp);
  client.on('close', () => markDegraded('connection closed'));
  // Each failed reconnect is an 'error': the state change is logged once, not every attempt.
  client.on('error', (e: Error) => markDegraded(e.message));

  // A first connection that fails is retried by the client on its backoff; the replica starts on its own state.
  await withDeadline(client.connect(), START_WAIT_MS).catch((e: Error) => {
    log(
      `warning: Redis at ${where} does not answer (${e.message}): this replica serves from its own state until it does`,
    );
    markDegraded(e.message);
  });
  return {
    get state() {
      return state;
    },
    async run(operation, command) {
      if (state !== 'up') {
        metrics.fallback(operation);
        return undefined;
      }
      try {
        return await withDeadline(command(client));
      } catch (e) {
        metrics.redisError(operation);
        metrics.fallback(operation);
        markDegraded((e as Error).message);
        return undefined;
      }
    },
    async close() {
      closed = true;
      cancelProbe?.();
      client.disconnect();
    },
  };
}
