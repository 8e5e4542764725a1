// The namespace lifecycle gate reads the local cache and confirms with a consistent read whenever the answer
// could refuse a create, or the namespace was deleted through this gateway a moment ago.
import { expect } from 'chai';
import { errors, isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { ReadRevision } from '../../backends/storage.js';
import { createNamespaceGate, FORCE_LIVE_LOOKUP_MS } from '../../gateway/admission/namespace-lifecycle.js';

type View = KObject | 'absent';

function namespace(name: string, terminating = false): KObject {
  const metadata: KObject['metadata'] = { name };
  if (terminating) metadata.deletionTimestamp = '2026-11-22T00:00:00Z';
  return { apiVersion: 'v1', kind: 'Namespace', metadata };
}

/** A reader whose cached (`any`) and consistent answers differ, recording which kind of read each call was. */
function reader(cached: View, consistent: View) {
  const reads: string[] = [];
  return {
    reads,
    get: async (_ns: string, name: string, read?: ReadRevision): Promise<KObject> => {
      const cachedRead = read?.match === 'any';
      reads.push(cachedRead ? 'cache' : 'consistent');
      const view = cachedRead ? cached : consistent;
      if (view === 'absent') throw errors.notFound({ group: '', resource: 'namespaces' }, name);
      return view;
    },
  };
}

async function outcome(p: Promise<void>): Promise<number> {
  try {
    await p;
    return 0;
  } catch (e) {
    if (!isStatusError(e)) throw e;
    return e.code;
  }
}

describe('namespace gate', () => {
  it('admits a create into an active cached namespace without a consistent read', async () => {
    const r = reader(namespace('a'), 'absent');
    expect(await outcome(createNamespaceGate(() => r).admitCreate('a'))).to.equal(0);
    expect(r.reads).to.deep.equal(['cache']);
  });

  it('confirms a namespace missing from the cache: admitted when it exists, 404 when it does not', async () => {
    const fresh = reader('absent', namespace('a'));
    expect(await outcome(createNamespaceGate(() => fresh).admitCreate('a'))).to.equal(0);
    expect(fresh.reads).to.deep.equal(['cache', 'consistent']);
    const gone = reader('absent', 'absent');
    expect(await outcome(createNamespaceGate(() => gone).admitCreate('a'))).to.equal(404);
  });

  it('refuses a terminating namespace only when a consistent read agrees', async () => {
    const terminating = reader(namespace('a', true), namespace('a', true));
    expect(await outcome(createNamespaceGate(() => terminating).admitCreate('a'))).to.equal(403);
    expect(terminating.reads).to.deep.equal(['cache', 'consistent']);
    const recreated = reader(namespace('a', true), namespace('a'));
    expect(await outcome(createNamespaceGate(() => recreated).admitCreate('a'))).to.equal(0);
  });

  it('reads a namespace deleted through this gateway consistently for the live-lookup window, then the cache again', async () => {
    let now = 1_000_000;
    const r = reader(namespace('a'), namespace('a', true));
    const gate = createNamespaceGate(
      () => r,
      () => now,
    );
    gate.deleted('a');
    expect(await outcome(gate.admitCreate('a'))).to.equal(403);
    expect(r.reads).to.deep.equal(['consistent']);
    // Other namespaces keep the cached read.
    expect(await outcome(gate.admitCreate('b'))).to.equal(0);
    now += FORCE_LIVE_LOOKUP_MS + 1;
    r.reads.length = 0;
    expect(await outcome(gate.admitCreate('a'))).to.equal(0);
    expect(r.reads).to.deep.equal(['cache']);
  });

  it('admits everything when no Namespace kind is served', async () => {
    expect(await outcome(createNamespaceGate(() => undefined).admitCreate('a'))).to.equal(0);
  });
});
