// The server's sense of time, injectable so that tests move it instead of waiting for it: the history window's
// expiry (a storage backend's commit times), watch and request timeouts, and idle HTTP/2 sessions. Everything defaults to the real clock; only tests
// hand in another (test/helpers/manual-clock.ts).
import { performance } from 'node:perf_hooks';
import { setLongTimeout } from './long-timeout.js';

export interface Clock {
  /** Wall-clock milliseconds since the epoch, as Date.now. */
  now(): number;
  /** Milliseconds that only move forward, whatever the wall clock does: for deadlines within the process. */
  monotonic(): number;
  /** Calls `fire` once `ms` of this clock passed (Infinity: never); returns the cancellation. */
  setTimeout(fire: () => void, ms: number): () => void;
}

export const realClock: Clock = { now: Date.now, monotonic: () => performance.now(), setTimeout: setLongTimeout };
