// The setup most kubectl suites share: one Gatehouse and one kubectl for it, started before the suite's tests and
// cleaned up after them. Call it in a describe block; the returned holder is filled once its before hook has run.
import yaml from 'js-yaml';
import { startTestGatehouse, type TestGatehouse } from './gatehouse.js';
import { createKubectl, type Kubectl } from './kubectl.js';

export interface GatehouseWithKubectl {
  gh: TestGatehouse;
  kubectl: Kubectl;
}

export function gatehouseWithKubectl(
  start: () => Promise<TestGatehouse> = () => startTestGatehouse(),
): GatehouseWithKubectl {
  const env = {} as GatehouseWithKubectl;
  before(async () => {
    env.gh = await start();
    env.kubectl = await createKubectl(env.gh.kubeconfigPath);
  });
  after(async () => {
    await env.kubectl?.cleanup();
    await env.gh?.close();
  });
  return env;
}

/** Objects as one multi-document YAML manifest, the form `kubectl create -f` and `apply -f` read. */
export const yamlManifest = (...objs: unknown[]): string => objs.map((o) => yaml.dump(o)).join('---\n');
