// Small shared pieces of integration tests: unique namespaces, the merge-patch header, Status assertions.
import { expect } from 'chai';
import type { TestGatehouse } from './gatehouse.js';

export const MERGE = { 'content-type': 'application/merge-patch+json' };

let seq = 0;
export const uniqueName = (prefix: string): string => `${prefix}-${process.pid}-${++seq}`;

export async function createNamespace(gh: Pick<TestGatehouse, 'request'>, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  const res = await gh.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
  expect(res.status, res.body).to.equal(201);
  return name;
}

/** GETs an object or list that must be there (200) and returns its JSON. */
export async function readObject(gh: Pick<TestGatehouse, 'request'>, urlPath: string): Promise<any> {
  const res = await gh.request('GET', urlPath);
  expect(res.status, `GET ${urlPath}: ${res.body}`).to.equal(200);
  return res.json();
}

/** Asserts a failure Status with this code and reason, and returns it. */
export function expectFailure(res: { status: number; body: string; json(): any }, code: number, reason: string): any {
  expect(res.status, res.body).to.equal(code);
  const status = res.json();
  expect(status).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  return status;
}

/**
 * Polls `probe` until it yields a value other than undefined or false, failing the test past the deadline: for
 * state that changes asynchronously where no event can be awaited (another replica's process, a controller or an
 * index fed by a watch inside the server, which exposes no hook). Anything a test can await, it awaits instead.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  deadlineMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) expect.fail(`${what}: not within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
