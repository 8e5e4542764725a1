// Graceful shutdown in kube-apiserver's order: /readyz starts failing first so that load balancers stop sending
// traffic, the server keeps serving for --shutdown-delay-duration, then open watches are told to end (the shutdown
// signal), the listener stops accepting, in-flight requests drain, and storage closes last.
import type { HealthChecks } from '../handlers/health.js';
import type { ServingConnections } from './secure-server.js';

export interface ShutdownOptions {
  server: ServingConnections;
  health: Pick<HealthChecks, 'beginShutdown'>;
  /** Aborted after the delay: watches and other long-running requests end cleanly. */
  controller: AbortController;
  delayMs: number;
  /** How long in-flight requests (watches included) get after the signal before connections are cut. */
  drainMs: number;
  /** Run in order after the server closed (storage last). */
  closers: Array<() => Promise<void>>;
  log?: (line: string) => void;
}

export interface Shutdown {
  /** Idempotent: later calls return the same promise. */
  run(reason: string): Promise<void>;
  readonly started: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createShutdown(opts: ShutdownOptions): Shutdown {
  const log = opts.log ?? (() => {});
  let running: Promise<void> | undefined;

  async function sequence(reason: string): Promise<void> {
    log(`shutting down (${reason}): /readyz now fails`);
    opts.health.beginShutdown();
    if (opts.delayMs > 0) {
      log(`waiting ${opts.delayMs}ms (--shutdown-delay-duration) before closing`);
      await sleep(opts.delayMs);
    }
    opts.controller.abort(new Error('server is shutting down'));
    if (opts.server.listening) {
      const closed = new Promise<void>((resolve) => opts.server.close(() => resolve()));
      opts.server.closeIdleConnections();
      // Watches end on the signal and leave keep-alive connections idle a moment later; close those as they come.
      const sweeper = setInterval(() => opts.server.closeIdleConnections(), 50);
      const timer = setTimeout(() => {
        log('drain period over: closing remaining connections');
        opts.server.closeAllConnections();
      }, opts.drainMs);
      await closed;
      clearTimeout(timer);
      clearInterval(sweeper);
    }
    for (const close of opts.closers) {
      try {
        await close();
      } catch (e) {
        log(`error: error during shutdown: ${(e as Error).message}`);
      }
    }
    log('shutdown complete');
  }

  return {
    run(reason) {
      running ??= sequence(reason);
      return running;
    },
    get started() {
      return running !== undefined;
    },
  };
}

/**
 * SIGTERM and SIGINT start the shutdown and exit 0 when it completes; a second signal exits 1 at once, as an
 * operator pressing Ctrl-C twice expects. Returns a function that removes the handlers.
 */
export function installSignalHandlers(shutdown: Shutdown, log: (line: string) => void = () => {}): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (shutdown.started) {
      log(`received ${signal} again: exiting immediately`);
      process.exit(1);
    }
    shutdown.run(signal).then(
      () => process.exit(0),
      (e) => {
        log(`error: shutdown failed: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
