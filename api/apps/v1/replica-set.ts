// ReplicaSet: keeps a number of pods from one template running. Gatehouse stores it; no controller runs pods.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { conditionStatus, kindSchema, labelSelectorSchema } from '../../common/object-meta.js';
import { describe, int32, int64, mapList, obj, str, time } from '../../common/schema-builders.js';
import { podTemplate } from '../../common/pod-template.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { applySchemaDefaults } from '../../common/defaulting.js';
import {
  asArr,
  asObj,
  asStr,
  asStrMap,
  immutable,
  nonNegative,
  root,
  selectorMatches,
  specOf,
  statusOf,
  validateLabelSelector,
} from '../../common/validation-helpers.js';
import { dns1123Label } from '../../meta/validation.js';
import { replicasScale } from '../../autoscaling/v1/scale.js';
import { ageColumn, integerColumn, intOf, pathOf, podTemplateWideColumns } from '../../common/printers.js';

const schema = kindSchema({
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  description: 'ReplicaSet ensures that a specified number of pod replicas are running at any given time.',
  properties: {
    spec: obj(
      {
        replicas: int32('Number of desired pods. Defaults to 1; an explicit 0 is different from unset.', {
          default: 1,
        }),
        minReadySeconds: int32(
          'Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0.',
          { default: 0 },
        ),
        selector: describe(
          labelSelectorSchema,
          "A label query over pods that should match the replica count. It must match the pod template's labels.",
        ),
        template: podTemplate(
          'The object that describes the pod that will be created if insufficient replicas are detected.',
        ),
      },
      'Spec defines the specification of the desired behavior of the ReplicaSet.',
      ['selector'],
    ),
    status: obj(
      {
        replicas: int32('The most recently observed number of replicas.'),
        fullyLabeledReplicas: int32(
          'The number of pods that have labels matching the labels of the pod template of the replicaset.',
        ),
        readyReplicas: int32('The number of pods targeted by this ReplicaSet with a Ready condition.'),
        availableReplicas: int32(
          'The number of available pods (ready for at least minReadySeconds) for this replica set.',
        ),
        observedGeneration: int64('Reflects the generation of the most recently observed ReplicaSet.'),
        conditions: mapList(
          obj(
            {
              type: str('Type of replica set condition.'),
              status: conditionStatus(),
              lastTransitionTime: time('The last time the condition transitioned from one status to another.'),
              reason: str("The reason for the condition's last transition."),
              message: str('A human readable message indicating details about the transition.'),
            },
            'ReplicaSetCondition describes the state of a replica set at a certain point.',
            ['type', 'status'],
          ),
          'type',
          "Represents the latest available observations of a replica set's current state.",
        ),
      },
      'Status is the most recently observed status of the ReplicaSet. Populated by the system; read-only.',
      ['replicas'],
    ),
  },
});

function validateTemplate(template: unknown, selector: unknown): FieldError[] {
  const at = root('spec').child('template');
  const t = asObj(template);
  if (!t) return [];
  const labels = asStrMap(asObj(t.metadata)?.labels);
  const errs: FieldError[] = [];
  if (asObj(selector) && !selectorMatches(selector, labels)) {
    errs.push(
      fieldErrors.invalid(at.child('metadata').child('labels'), labels, '`selector` does not match template `labels`'),
    );
  }
  const containersAt = at.child('spec').child('containers');
  const containers = asArr(asObj(t.spec)?.containers);
  if (asObj(t.spec) && containers.length === 0) errs.push(fieldErrors.required(containersAt));
  const names = new Set<string>();
  containers.forEach((raw, i) => {
    const c = asObj(raw) ?? {};
    const name = asStr(c.name) ?? '';
    if (!name) errs.push(fieldErrors.required(containersAt.index(i).child('name')));
    else
      for (const p of dns1123Label(name)) errs.push(fieldErrors.invalid(containersAt.index(i).child('name'), name, p));
    if (name && names.has(name)) errs.push(fieldErrors.duplicate(containersAt.index(i).child('name'), name));
    names.add(name);
    if (!asStr(c.image)) errs.push(fieldErrors.required(containersAt.index(i).child('image')));
  });
  return errs;
}

function validateReplicaSet(obj: KObject): FieldError[] {
  const spec = specOf(obj);
  const at = root('spec');
  const errs = [
    ...validateMetadata(obj, true, 'subdomain'),
    ...nonNegative(spec, ['replicas', 'minReadySeconds'], at),
    ...nonNegative(
      statusOf(obj),
      ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
      root('status'),
    ),
  ];
  const selector = asObj(spec.selector);
  if (!selector) errs.push(fieldErrors.required(at.child('selector')));
  else {
    errs.push(...validateLabelSelector(selector, at.child('selector')));
    const empty =
      Object.keys(asObj(selector.matchLabels) ?? {}).length === 0 && asArr(selector.matchExpressions).length === 0;
    if (empty)
      errs.push(fieldErrors.invalid(at.child('selector'), selector, 'empty selector is invalid for deployment'));
  }
  errs.push(...validateTemplate(spec.template, selector));
  return errs;
}

export const replicaSet: KindDefinition = {
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  resource: 'replicasets',
  singular: 'replicaset',
  namespaced: true,
  shortNames: ['rs'],
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: true,
  projectionSubresources: { scale: replicasScale() },
  schema,
  defaults(obj) {
    applySchemaDefaults(schema, obj);
    // Labels default to the template's when missing or empty; labels of another type are left for validation to
    // refuse (a patch writing `labels: "x"` must fail, not quietly get the template's).
    const meta = asObj(obj.metadata);
    const templateLabels = asObj(asObj(asObj(specOf(obj).template)?.metadata)?.labels);
    const labels = meta?.labels;
    const empty =
      labels === undefined || labels === null || (asObj(labels) !== undefined && Object.keys(labels).length === 0);
    if (meta && templateLabels && empty) meta.labels = { ...templateLabels };
    // status.replicas is the one status field kube-apiserver always serializes (no omitempty): a status write
    // leaving it out means 0.
    const status = asObj(obj.status);
    if (status && status.replicas === undefined) status.replicas = 0;
  },
  prepareForCreate(obj) {
    // A new ReplicaSet has seen no pods yet: `status: {replicas: 0}`, as kube-apiserver answers it.
    obj.status = { replicas: 0 };
  },
  validate: validateReplicaSet,
  validateUpdate: (obj, old) => immutable(root('spec').child('selector'), specOf(obj).selector, specOf(old).selector),
  validateStatusUpdate: (obj) =>
    nonNegative(
      statusOf(obj),
      ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
      root('status'),
    ),
  selectableFields: (obj) => ({ 'status.replicas': String(statusOf(obj).replicas ?? 0) }),
  tableColumns: [
    integerColumn('Desired', 'Replicas is the number of desired replicas.', (obj) =>
      intOf(pathOf(obj, 'spec', 'replicas')),
    ),
    integerColumn('Current', 'Replicas is the most recently observed number of replicas.', (obj) =>
      intOf(pathOf(obj, 'status', 'replicas')),
    ),
    integerColumn('Ready', 'The number of ready replicas for this replica set.', (obj) =>
      intOf(pathOf(obj, 'status', 'readyReplicas')),
    ),
    ageColumn,
    ...podTemplateWideColumns(
      (obj) => pathOf(obj, 'spec', 'template'),
      (obj) => pathOf(obj, 'spec', 'selector'),
      'Selector is a label query over pods that should match the replica count.',
    ),
  ],
};
