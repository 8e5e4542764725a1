// A watch holds its priority-and-fairness seats only while it sends its initial events (upstream's watch
// initialization signal): the filter that admitted it leaves a callback here, and the watch handler calls it once
// those events are written. A request no filter admitted carries none, and the call does nothing.
import type { Context } from 'koa';

const KEY = 'watchInitialized';

export function setWatchInitializedSignal(ctx: Context, signal: () => void): void {
  ctx.state[KEY] = signal;
}

export function signalWatchInitialized(ctx: Context): void {
  (ctx.state[KEY] as (() => void) | undefined)?.();
}
