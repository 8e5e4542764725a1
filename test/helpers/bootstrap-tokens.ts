// Bootstrap tokens for tests: random ids and secrets in the token alphabet, and their Secrets created through the
// API with stringData, as `kubeadm token create` writes them.
import { randomInt } from 'node:crypto';
import { expect } from 'chai';
import type { TestGatehouse } from './gatehouse.js';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function randomString(n: number): string {
  return Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
}

export interface TestToken {
  id: string;
  secret: string;
  token: string;
}

export function newToken(): TestToken {
  const id = randomString(6);
  const secret = randomString(16);
  return { id, secret, token: `${id}.${secret}` };
}

/** Creates the token's Secret (default: platform-system, type bootstrap.platform.io/token); returns it as stored. */
export async function createTokenSecret(
  gh: TestGatehouse,
  t: TestToken,
  data: Record<string, string>,
  opts: { namespace?: string; type?: string } = {},
): Promise<any> {
  const namespace = opts.namespace ?? 'platform-system';
  const res = await gh.request('POST', `/api/v1/namespaces/${namespace}/secrets`, {
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${t.id}` },
      type: opts.type ?? 'bootstrap.platform.io/token',
      stringData: { 'token-id': t.id, 'token-secret': t.secret, ...data },
    },
  });
  expect(res.status, res.body).to.equal(201);
  return res.json();
}
