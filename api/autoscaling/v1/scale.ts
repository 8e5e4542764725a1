// autoscaling/v1 Scale: the replica count of a workload and the selector of its pods, as the `scale` subresource
// shows them to `kubectl scale` and autoscalers. Not stored: it is a projection of the parent (replicasScale).
import type { ProjectionSubresource } from '../../scheme.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema } from '../../common/object-meta.js';
import { int32, obj, str } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asObj, nonNegative, root, specOf, statusOf } from '../../common/validation-helpers.js';
import { labelSelectorFromObject } from '../../meta/selectors.js';
import { integerColumn, intOf } from '../../common/printers.js';

export const SCALE_GROUP = 'autoscaling';
export const SCALE_VERSION = 'v1';
export const SCALE_KIND = 'Scale';

const schema = kindSchema({
  group: SCALE_GROUP,
  version: SCALE_VERSION,
  kind: SCALE_KIND,
  description: 'Scale represents a scaling request for a resource.',
  properties: {
    spec: obj(
      {
        replicas: int32('The desired number of instances for the scaled object.'),
      },
      'Defines the behavior of the scale.',
    ),
    status: obj(
      {
        replicas: int32('The actual number of observed instances of the scaled object.'),
        selector: str(
          'Label query over pods that should match the replicas count, in the string form of a label selector.',
        ),
      },
      'The current status of the scale; read-only.',
    ),
  },
});

/** Where a kind keeps what its Scale shows: the desired and observed replicas and the pods' selector. */
export interface ReplicaFields {
  specReplicas(parent: KObject): unknown;
  statusReplicas(parent: KObject): unknown;
  /** The selector in its string form, '' for none. */
  selector(parent: KObject): string;
  /** Writes the desired replicas into the parent (a private copy). */
  setSpecReplicas(parent: KObject, replicas: number): void;
}

/** A workload's fields: spec.replicas, a label selector object at spec.selector, and status.replicas. */
const workloadFields: ReplicaFields = {
  specReplicas: (parent) => specOf(parent).replicas,
  statusReplicas: (parent) => statusOf(parent).replicas,
  selector: (parent) => labelSelectorFromObject(specOf(parent).selector).selector.toString(),
  setSpecReplicas(parent, replicas) {
    parent.spec = { ...(asObj(parent.spec) ?? {}), replicas };
  },
};

/**
 * The Scale of a kind's replica fields (a workload's by default). Metadata is the parent's identity (name,
 * namespace, uid, resourceVersion, creation time): the resourceVersion a client sends back guards the parent's update.
 */
export function replicasScale(fields: ReplicaFields = workloadFields): ProjectionSubresource {
  return {
    group: SCALE_GROUP,
    version: SCALE_VERSION,
    kind: SCALE_KIND,
    schema,
    read(parent: KObject): KObject {
      const { name, namespace, uid, resourceVersion, creationTimestamp } = parent.metadata;
      const metadata: KObject['metadata'] = { name, namespace, uid, resourceVersion, creationTimestamp };
      for (const key of Object.keys(metadata) as (keyof typeof metadata)[])
        if (metadata[key] === undefined) delete metadata[key];
      const replicas = fields.specReplicas(parent);
      const selector = fields.selector(parent);
      const status: Record<string, unknown> = { replicas: fields.statusReplicas(parent) ?? 0 };
      if (selector) status.selector = selector;
      // spec.replicas is omitted when 0, as the Go type's omitempty leaves it out.
      return {
        kind: SCALE_KIND,
        apiVersion: `${SCALE_GROUP}/${SCALE_VERSION}`,
        metadata,
        spec: replicas ? { replicas } : {},
        status,
      };
    },
    validate: (projection) => [
      ...validateMetadata(projection, true, 'subdomain'),
      ...nonNegative(specOf(projection), ['replicas'], root('spec')),
    ],
    write(projection, parent) {
      // An absent spec.replicas is the Go zero value: 0.
      const replicas = specOf(projection).replicas;
      fields.setSpecReplicas(parent, typeof replicas === 'number' ? replicas : 0);
    },
    tableColumns: [
      integerColumn('Desired', 'The desired number of replicas.', (scale) => intOf(specOf(scale).replicas)),
      integerColumn('Available', 'The observed number of replicas.', (scale) => intOf(statusOf(scale).replicas)),
    ],
  };
}
