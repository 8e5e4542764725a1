// What the admission cost scenarios share: configuration objects posted through the API of the gateway that gets
// the feature, and a wait until the feature is in force (admission configuration reaches the plugins through
// informers, asynchronously: nothing in the gateway can be awaited instead of asking again).
import https from 'node:https';
import { send, type Target } from './load.js';

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
