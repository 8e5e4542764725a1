// ResourceQuota: aggregate limits per namespace. The quota controller fills status; writers set spec.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema } from '../../common/object-meta.js';
import { arr, enumStr, obj, quantityMap, str, stringList } from '../../common/schema-builders.js';
import { validateMetadata, validateQuantityMap } from '../../common/meta-validation.js';
import { asArr, asObj, asStr, root, specOf, statusOf } from '../../common/validation-helpers.js';
import { ageColumn, column, quotaSummary } from '../../common/printers.js';

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

const schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  description: 'ResourceQuota sets aggregate quota restrictions enforced per namespace.',
  properties: {
    spec: obj(
      {
        hard: quantityMap('The set of desired hard limits for each named resource.'),
        scopes: stringList(
          'A collection of filters that must match each object tracked by a quota. If not specified, the quota matches all objects.',
          'atomic',
        ),
        scopeSelector: obj(
          {
            matchExpressions: arr(
              obj(
                {
                  scopeName: str('The name of the scope that the selector applies to.'),
                  operator: enumStr(OPERATORS, "Represents a scope's relationship to a set of values."),
                  values: stringList(
                    'An array of string values. Non-empty for In and NotIn, empty for Exists and DoesNotExist.',
                    'atomic',
                  ),
                },
                'A scoped-resource selector requirement.',
                ['scopeName', 'operator'],
              ),
              'A list of scope selector requirements by scope of the resources; ANDed.',
              'atomic',
            ),
          },
          'A collection of filters like scopes that must match each object tracked by a quota, expressed with operators.',
          undefined,
          { 'x-kubernetes-map-type': 'atomic' },
        ),
      },
      'Spec defines the desired quota.',
    ),
    status: obj(
      {
        hard: quantityMap('The set of enforced hard limits for each named resource.'),
        used: quantityMap('The current observed total usage of the resource in the namespace.'),
      },
      'Status defines the actual enforced quota and its current usage.',
    ),
  },
});

function validateQuota(obj: KObject): FieldError[] {
  const spec = specOf(obj);
  const errs = [
    ...validateMetadata(obj, true, 'subdomain'),
    ...validateQuantityMap(spec.hard, root('spec').child('hard')),
    ...validateQuantityMap(statusOf(obj).hard, root('status').child('hard')),
    ...validateQuantityMap(statusOf(obj).used, root('status').child('used')),
  ];
  const exprAt = root('spec').child('scopeSelector').child('matchExpressions');
  asArr(asObj(spec.scopeSelector)?.matchExpressions).forEach((raw, i) => {
    const e = asObj(raw) ?? {};
    const at = exprAt.index(i);
    const op = asStr(e.operator);
    const values = asArr(e.values);
    if (!asStr(e.scopeName)) errs.push(fieldErrors.required(at.child('scopeName')));
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0)
        errs.push(
          fieldErrors.invalid(
            at.child('values'),
            values,
            "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
          ),
        );
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0)
        errs.push(
          fieldErrors.invalid(
            at.child('values'),
            values,
            "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
          ),
        );
    } else if (op === undefined) {
      errs.push(fieldErrors.required(at.child('operator')));
    } else {
      errs.push(fieldErrors.notSupported(at.child('operator'), op, OPERATORS));
    }
  });
  return errs;
}

export const resourceQuota: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  resource: 'resourcequotas',
  singular: 'resourcequota',
  namespaced: true,
  shortNames: ['quota'],
  statusSubresource: true,
  tracksGeneration: false,
  deleteReturnsObject: true,
  schema,
  validate: validateQuota,
  validateStatusUpdate: (obj) => [
    ...validateQuantityMap(statusOf(obj).hard, root('status').child('hard')),
    ...validateQuantityMap(statusOf(obj).used, root('status').child('used')),
  ],
  tableColumns: [
    ageColumn,
    column(
      'Request',
      'Request represents a minimum amount of cpu/memory that a container may consume.',
      (obj) => quotaSummary(obj).request,
    ),
    column(
      'Limit',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      (obj) => quotaSummary(obj).limit,
    ),
  ],
};
