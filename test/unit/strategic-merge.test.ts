import { expect } from 'chai';
import { strategicMergePatch } from '../../gateway/patch/strategic-merge.js';
import { PATCH_TYPES, patchFunctionFor, patchMediaType } from '../../gateway/patch/patch-types.js';
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { JSONSchema } from '../../api/schema.js';
import { node } from '../../api/core/v1/node.js';
import { replicaSet } from '../../api/apps/v1/replica-set.js';

type Json = Record<string, unknown>;

/** Frozen inputs make any in-place change by the engine throw (ESM code runs in strict mode). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function apply(original: Json, patch: unknown, schema: JSONSchema = node.schema): Json {
  return strategicMergePatch(deepFreeze(structuredClone(original)), deepFreeze(structuredClone(patch)), schema) as Json;
}

function badRequest(original: Json, patch: unknown, fragment: string, schema: JSONSchema = node.schema): void {
  let thrown: unknown;
  try {
    strategicMergePatch(original, patch, schema);
  } catch (e) {
    thrown = e;
  }
  expect(isStatusError(thrown), `expected a StatusError for ${JSON.stringify(patch)}`).to.equal(true);
  if (!isStatusError(thrown)) return;
  expect(thrown.code).to.equal(400);
  expect(thrown.reason).to.equal('BadRequest');
  expect(thrown.message).to.contain(fragment);
}

const cond = (type: string, status: string, extra: Json = {}) => ({ type, status, ...extra });

const baseNode: Json = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1', labels: { zone: 'a', role: 'worker' }, annotations: { note: 'x' }, finalizers: ['f1', 'f2'] },
  spec: {
    podCIDR: '10.0.0.0/24',
    podCIDRs: ['10.0.0.0/24'],
    providerID: 'aws://i-1',
    taints: [
      { key: 'a', effect: 'NoSchedule' },
      { key: 'b', value: 'v', effect: 'NoExecute' },
    ],
  },
  status: {
    conditions: [
      cond('Ready', 'True', { reason: 'KubeletReady', message: 'ok' }),
      cond('MemoryPressure', 'False'),
      cond('DiskPressure', 'False'),
    ],
    addresses: [
      { type: 'InternalIP', address: '10.0.0.5' },
      { type: 'Hostname', address: 'n1' },
    ],
    nodeInfo: { architecture: 'amd64', bootID: 'b1' },
    capacity: { cpu: '4', memory: '8Gi' },
  },
};

interface Case {
  name: string;
  original?: Json;
  patch: unknown;
  /** Paths (dot separated) and their expected values in the result; `undefined` means absent. */
  expect: Record<string, unknown>;
}

function at(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Json)[k] : undefined), obj);
}

const nodeCases: Case[] = [
  {
    name: 'merges conditions by type: updates one, adds one, deletes one with $patch: delete',
    patch: {
      status: {
        conditions: [
          cond('Ready', 'False'),
          cond('PIDPressure', 'False'),
          { type: 'MemoryPressure', $patch: 'delete' },
        ],
      },
    },
    // Upstream order without $setElementOrder: patch elements first unless the stored order puts a server-only one before.
    expect: {
      'status.conditions': [
        cond('Ready', 'False', { reason: 'KubeletReady', message: 'ok' }),
        cond('PIDPressure', 'False'),
        cond('DiskPressure', 'False'),
      ],
    },
  },
  {
    name: 'keeps server-only conditions ahead of a changed one that followed them',
    patch: { status: { conditions: [cond('DiskPressure', 'True')] } },
    expect: {
      'status.conditions': [
        cond('Ready', 'True', { reason: 'KubeletReady', message: 'ok' }),
        cond('MemoryPressure', 'False'),
        cond('DiskPressure', 'True'),
      ],
    },
  },
  {
    name: 'adds an address by type; a new element lands before server-only ones, as upstream',
    patch: { status: { addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }] } },
    expect: {
      'status.addresses': [
        { type: 'ExternalIP', address: '1.2.3.4' },
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'Hostname', address: 'n1' },
      ],
    },
  },
  {
    name: 'places a new address where $setElementOrder says',
    patch: {
      status: {
        '$setElementOrder/addresses': [{ type: 'InternalIP' }, { type: 'Hostname' }, { type: 'ExternalIP' }],
        addresses: [{ type: 'ExternalIP', address: '1.2.3.4' }],
      },
    },
    expect: {
      'status.addresses': [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'Hostname', address: 'n1' },
        { type: 'ExternalIP', address: '1.2.3.4' },
      ],
    },
  },
  {
    name: 'replaces atomic taints wholesale',
    patch: { spec: { taints: [{ key: 'c', effect: 'PreferNoSchedule' }] } },
    expect: { 'spec.taints': [{ key: 'c', effect: 'PreferNoSchedule' }], 'spec.providerID': 'aws://i-1' },
  },
  {
    name: 'unions podCIDRs (primitive list with strategy merge) without duplicates',
    patch: { spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } },
    expect: { 'spec.podCIDRs': ['10.0.0.0/24', 'fd00::/64'] },
  },
  {
    name: 'removes podCIDRs values with $deleteFromPrimitiveList',
    original: { ...baseNode, spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64', '10.1.0.0/24'] } },
    patch: { spec: { '$deleteFromPrimitiveList/podCIDRs': ['fd00::/64', '192.168.0.0/16'] } },
    expect: { 'spec.podCIDRs': ['10.0.0.0/24', '10.1.0.0/24'], 'spec.$deleteFromPrimitiveList/podCIDRs': undefined },
  },
  {
    name: "adds, deletes and orders a primitive list in one patch (kubectl's shape)",
    original: { spec: { podCIDRs: ['a', 'b', 'c', 'd'] } },
    patch: {
      spec: {
        '$setElementOrder/podCIDRs': ['e', 'a', 'b'],
        '$deleteFromPrimitiveList/podCIDRs': ['c'],
        podCIDRs: ['e'],
      },
    },
    expect: { 'spec.podCIDRs': ['e', 'a', 'b', 'd'] },
  },
  {
    name: 'reorders conditions with $setElementOrder alone',
    patch: {
      status: {
        '$setElementOrder/conditions': [{ type: 'DiskPressure' }, { type: 'Ready' }, { type: 'MemoryPressure' }],
      },
    },
    expect: {
      'status.conditions': [
        cond('DiskPressure', 'False'),
        cond('Ready', 'True', { reason: 'KubeletReady', message: 'ok' }),
        cond('MemoryPressure', 'False'),
      ],
      'status.$setElementOrder/conditions': undefined,
    },
  },
  {
    name: 'replaces a map with $patch: replace',
    patch: { status: { nodeInfo: { $patch: 'replace', architecture: 'arm64' } } },
    expect: { 'status.nodeInfo': { architecture: 'arm64' }, 'status.capacity': { cpu: '4', memory: '8Gi' } },
  },
  {
    name: 'replaces a merged list with a $patch: replace element',
    patch: { status: { conditions: [{ $patch: 'replace' }, cond('Ready', 'Unknown')] } },
    expect: { 'status.conditions': [cond('Ready', 'Unknown')] },
  },
  {
    name: 'empties a list with a lone $patch: replace element',
    patch: { status: { conditions: [{ $patch: 'replace' }] } },
    expect: { 'status.conditions': [] },
  },
  {
    name: 'empties a stored map with $patch: delete (upstream keeps the key as {})',
    patch: { status: { nodeInfo: { $patch: 'delete' } } },
    expect: { 'status.nodeInfo': {}, 'status.capacity': { cpu: '4', memory: '8Gi' } },
  },
  {
    name: 'adds nothing for $patch: delete on a missing map',
    patch: { spec: { configSource: { $patch: 'delete' } } },
    expect: { 'spec.configSource': undefined, 'spec.podCIDR': '10.0.0.0/24' },
  },
  {
    name: 'keeps only $retainKeys fields, then merges',
    patch: { spec: { $retainKeys: ['podCIDR', 'unschedulable', 'taints'], unschedulable: true, taints: null } },
    expect: { spec: { podCIDR: '10.0.0.0/24', unschedulable: true } },
  },
  {
    name: 'deletes keys with null at any depth and ignores nulls for missing keys',
    patch: { metadata: { labels: { role: null, ghost: null } }, spec: { providerID: null }, status: { phase: null } },
    expect: { 'metadata.labels': { zone: 'a' }, 'spec.providerID': undefined, 'status.phase': undefined },
  },
  {
    name: 'merges labels and annotations as maps',
    patch: { metadata: { labels: { role: 'edge', tier: 'x' }, annotations: { other: 'y' } } },
    expect: {
      'metadata.labels': { zone: 'a', role: 'edge', tier: 'x' },
      'metadata.annotations': { note: 'x', other: 'y' },
    },
  },
  {
    name: 'merges finalizers as a set, as upstream ObjectMeta declares them',
    patch: { metadata: { finalizers: ['f3'] } },
    // Upstream's element order: a patch's new values come before the values only the server has.
    expect: { 'metadata.finalizers': ['f3', 'f1', 'f2'] },
  },
  {
    name: 'merges ownerReferences by uid',
    original: { metadata: { ownerReferences: [{ uid: 'u1', name: 'a', kind: 'K', apiVersion: 'v1' }] } },
    patch: {
      metadata: {
        ownerReferences: [
          { uid: 'u1', controller: true },
          { uid: 'u2', name: 'b', kind: 'K', apiVersion: 'v1' },
        ],
      },
    },
    expect: {
      'metadata.ownerReferences': [
        { uid: 'u1', name: 'a', kind: 'K', apiVersion: 'v1', controller: true },
        { uid: 'u2', name: 'b', kind: 'K', apiVersion: 'v1' },
      ],
    },
  },
  {
    name: 'strips directives from values the stored object does not have',
    original: { metadata: { name: 'n1' } },
    patch: {
      status: {
        '$setElementOrder/conditions': [{ type: 'B' }, { type: 'A' }],
        conditions: [cond('B', 'True'), cond('A', 'True'), { type: 'C', $patch: 'delete' }],
        config: { error: null, active: { $patch: 'delete' } },
      },
    },
    expect: { 'status.conditions': [cond('B', 'True'), cond('A', 'True')], 'status.config': {} },
  },
  {
    name: 'takes the patch value where the stored type differs',
    original: { spec: { taints: 'oops', podCIDRs: { a: 1 } } },
    patch: { spec: { taints: [{ key: 'k', effect: 'NoSchedule' }], podCIDRs: ['x', 'x'] } },
    expect: { 'spec.taints': [{ key: 'k', effect: 'NoSchedule' }], 'spec.podCIDRs': ['x'] },
  },
  {
    name: 'treats an explicit $patch: merge as the default',
    patch: {
      status: {
        nodeInfo: { $patch: 'merge', bootID: 'b2' },
        conditions: [{ $patch: 'merge' }, { $patch: 'merge', type: 'Ready', status: 'False' }],
      },
    },
    expect: {
      'status.nodeInfo': { architecture: 'amd64', bootID: 'b2' },
      'status.conditions.0.status': 'False',
      'status.conditions.0.reason': 'KubeletReady',
    },
  },
  {
    name: 'answers {} for a top-level $patch: delete',
    patch: { $patch: 'delete' },
    expect: { apiVersion: undefined, metadata: undefined },
  },
];

describe('strategic merge patch', () => {
  describe('on the Node schema', () => {
    for (const c of nodeCases) {
      it(c.name, () => {
        const result = apply(c.original ?? baseNode, c.patch);
        for (const [path, value] of Object.entries(c.expect)) {
          expect(at(result, path), path).to.deep.equal(value);
        }
      });
    }

    it('never modifies its inputs and shares no objects with them', () => {
      const original = structuredClone(baseNode);
      const patch = { metadata: { labels: { new: 'v' } }, spec: { taints: [{ key: 'z', effect: 'NoSchedule' }] } };
      const result = strategicMergePatch(original, patch, node.schema) as Json;
      expect(original).to.deep.equal(baseNode);
      (at(result, 'status.conditions') as Json[])[0].status = 'changed';
      (at(result, 'spec.taints') as Json[])[0].key = 'changed';
      expect(at(original, 'status.conditions.0.status')).to.equal('True');
      expect(patch.spec.taints[0].key).to.equal('z');
    });
  });

  describe('order rules shared with upstream', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: {
        list: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' } } },
          'x-kubernetes-patch-strategy': 'merge',
          'x-kubernetes-patch-merge-key': 'name',
        },
        ints: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
        plain: { type: 'array', items: { type: 'integer' } },
      },
    };
    const n = (name: number, extra: Json = {}) => ({ name, ...extra });
    const table: [string, Json, Json, Json][] = [
      [
        'keeps the patch order for patched elements',
        { list: [n(1), n(2, { value: 'b' }), n(3)] },
        { list: [n(3, { value: 'c' }), n(1, { value: 'a' }), n(2, { other: 'x' })] },
        { list: [n(3, { value: 'c' }), n(1, { value: 'a' }), n(2, { value: 'b', other: 'x' })] },
      ],
      [
        'interleaves server-only elements by stored order',
        { list: [n(1), n(2, { value: 'b' }), n(3)] },
        { list: [n(3, { value: 'c' }), n(1, { value: 'a' })] },
        { list: [n(2, { value: 'b' }), n(3, { value: 'c' }), n(1, { value: 'a' })] },
      ],
      ['does the same for primitives', { ints: [1, 2, 3] }, { ints: [3, 1] }, { ints: [2, 3, 1] }],
      [
        'ignores $setElementOrder entries absent from the list',
        { list: [n(1), n(3)] },
        { '$setElementOrder/list': [n(3), n(2), n(1)], list: [n(3, { value: 3 }), n(1, { value: 1 })] },
        { list: [n(3, { value: 3 }), n(1, { value: 1 })] },
      ],
      [
        'orders by $setElementOrder around server-only elements',
        { list: [n(1, { other: 'a' }), n(2, { value: 2 })] },
        { '$setElementOrder/list': [n(4), n(1), n(2), n(3)], list: [n(4, { value: 4 }), n(3, { value: 3 })] },
        { list: [n(4, { value: 4 }), n(1, { other: 'a' }), n(2, { value: 2 }), n(3, { value: 3 })] },
      ],
      [
        'deletes every duplicate of a deleted key',
        { list: [n(1), n(1), n(2, { value: 'a' }), n(3), n(3)] },
        {
          list: [
            { name: 1, $patch: 'delete' },
            { name: 3, $patch: 'delete' },
          ],
        },
        { list: [n(2, { value: 'a' })] },
      ],
      [
        'deletes all duplicates from a primitive list and keeps server-only values',
        { ints: [1, 2, 3, 3, 4] },
        { '$setElementOrder/ints': [1, 2], '$deleteFromPrimitiveList/ints': [3] },
        { ints: [1, 2, 4] },
      ],
      [
        'deletes from a list without merge strategy too',
        { plain: [1, 2, 3] },
        { '$deleteFromPrimitiveList/plain': [2] },
        { plain: [1, 3] },
      ],
      [
        'leaves a missing list missing on $deleteFromPrimitiveList',
        { other: 1 },
        { '$deleteFromPrimitiveList/ints': [3] },
        { other: 1 },
      ],
      [
        "keeps a deleted-element placeholder out of a new element's neighbours",
        { list: [n(2)] },
        { '$setElementOrder/list': [n(1), n(9)], list: [n(1), { name: 9, $patch: 'delete' }] },
        { list: [n(1), n(2)] },
      ],
    ];
    for (const [name, original, patch, expected] of table) {
      it(name, () => expect(apply(original, patch, schema)).to.deep.equal(expected));
    }

    it('applies $retainKeys inside merged list elements', () => {
      const result = apply(
        { list: [n(1), n(2, { value: 'old', other: 'x' })] },
        { '$setElementOrder/list': [n(1), n(2)], list: [{ $retainKeys: ['name', 'value'], name: 2, value: 'new' }] },
        schema,
      );
      expect(result).to.deep.equal({ list: [n(1), n(2, { value: 'new' })] });
    });
  });

  describe('unknown and preserved fields', () => {
    it('merges maps and replaces lists like a JSON merge patch', () => {
      const original = {
        spec: {
          template: {
            spec: {
              containers: [
                {
                  name: 'c',
                  image: 'i',
                  volumeMounts: [{ name: 'a', mountPath: '/a' }],
                  securityContext: { runAsUser: 1, privileged: false },
                },
              ],
              volumes: [{ name: 'a' }, { name: 'b' }],
            },
          },
        },
      };
      const patch = {
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'c', volumeMounts: [{ name: 'b', mountPath: '/b' }], securityContext: { privileged: true } },
              ],
              volumes: [{ name: 'b' }],
            },
          },
        },
      };
      const result = apply(original, patch, replicaSet.schema);
      expect(at(result, 'spec.template.spec.volumes')).to.deep.equal([{ name: 'b' }]);
      expect(at(result, 'spec.template.spec.containers')).to.deep.equal([
        {
          name: 'c',
          image: 'i',
          volumeMounts: [{ name: 'b', mountPath: '/b' }],
          securityContext: { runAsUser: 1, privileged: true },
        },
      ]);
    });
  });

  describe('kubectl apply (client-side) re-apply', () => {
    const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
    // The previous manifest, stored by kubectl in the annotation.
    const previous = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'frontend' } },
      spec: {
        replicas: 2,
        minReadySeconds: 5,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1.25',
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', value: '2' },
                ],
                ports: [{ containerPort: 80 }],
              },
              { name: 'sidecar', image: 'busybox', args: ['sleep', '3600'] },
            ],
          },
        },
      },
    };
    // The new manifest: tier label and minReadySeconds removed, replicas and image changed, env B replaced by C,
    // sidecar removed and a metrics container added in front.
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'metrics', image: 'exporter:1' },
              {
                name: 'web',
                image: 'nginx:1.26',
                env: [
                  { name: 'A', value: '1' },
                  { name: 'C', value: '3' },
                ],
                ports: [{ containerPort: 80 }],
              },
            ],
          },
        },
      },
    };
    // The live object: server-set metadata, defaults (protocol, imagePullPolicy) and fields Gatehouse does not model.
    const live = {
      ...structuredClone(previous),
      metadata: {
        ...structuredClone(previous.metadata),
        uid: 'u-1',
        resourceVersion: '42',
        generation: 1,
        creationTimestamp: '2025-01-01T00:00:00Z',
        annotations: { [LAST_APPLIED]: `${JSON.stringify(previous)}\n` },
      },
      spec: {
        ...structuredClone(previous.spec),
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            restartPolicy: 'Always',
            containers: [
              {
                name: 'web',
                image: 'nginx:1.25',
                imagePullPolicy: 'IfNotPresent',
                terminationMessagePath: '/dev/termination-log',
                env: [
                  { name: 'A', value: '1' },
                  { name: 'B', value: '2' },
                ],
                ports: [{ containerPort: 80, protocol: 'TCP' }],
              },
              { name: 'sidecar', image: 'busybox', args: ['sleep', '3600'], imagePullPolicy: 'Always' },
            ],
          },
        },
      },
      status: { replicas: 2 },
    };
    // What kubectl 1.32 sends (CreateThreeWayMergePatch): deletions from last-applied → manifest as nulls and
    // `$patch: delete` elements (appended after the changes), changes from live → manifest, and $setElementOrder for
    // every merged list with changes.
    const patch = {
      metadata: { annotations: { [LAST_APPLIED]: `${JSON.stringify(manifest)}\n` }, labels: { tier: null } },
      spec: {
        minReadySeconds: null,
        replicas: 3,
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'metrics' }, { name: 'web' }],
            containers: [
              { image: 'exporter:1', name: 'metrics' },
              {
                '$setElementOrder/env': [{ name: 'A' }, { name: 'C' }],
                env: [
                  { name: 'C', value: '3' },
                  { $patch: 'delete', name: 'B' },
                ],
                image: 'nginx:1.26',
                name: 'web',
              },
              { $patch: 'delete', name: 'sidecar' },
            ],
          },
        },
      },
    };

    it('turns the live object into the manifest plus what the server owns', () => {
      const result = apply(live, patch, replicaSet.schema);
      expect(result.metadata).to.deep.equal({
        name: 'web',
        namespace: 'default',
        labels: { app: 'web' },
        uid: 'u-1',
        resourceVersion: '42',
        generation: 1,
        creationTimestamp: '2025-01-01T00:00:00Z',
        annotations: { [LAST_APPLIED]: `${JSON.stringify(manifest)}\n` },
      });
      expect(result.spec).to.deep.equal({
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            restartPolicy: 'Always',
            containers: [
              { name: 'metrics', image: 'exporter:1' },
              {
                name: 'web',
                image: 'nginx:1.26',
                imagePullPolicy: 'IfNotPresent',
                terminationMessagePath: '/dev/termination-log',
                env: [
                  { name: 'A', value: '1' },
                  { name: 'C', value: '3' },
                ],
                ports: [{ containerPort: 80, protocol: 'TCP' }],
              },
            ],
          },
        },
      });
      expect(result.status).to.deep.equal({ replicas: 2 });
    });

    it('is idempotent: the same patch applied again changes nothing', () => {
      const once = apply(live, patch, replicaSet.schema);
      expect(apply(once, patch, replicaSet.schema)).to.deep.equal(once);
    });

    it('handles kubectl patch defaults (a strategic patch of one field)', () => {
      const result = apply(baseNode, { spec: { unschedulable: true } });
      expect(at(result, 'spec.unschedulable')).to.equal(true);
      expect(at(result, 'spec.taints')).to.deep.equal(at(baseNode, 'spec.taints'));
    });
  });

  describe('malformed patches answer 400', () => {
    const table: [string, unknown, string][] = [
      ['a patch that is not an object', [{ op: 'add' }], 'must be a JSON object'],
      ['an unknown $patch value on a map', { spec: { $patch: 'remove' } }, 'unknown patch type "remove"'],
      [
        'an unknown $patch value in a list',
        { status: { conditions: [{ type: 'Ready', $patch: 'zap' }] } },
        'unknown patch type "zap"',
      ],
      [
        'a merged element without its merge key',
        { status: { conditions: [{ status: 'True' }] } },
        'does not contain the merge key "type"',
      ],
      [
        'a delete element without its merge key',
        { status: { conditions: [{ $patch: 'delete' }] } },
        'merge key "type"',
      ],
      ['a primitive in a keyed list', { status: { conditions: ['Ready'] } }, 'must be objects'],
      ['an object in a primitive merged list', { spec: { podCIDRs: [{ cidr: 'x' }] } }, 'only primitive values'],
      [
        'a $setElementOrder that is not a list',
        { status: { '$setElementOrder/conditions': 'Ready' } },
        'must be a list',
      ],
      ['a $setElementOrder without a field name', { status: { $setElementOrder: [] } }, 'malformed directive key'],
      [
        'a $setElementOrder element without the merge key',
        { status: { '$setElementOrder/conditions': ['Ready'] } },
        'merge key "type"',
      ],
      [
        'a patch list out of $setElementOrder order',
        {
          status: {
            '$setElementOrder/conditions': [{ type: 'Ready' }, { type: 'DiskPressure' }],
            conditions: [cond('DiskPressure', 'True'), cond('Ready', 'True')],
          },
        },
        'does not match the order',
      ],
      [
        'a $setElementOrder with a non-list field value',
        { status: { '$setElementOrder/conditions': [], conditions: { type: 'Ready' } } },
        'must be a list',
      ],
      ['a $retainKeys that is not a list of names', { spec: { $retainKeys: 'podCIDR' } }, '$retainKeys must be a list'],
      [
        'a patch field missing from $retainKeys',
        { spec: { $retainKeys: ['podCIDR'], providerID: 'x' } },
        'missing from its $retainKeys list',
      ],
      [
        'a $deleteFromPrimitiveList that is not a list',
        { spec: { '$deleteFromPrimitiveList/podCIDRs': 'x' } },
        'must be a list',
      ],
      [
        'a $deleteFromPrimitiveList holding objects',
        { spec: { '$deleteFromPrimitiveList/podCIDRs': [{}] } },
        'only primitive values',
      ],
      [
        'a $deleteFromPrimitiveList without a field name',
        { spec: { $deleteFromPrimitiveListpodCIDRs: [] } },
        'malformed directive key',
      ],
    ];
    for (const [name, patch, fragment] of table) {
      it(name, () => badRequest(baseNode, patch, fragment));
    }

    it('names where in the object the problem is', () =>
      badRequest(baseNode, { status: { conditions: [{ status: 'True' }] } }, 'at status.conditions[0]'));
  });

  describe('registration', () => {
    it('serves application/strategic-merge-patch+json with the kind schema', () => {
      expect(PATCH_TYPES).to.have.property('application/strategic-merge-patch+json');
      const fn = patchFunctionFor(patchMediaType('application/strategic-merge-patch+json; charset=utf-8'));
      const result = fn(
        baseNode as unknown as KObject,
        { status: { conditions: [{ type: 'Ready', $patch: 'delete' }] } },
        node.schema,
      ) as Json;
      expect((at(result, 'status.conditions') as Json[]).map((c) => c.type)).to.deep.equal([
        'MemoryPressure',
        'DiskPressure',
      ]);
    });

    it('leaves merge patch replacing lists', () => {
      const fn = patchFunctionFor('application/merge-patch+json');
      const result = fn(
        baseNode as unknown as KObject,
        { status: { conditions: [cond('X', 'True')] } },
        node.schema,
      ) as Json;
      expect(at(result, 'status.conditions')).to.deep.equal([cond('X', 'True')]);
    });
  });
});
