// Standard CEL conversions the library (8.0.0) lacks: int(timestamp) (Unix seconds), string(timestamp) (RFC 3339,
// UTC), string(duration) (seconds form such as `90s`), and the identity conversions timestamp(timestamp),
// duration(duration).
import type { Environment } from '@marcbachmann/cel-js';
import type { Duration } from '@marcbachmann/cel-js/evaluator';
import { define } from './define.js';

const GPT = 'google.protobuf.Timestamp';
const GPD = 'google.protobuf.Duration';

export function timestampToString(d: Date): string {
  return d.toISOString().replace('.000Z', 'Z');
}

export function registerStandardExtras(env: Environment): void {
  define(env, `int(${GPT}): int`, (d: Date) => BigInt(Math.floor(d.getTime() / 1000)));
  define(env, `string(${GPT}): string`, timestampToString);
  define(env, `string(${GPD}): string`, (d: Duration) => d.toString());
  define(env, `timestamp(${GPT}): ${GPT}`, (d: Date) => d);
  define(env, `duration(${GPD}): ${GPD}`, (d: Duration) => d);
}
