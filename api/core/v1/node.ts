// Node: a worker machine registered by its node agent. Most of status is agent-reported; spec carries the pod
// ranges, taints and the scheduling switch.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import type { JSONSchema } from '../../schema.js';
import { conditionStatus, kindSchema } from '../../common/object-meta.js';
import {
  arr,
  bool,
  describe,
  enumStr,
  int32,
  int64,
  mapList,
  named,
  obj,
  quantityMap,
  str,
  stringList,
  time,
} from '../../common/schema-builders.js';
import { validateMetadata, validateQuantityMap } from '../../common/meta-validation.js';
import { applySchemaDefaults } from '../../common/defaulting.js';
import { asArr, asObj, asStr, immutable, root, specOf, statusOf } from '../../common/validation-helpers.js';
import { CIDR_DETAIL, parseCidr } from '../../common/net.js';
import { labelValue, qualifiedName } from '../../meta/validation.js';
import { ageColumn, column, nodeAddress, nodeInfo, nodeRoles, nodeStatus } from '../../common/printers.js';

const CORE = 'io.platform.api.core.v1';
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export const taintSchema = named(
  `${CORE}.Taint`,
  obj(
    {
      key: str('Required. The taint key to be applied to a node.'),
      value: str('The taint value corresponding to the taint key.'),
      effect: enumStr(TAINT_EFFECTS, 'Required. The effect of the taint on pods that do not tolerate the taint.'),
      timeAdded: time('Time at which the taint was added. Only written for NoExecute taints.'),
    },
    'The node this Taint is attached to has the "effect" on any pod that does not tolerate the Taint.',
    ['key', 'effect'],
  ),
);

const configMapSource = obj(
  {
    namespace: str('Namespace is the metadata.namespace of the referenced ConfigMap.'),
    name: str('Name is the metadata.name of the referenced ConfigMap.'),
    uid: str('UID is the metadata.UID of the referenced ConfigMap. Forbidden in Node.spec, required in Node.status.'),
    resourceVersion: str(
      'ResourceVersion of the referenced ConfigMap. Forbidden in Node.spec, required in Node.status.',
    ),
    nodeagentConfigKey: str('The key of the referenced ConfigMap that holds the node agent configuration.'),
  },
  'ConfigMapNodeConfigSource references a ConfigMap as a config source for the node.',
  ['namespace', 'name', 'nodeagentConfigKey'],
);

const nodeConfigSource = named(
  `${CORE}.NodeConfigSource`,
  obj(
    {
      configMap: configMapSource,
    },
    'NodeConfigSource specifies a source of node configuration. Deprecated: the dynamic configuration feature is removed.',
  ),
);

const conditionSchema = obj(
  {
    type: str('Type of node condition.'),
    status: conditionStatus(),
    lastHeartbeatTime: time('Last time we got an update on a given condition.'),
    lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
    reason: str("(brief) reason for the condition's last transition."),
    message: str('Human readable message indicating details about last transition.'),
  },
  'NodeCondition contains condition information for a node.',
  ['type', 'status'],
);

const addressSchema = obj(
  {
    type: enumStr(['Hostname', 'ExternalIP', 'InternalIP'], 'Node address type.'),
    address: str('The node address.'),
  },
  "NodeAddress contains information for the node's address.",
  ['type', 'address'],
);

const specSchema: JSONSchema = obj(
  {
    configSource: describe(nodeConfigSource, 'Deprecated since 1.22: the feature it served is removed.'),
    externalID: str('Deprecated. Not all node agents set this field.'),
    podCIDR: str('PodCIDR represents the pod IP range assigned to the node.'),
    podCIDRs: {
      ...stringList(
        'The IP ranges assigned to the node for pods; at most one per IP family. Entry 0 must equal podCIDR.',
        'set',
      ),
      'x-kubernetes-patch-strategy': 'merge',
    },
    providerID: str('ID of the node assigned by the cloud provider: <ProviderName>://<ProviderSpecificNodeID>.'),
    taints: arr(taintSchema, "If specified, the node's taints.", 'atomic'),
    unschedulable: bool('Unschedulable controls node schedulability of new pods. By default, node is schedulable.'),
  },
  'NodeSpec describes the attributes that a node is created with.',
);

const statusSchema: JSONSchema = obj(
  {
    addresses: mapList(
      addressSchema,
      'type',
      'List of addresses reachable to the node. The merge key is not unique enough; callers should replace the list wholesale.',
    ),
    allocatable: quantityMap('Resources of a node available for scheduling. Defaults to Capacity.'),
    capacity: quantityMap('Total resources of the node.'),
    conditions: mapList(conditionSchema, 'type', 'Conditions is an array of current observed node conditions.'),
    config: obj(
      {
        active: describe(nodeConfigSource, 'The config the node is actively using.'),
        assigned: describe(nodeConfigSource, 'The config the node will try to use on its next start.'),
        lastKnownGood: describe(nodeConfigSource, 'The config the node falls back to on errors.'),
        error: str('Human-readable description of errors handling spec.configSource; empty means none.'),
      },
      'Status of the config assigned to the node via the deprecated dynamic configuration feature.',
    ),
    daemonEndpoints: obj(
      {
        nodeagentEndpoint: obj(
          {
            Port: int32('Port number of the given endpoint.'),
          },
          'Endpoint on which the node agent is listening.',
          ['Port'],
        ),
      },
      'Endpoints of daemons running on the node.',
    ),
    features: obj(
      {
        supplementalGroupsPolicy: bool(
          'True when the runtime supports the SupplementalGroupsPolicy and ContainerUser.',
        ),
      },
      "Features supported by the node's runtime.",
    ),
    images: arr(
      obj(
        {
          names: stringList('Names by which this image is known.', 'atomic'),
          sizeBytes: int64('The size of the image in bytes.'),
        },
        'Describe a container image.',
      ),
      'List of container images on this node.',
      'atomic',
    ),
    nodeInfo: obj(
      {
        architecture: str('The Architecture reported by the node.'),
        bootID: str('Boot ID reported by the node.'),
        containerRuntimeVersion: str('ContainerRuntime Version reported by the node (runtime://version).'),
        kernelVersion: str('Kernel Version reported by the node.'),
        platformProxyVersion: str('Deprecated: the proxy version reported by the node.'),
        nodeagentVersion: str('Node agent version reported by the node.'),
        operatingSystem: str('The Operating System reported by the node.'),
        osImage: str('OS Image reported by the node.'),
        machineID: str('MachineID reported by the node.'),
        systemUUID: str('SystemUUID reported by the node.'),
      },
      'Set of ids/uuids to uniquely identify the node.',
      [
        'architecture',
        'bootID',
        'containerRuntimeVersion',
        'kernelVersion',
        'platformProxyVersion',
        'nodeagentVersion',
        'operatingSystem',
        'osImage',
      ],
    ),
    phase: enumStr(
      ['Pending', 'Running', 'Terminated'],
      'Deprecated: NodePhase is the recently observed lifecycle phase of the node; never populated.',
    ),
    runtimeHandlers: arr(
      obj(
        {
          name: str('Runtime handler name; empty for the default runtime handler.'),
          features: obj(
            {
              recursiveReadOnlyMounts: bool('True if the runtime handler supports RecursiveReadOnlyMounts.'),
              userNamespaces: bool('True if the runtime handler supports UserNamespaces, including for volumes.'),
            },
            'Supported features.',
          ),
        },
        'A runtime handler.',
      ),
      'The available runtime handlers.',
      'atomic',
    ),
    volumesAttached: arr(
      obj(
        {
          name: str('Name of the attached volume.'),
          devicePath: str('DevicePath represents the device path where the volume should be available.'),
        },
        'AttachedVolume describes a volume attached to a node.',
        ['name', 'devicePath'],
      ),
      'List of volumes that are attached to the node.',
      'atomic',
    ),
    volumesInUse: stringList('List of attachable volumes in use (mounted) by the node.'),
  },
  'NodeStatus is information about the current status of a node.',
);

const schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Node',
  description: 'Node is a worker node. Each node has a unique identifier in the cache (i.e. in etcd).',
  properties: {
    spec: describe(specSchema, 'Spec defines the behavior of a node.'),
    status: describe(statusSchema, 'Most recently observed status of the node.'),
  },
});

function validateTaints(taints: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((raw, i) => {
    const t = asObj(raw) ?? {};
    const at = root('spec').child('taints').index(i);
    const key = asStr(t.key) ?? '';
    if (!key) errs.push(fieldErrors.required(at.child('key')));
    else for (const p of qualifiedName(key)) errs.push(fieldErrors.invalid(at.child('key'), key, p));
    const value = asStr(t.value);
    if (value) for (const p of labelValue(value)) errs.push(fieldErrors.invalid(at.child('value'), value, p));
    const effect = asStr(t.effect);
    if (!effect) errs.push(fieldErrors.required(at.child('effect')));
    else if (!TAINT_EFFECTS.includes(effect))
      errs.push(fieldErrors.notSupported(at.child('effect'), effect, TAINT_EFFECTS));
    if (t.timeAdded !== undefined && t.timeAdded !== null && effect !== 'NoExecute') {
      errs.push(fieldErrors.forbidden(at.child('timeAdded'), 'may only be set for taints with the NoExecute effect'));
    }
    const id = `${key}:${effect}`;
    if (key && effect && seen.has(id)) errs.push(fieldErrors.duplicate(at, `${key}:${effect}`));
    seen.add(id);
  });
  return errs;
}

function validatePodCidrs(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const cidrs = asArr(spec.podCIDRs).filter((c): c is string => typeof c === 'string');
  const families = new Set<number>();
  cidrs.forEach((c, i) => {
    const parsed = parseCidr(c);
    if (!parsed) errs.push(fieldErrors.invalid(root('spec').child('podCIDRs').index(i), c, CIDR_DETAIL));
    else families.add(parsed.family);
  });
  if (cidrs.length > 2 || (cidrs.length === 2 && families.size < 2)) {
    errs.push(
      fieldErrors.invalid(
        root('spec').child('podCIDRs'),
        cidrs,
        'may specify no more than one CIDR for each IP family',
      ),
    );
  }
  const podCIDR = asStr(spec.podCIDR);
  if (podCIDR && cidrs.length > 0 && cidrs[0] !== podCIDR) {
    errs.push(
      fieldErrors.invalid(root('spec').child('podCIDR'), podCIDR, 'must match the first element of spec.podCIDRs'),
    );
  }
  return errs;
}

function validateNode(obj: KObject): FieldError[] {
  const spec = specOf(obj);
  const status = statusOf(obj);
  const cm = asObj(asObj(spec.configSource)?.configMap);
  const cmAt = root('spec').child('configSource').child('configMap');
  return [
    ...validateMetadata(obj, false, 'subdomain'),
    ...validateTaints(asArr(spec.taints)),
    ...validatePodCidrs(spec),
    ...(['uid', 'resourceVersion'] as const).flatMap((f) =>
      cm && cm[f] ? [fieldErrors.forbidden(cmAt.child(f), `${f} must not be set in spec`)] : [],
    ),
    ...validateQuantityMap(status.capacity, root('status').child('capacity')),
    ...validateQuantityMap(status.allocatable, root('status').child('allocatable')),
  ];
}

/** podCIDR(s) and providerID may go from unset to set, never change afterwards (the IPAM controller relies on it). */
function validateNodeUpdate(obj: KObject, old: KObject): FieldError[] {
  const spec = specOf(obj);
  const prev = specOf(old);
  const errs: FieldError[] = [];
  if (asArr(prev.podCIDRs).length > 0) {
    errs.push(
      ...immutable(
        root('spec').child('podCIDRs'),
        spec.podCIDRs,
        prev.podCIDRs,
        'node updates may not change podCIDR except from "" to valid',
      ),
    );
  }
  if (asStr(prev.providerID)) {
    errs.push(
      ...immutable(
        root('spec').child('providerID'),
        spec.providerID,
        prev.providerID,
        'node updates may not change providerID except from "" to valid',
      ),
    );
  }
  return errs;
}

export const node: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Node',
  resource: 'nodes',
  singular: 'node',
  namespaced: false,
  shortNames: ['no'],
  statusSubresource: true,
  tracksGeneration: false,
  // A node agent registers its Node with status already filled in.
  keepStatusOnCreate: true,
  schema,
  defaults(obj) {
    applySchemaDefaults(schema, obj);
    // Schedulers read allocatable; a node agent that reports only capacity has all of it allocatable.
    const status = asObj(obj.status);
    const capacity = asObj(status?.capacity);
    if (status && capacity && (status.allocatable === undefined || status.allocatable === null))
      status.allocatable = { ...capacity };
    // podCIDR and podCIDRs are two views of one value; fill whichever side is missing.
    const spec = asObj(obj.spec);
    if (!spec) return;
    const podCIDR = asStr(spec.podCIDR);
    const cidrs = asArr(spec.podCIDRs);
    if (podCIDR && cidrs.length === 0) spec.podCIDRs = [podCIDR];
    if (!podCIDR && typeof cidrs[0] === 'string') spec.podCIDR = cidrs[0];
  },
  validate: validateNode,
  validateUpdate: validateNodeUpdate,
  validateStatusUpdate: (obj) => [
    ...validateQuantityMap(statusOf(obj).capacity, root('status').child('capacity')),
    ...validateQuantityMap(statusOf(obj).allocatable, root('status').child('allocatable')),
  ],
  selectableFields: (obj) => ({ 'spec.unschedulable': String(specOf(obj).unschedulable === true) }),
  tableColumns: [
    column('Status', 'The status of the node', nodeStatus),
    column('Roles', 'The roles of the node', nodeRoles),
    ageColumn,
    column('Version', 'Node agent version reported by the node.', (obj) => nodeInfo(obj, 'nodeagentVersion')),
    column('Internal-IP', 'List of addresses reachable to the node.', (obj) => nodeAddress(obj, 'InternalIP'), 1),
    column('External-IP', 'List of addresses reachable to the node.', (obj) => nodeAddress(obj, 'ExternalIP'), 1),
    column('OS-Image', 'OS Image reported by the node.', (obj) => nodeInfo(obj, 'osImage', '<unknown>'), 1),
    column(
      'Kernel-Version',
      'Kernel Version reported by the node.',
      (obj) => nodeInfo(obj, 'kernelVersion', '<unknown>'),
      1,
    ),
    column(
      'Container-Runtime',
      'ContainerRuntime Version reported by the node (runtime://version).',
      (obj) => nodeInfo(obj, 'containerRuntimeVersion', '<unknown>'),
      1,
    ),
  ],
};
