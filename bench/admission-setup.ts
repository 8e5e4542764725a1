// What the admission cost scenarios share: the paired creates of labelled ConfigMaps, configuration objects posted
// through the API of the gateway that gets the feature, and a wait until the feature is in force (admission
// configuration reaches the plugins through informers, asynchronously: nothing in the gateway can be awaited instead
// of asking again).
import https from 'node:https';
import { send, type Target } from './load.js';
import { dataJson } from './objects.js';
import type { CostSettings } from './metrics-cost.js';
import { measurePairedCost, type PairedCost } from './paired-cost.js';

export const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

/** A 1 KiB ConfigMap with the labels the bench's policies require. */
export function labelledConfigMapJson(name: string): string {
  return (
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":{"app":"bench","team":"platform"}},` +
    `"data":${dataJson(1024)}}`
  );
}

/**
 * Creates of labelled 1 KiB ConfigMaps by 16 clients against two memory-backend gateways, the first configured by
 * `configure` before the warm-up, the second left as it starts.
 */
export function measureCreateCost(opts: {
  configure: (target: Target) => Promise<void>;
  settings: CostSettings;
  say: (line: string) => void;
  label: [string, string];
}): Promise<PairedCost> {
  return measurePairedCost({
    sides: [{ flags: ['--storage-backend', 'memory'] }, { flags: ['--storage-backend', 'memory'] }],
    ...opts.settings,
    concurrency: 16,
    warmMs: 3_000,
    setup: async (target, side) => {
      if (side === 0) await opts.configure(target);
    },
    // Every slice creates names of its own: a name taken would answer 409.
    request: (round, side) => (i) => ({
      method: 'POST',
      path: CONFIGMAPS,
      body: labelledConfigMapJson(`r${round + 1}-s${side}-${i}`),
    }),
    expect: [201],
    say: opts.say,
    label: opts.label,
  });
}

export interface SetupClient {
  post(path: string, body: unknown): Promise<void>;
  /** Sends `request` every 50 ms until `done` says so, for at most `ms`; false when it never did. */
  until(
    request: { method: string; path: string; body?: string },
    done: (status: number) => boolean,
    ms: number,
  ): Promise<boolean>;
  close(): void;
}

export function setupClient(target: Target): SetupClient {
  const agent = new https.Agent({ keepAlive: true, ca: target.ca });
  return {
    async post(path, body) {
      const res = await send(target, agent, { method: 'POST', path, body: JSON.stringify(body) }, { expect: [201] });
      if (res.status !== 201) throw new Error(`POST ${path}: HTTP ${res.status}: ${res.body.slice(0, 200)}`);
    },
    async until(request, done, ms) {
      const deadline = Date.now() + ms;
      for (;;) {
        if (done((await send(target, agent, request)).status)) return true;
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => agent.destroy(),
  };
}
