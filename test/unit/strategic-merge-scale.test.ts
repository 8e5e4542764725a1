// Strategic merge patches of very long lists: every merge form must stay linear. The quadratic version took 32 s for
// 60,000 finalizers and 19 s for 40,000 containers while holding the event loop; linear merges take well under a
// second here, so the bound below (far above linear, far below quadratic) catches a regression without being a
// benchmark.
import { expect } from 'chai';
import { strategicMergePatch } from '../../gateway/patch/strategic-merge.js';
import { node } from '../../api/core/v1/node.js';
import { replicaSet } from '../../api/apps/v1/replica-set.js';
import type { JSONSchema } from '../../api/schema.js';

const N = 40_000;
const BOUND_MS = 5_000;

type Json = Record<string, any>;

function timedMerge(original: Json, patch: Json, schema: JSONSchema): Json {
  const started = performance.now();
  const result = strategicMergePatch(original, patch, schema) as Json;
  const elapsed = performance.now() - started;
  expect(elapsed, `merge took ${Math.round(elapsed)} ms`).to.be.below(BOUND_MS);
  return result;
}

const names = (prefix: string, n: number, from = 0) => Array.from({ length: n }, (_, i) => `${prefix}-${from + i}`);
const containers = (names: string[]) => names.map((name) => ({ name, image: `img-${name}` }));
const podSpec = (list: unknown[], extra: Json = {}) => ({
  spec: { template: { spec: { containers: list, ...extra } } },
});

describe('strategic merge patch on long lists', () => {
  it('merges a primitive list (finalizers) as a set in linear time', () => {
    const stored = { metadata: { finalizers: names('a', N) } };
    const result = timedMerge(
      stored,
      { metadata: { finalizers: [...names('a', N / 2, N / 2), ...names('b', N)] } },
      node.schema,
    );
    const finalizers: string[] = result.metadata.finalizers;
    expect(finalizers).to.have.length(2 * N);
    expect(new Set(finalizers).size).to.equal(2 * N);
  });

  it('merges a keyed list (containers) element by element in linear time', () => {
    const stored = podSpec(containers(names('c', N)));
    const patch = podSpec(names('c', N, N / 2).map((name) => ({ name, image: 'new' })));
    const list: Json[] = timedMerge(stored, patch, replicaSet.schema).spec.template.spec.containers;
    expect(list).to.have.length(N + N / 2);
    expect(list.filter((c) => c.image === 'new')).to.have.length(N);
    expect(list.find((c) => c.name === 'c-0')!.image).to.equal('img-c-0');
  });

  it('deletes keyed elements with $patch: delete in linear time', () => {
    const stored = podSpec(containers(names('c', N)));
    const patch = podSpec(names('c', N / 2).map((name) => ({ name, $patch: 'delete' })));
    const list: Json[] = timedMerge(stored, patch, replicaSet.schema).spec.template.spec.containers;
    expect(list.map((c) => c.name)).to.deep.equal(names('c', N / 2, N / 2));
  });

  it('orders a merged list by $setElementOrder in linear time', () => {
    const stored = podSpec(containers(names('c', N)));
    const reversed = names('c', N).reverse();
    const patch = podSpec([{ name: 'c-0', image: 'new' }], {
      '$setElementOrder/containers': reversed.map((name) => ({ name })),
    });
    const list: Json[] = timedMerge(stored, patch, replicaSet.schema).spec.template.spec.containers;
    expect(list.map((c) => c.name)).to.deep.equal(reversed);
    expect(list[N - 1].image).to.equal('new');
  });

  it('removes values with $deleteFromPrimitiveList in linear time', () => {
    const stored = { metadata: { finalizers: names('a', N) } };
    const result = timedMerge(
      stored,
      { metadata: { '$deleteFromPrimitiveList/finalizers': names('a', N - 1) } },
      node.schema,
    );
    expect(result.metadata.finalizers).to.deep.equal([`a-${N - 1}`]);
  });
});
