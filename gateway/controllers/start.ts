// The in-process controllers, started once the registry exists and stopped at shutdown. Each controller the spec
// names gets one entry here; `--controllers` (when present) selects among the optional ones.
import type { GatehouseOptions } from '../server/options.js';
import type { Registry } from '../registry/registry.js';
import { ensureSystemNamespaces, startNamespaceController, type Controller } from './namespace-lifecycle.js';
import { ensureBootstrapPolicy } from './rbac-bootstrap.js';
import { startRoleAggregationController } from './role-aggregation.js';

export type { Controller };

export interface ControllerDeps {
  registry: Registry;
  options: GatehouseOptions;
  log: (line: string) => void;
}

/** Seeds what must exist before the first request, then starts every enabled controller. */
export async function startControllers({ registry, log }: ControllerDeps): Promise<Controller> {
  await ensureSystemNamespaces(registry);
  await ensureBootstrapPolicy(registry);
  const running: Controller[] = [startNamespaceController(registry, { log })];
  running.push(startRoleAggregationController(registry, { log }));
  return {
    async stop() {
      await Promise.all(running.map((c) => c.stop()));
    },
  };
}
