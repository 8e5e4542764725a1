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

/**
 * The Scale of a kind whose spec carries `replicas` and a label `selector` and whose status carries `replicas`.
 * Metadata is the parent's identity (name, namespace, uid, resourceVersion, creation time): the resourceVersion a
 * client sends back guards the parent's update.
 */
export function replicasScale(): ProjectionSubresource {
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
      const replicas = specOf(parent).replicas;
      const selector = labelSelectorFromObject(specOf(parent).selector).selector.toString();
      const status: Record<string, unknown> = { replicas: statusOf(parent).replicas ?? 0 };
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
      parent.spec = { ...(asObj(parent.spec) ?? {}), replicas: specOf(projection).replicas ?? 0 };
    },
    tableColumns: [
      integerColumn('Desired', 'The desired number of replicas.', (scale) => intOf(specOf(scale).replicas)),
      integerColumn('Available', 'The observed number of replicas.', (scale) => intOf(statusOf(scale).replicas)),
    ],
  };
}
