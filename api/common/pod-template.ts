// A pod template that is real enough for kubectl explain and for catching the common mistakes (containers without a
// name or image, bad ports, bad resource quantities), but not the whole pod API. Gatehouse runs no pods, so rather
// than reject pod fields it does not model, the pod spec and the container keep unknown fields
// (x-kubernetes-preserve-unknown-fields): manifests written for a full cluster apply unchanged, and the fields that
// are modelled are still type-checked.
import type { JSONSchema } from '../schema.js';
import { objectMetaSchema, localObjectReferenceSchema } from './object-meta.js';
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
  stringMap,
} from './schema-builders.js';

const CORE = 'io.platform.api.core.v1';

const envVarSchema = named(
  `${CORE}.EnvVar`,
  obj(
    {
      name: str('Name of the environment variable.'),
      value: str('Value, with $(VAR_NAME) references expanded from previously defined variables. Defaults to "".'),
      valueFrom: obj(
        {
          configMapKeyRef: obj(
            {
              name: str('Name of the ConfigMap.'),
              key: str('The key to select.'),
              optional: bool('Whether the ConfigMap or key must exist.'),
            },
            'Selects a key of a ConfigMap.',
            ['key'],
          ),
          secretKeyRef: obj(
            {
              name: str('Name of the Secret.'),
              key: str('The key to select.'),
              optional: bool('Whether the Secret or key must exist.'),
            },
            "Selects a key of a Secret in the pod's namespace.",
            ['key'],
          ),
          fieldRef: obj(
            {
              apiVersion: str('Version of the schema the fieldPath is written in.'),
              fieldPath: str('Path of the field to select.'),
            },
            'Selects a field of the pod.',
            ['fieldPath'],
          ),
        },
        "Source for the variable's value; cannot be used if value is not empty.",
      ),
    },
    'EnvVar represents an environment variable present in a container.',
    ['name'],
  ),
);

const containerPortSchema = named(
  `${CORE}.ContainerPort`,
  obj(
    {
      name: str('If specified, an IANA_SVC_NAME unique within the pod; referred to by services.'),
      containerPort: int32("Port number to expose on the pod's IP address (0 < x < 65536).", {
        minimum: 1,
        maximum: 65535,
      }),
      hostPort: int32('Port number to expose on the host.', { minimum: 0, maximum: 65535 }),
      hostIP: str('Host IP to bind the external port to.'),
      protocol: enumStr(['TCP', 'UDP', 'SCTP'], 'Protocol for the port. Defaults to "TCP".', { default: 'TCP' }),
    },
    'ContainerPort represents a network port in a single container.',
    ['containerPort'],
  ),
);

const resourceRequirementsSchema = named(
  `${CORE}.ResourceRequirements`,
  obj(
    {
      limits: quantityMap('Maximum amount of compute resources allowed.'),
      requests: quantityMap('Minimum amount of compute resources required; defaults to limits when omitted.'),
    },
    'ResourceRequirements describes the compute resource requirements.',
  ),
);

export const containerSchema = named(
  `${CORE}.Container`,
  obj(
    {
      name: str('Name of the container, a DNS label unique within the pod. Cannot be updated.'),
      image: str('Container image name.'),
      command: stringList('Entrypoint array, not executed within a shell. Cannot be updated.', 'atomic'),
      args: stringList('Arguments to the entrypoint. Cannot be updated.', 'atomic'),
      workingDir: str("Container's working directory."),
      env: mapList(envVarSchema, 'name', 'Environment variables to set in the container. Cannot be updated.'),
      ports: {
        ...mapList(containerPortSchema, 'containerPort', 'Ports to expose from the container; informational.'),
        'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
      },
      resources: describe(resourceRequirementsSchema, 'Compute resources required by this container.'),
      imagePullPolicy: enumStr(
        ['Always', 'IfNotPresent', 'Never'],
        'Image pull policy. Defaults to Always for :latest tags, IfNotPresent otherwise.',
      ),
    },
    'A single application container to run within a pod.',
    ['name'],
    { 'x-kubernetes-preserve-unknown-fields': true },
  ),
);

export const podSpecSchema = named(
  `${CORE}.PodSpec`,
  obj(
    {
      containers: mapList(
        containerSchema,
        'name',
        'List of containers belonging to the pod; at least one. Cannot be updated.',
      ),
      initContainers: mapList(containerSchema, 'name', 'Containers run in order before the app containers start.'),
      restartPolicy: enumStr(
        ['Always', 'OnFailure', 'Never'],
        'Restart policy for all containers within the pod. Default Always.',
      ),
      terminationGracePeriodSeconds: int64(
        'Duration in seconds the pod needs to terminate gracefully. Defaults to 30.',
      ),
      activeDeadlineSeconds: int64('Duration in seconds the pod may be active on the node before the system fails it.'),
      nodeSelector: stringMap('Labels a node must have for the pod to fit on it.'),
      nodeName: str('Request to schedule the pod onto this node directly.'),
      serviceAccountName: str('Name of the ServiceAccount used to run this pod.'),
      automountServiceAccountToken: bool('Whether a service account token should be mounted automatically.'),
      hostNetwork: bool("Use the host's network namespace."),
      imagePullSecrets: mapList(
        localObjectReferenceSchema,
        'name',
        'References to secrets in the same namespace used to pull images.',
      ),
      priorityClassName: str("Name of the pod's priority class."),
      schedulerName: str('Scheduler that dispatches the pod.'),
      tolerations: arr(
        obj(
          {
            key: str('Taint key the toleration applies to; empty matches all keys.'),
            operator: enumStr(['Exists', 'Equal'], 'Relationship of key to value. Defaults to Equal.'),
            value: str('Taint value the toleration matches.'),
            effect: enumStr(
              ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
              'Taint effect to match; empty matches all effects.',
            ),
            tolerationSeconds: int64('For NoExecute: how long the pod stays bound after the taint is added.'),
          },
          'The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect>.',
        ),
        "The pod's tolerations.",
        'atomic',
      ),
    },
    'PodSpec is a description of a pod. Fields not modelled here are kept as sent.',
    ['containers'],
    { 'x-kubernetes-preserve-unknown-fields': true },
  ),
);

export const podTemplateSpecSchema = named(
  `${CORE}.PodTemplateSpec`,
  obj(
    {
      metadata: describe(objectMetaSchema, 'Standard metadata of the pods created from this template.'),
      spec: describe(podSpecSchema, 'Specification of the desired behavior of the pod.'),
    },
    'PodTemplateSpec describes the data a pod should have when created from a template.',
  ),
);

export const podTemplate = (description: string): JSONSchema => describe(podTemplateSpecSchema, description);
