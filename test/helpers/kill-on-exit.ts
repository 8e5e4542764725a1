// Child processes a test run starts (replicas, servers) must not outlive it when it crashes past its after hooks.
import type { ChildProcess } from 'node:child_process';

const children = new Set<ChildProcess>();
let hookInstalled = false;

/** SIGKILLs `child` when the test process exits, unless it has exited by then. */
export function killOnExit(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (hookInstalled) return;
  hookInstalled = true;
  // Synchronous: 'exit' listeners cannot await.
  process.on('exit', () => {
    for (const c of children) {
      try {
        c.kill('SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}
