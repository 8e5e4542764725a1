// A clock the test moves by hand (gateway/server/clock.ts): the server's history window, watch and request timeouts
// and HTTP/2 idle timeout then follow the test's steps instead of the wall clock, and a test that waited a second for
// them now takes none. A step past --request-timeout (60 s) answers the requests then in flight with 504.
import type { Clock } from '../../gateway/server/clock.js';

export interface ManualTimer {
  /** The delay the timer was armed with. */
  readonly ms: number;
  readonly due: number;
}

interface Armed extends ManualTimer {
  fire(): void;
}

export class ManualClock implements Clock {
  private time: number;
  private readonly armed = new Set<Armed>();
  private readonly armWaiters: ((timer: ManualTimer) => void)[] = [];

  /** Starts at the wall clock's time, so that times it stamps read as the ones the real clock stamps beside them. */
  constructor(start = Date.now()) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  monotonic(): number {
    return this.time;
  }

  setTimeout(fire: () => void, ms: number): () => void {
    const timer: Armed = { ms, due: this.time + ms, fire };
    this.armed.add(timer);
    for (const notify of this.armWaiters.splice(0)) notify(timer);
    return () => void this.armed.delete(timer);
  }

  /** The oldest pending timer, or else the next one armed: for code that arms its timer after an event the test sees. */
  timer(): Promise<ManualTimer> {
    const [oldest] = this.armed;
    if (oldest) return Promise.resolve(oldest);
    return new Promise((resolve) => this.armWaiters.push(resolve));
  }

  /** The first pending timer `matches`, or else the next one armed that does: a periodic task's next round. */
  async whenArmed(matches: (timer: ManualTimer) => boolean): Promise<ManualTimer> {
    for (;;) {
      const found = [...this.armed].find(matches);
      if (found) return found;
      const next = await new Promise<ManualTimer>((resolve) => this.armWaiters.push(resolve));
      if (matches(next) && this.armed.has(next as Armed)) return next;
    }
  }

  /** The timers armed and neither fired nor cancelled, oldest first. */
  pending(): ManualTimer[] {
    return [...this.armed];
  }

  /** Moves time on by `ms`, firing every timer due by then in the order they fall due. */
  advance(ms: number): void {
    this.time += ms;
    const due = [...this.armed].filter((t) => t.due <= this.time).sort((a, b) => a.due - b.due);
    for (const timer of due) {
      this.armed.delete(timer);
      timer.fire();
    }
  }
}
