// APIService: which server answers one group-version. Without spec.service the server itself does (a "Local"
// APIService, kept by the autoregistration controller); with one, requests are meant to go to that Service over
// HTTPS. The rules, defaults, printer columns and wire form are kube-aggregator's apiregistration.k8s.io/v1.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { conditionStatus, kindSchema } from '../../common/object-meta.js';
import { bool, describe, int32, obj, str, time } from '../../common/schema-builders.js';
import { dns1035Label, dns1123Subdomain, pathSegmentName, validateObjectMeta } from '../../meta/validation.js';
import { asArr, asObj, asStr, root, specOf, statusOf } from '../../common/validation-helpers.js';
import { ageColumn, column } from '../../common/printers.js';

export const APIREGISTRATION_GROUP = 'apiregistration.platform.io';
export const APIREGISTRATION_GROUP_ALIASES = ['apiregistration.k8s.io'];
/** Upstream's label and key: tools that tell hand-made APIServices from the server's own look for it. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
export const DEFAULT_SERVICE_PORT = 443;

/** `<version>.<group>`: `v1.` for the legacy core group. */
export const apiServiceName = (group: string, version: string): string => `${version}.${group}`;

export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
}

export interface APIServiceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The service a remote APIService names, with its defaulted port; undefined for a Local one. */
export function serviceOf(apiService: KObject): ServiceReference | undefined {
  const service = asObj(specOf(apiService).service);
  if (!service) return undefined;
  const port = service.port;
  return {
    namespace: asStr(service.namespace) ?? '',
    name: asStr(service.name) ?? '',
    port: typeof port === 'number' ? port : DEFAULT_SERVICE_PORT,
  };
}

export function conditionOf(apiService: KObject, type: string): APIServiceCondition | undefined {
  const found = asArr(statusOf(apiService).conditions).find((c) => asObj(c)?.type === type);
  return found as APIServiceCondition | undefined;
}

const serviceSchema = obj(
  {
    namespace: str('Namespace is the namespace of the service'),
    name: str('Name is the name of the service'),
    port: int32(
      'If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).',
      { default: DEFAULT_SERVICE_PORT },
    ),
  },
  'ServiceReference holds a reference to Service.legacy.k8s.io',
);

const specSchema = obj(
  {
    service: describe(
      serviceSchema,
      'Service is a reference to the service for this API server.  It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server. The call will simply delegate to the normal handler chain to be fulfilled.',
    ),
    group: str('Group is the API group name this server hosts'),
    version: str('Version is the API version this server hosts.  For example, "v1"'),
    insecureSkipTLSVerify: bool(
      'InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.  You should use the CABundle instead.',
    ),
    caBundle: str(
      "CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used.",
      { format: 'byte' },
    ),
    groupPriorityMinimum: int32(
      'GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones. The primary sort is based on GroupPriorityMinimum, ordered highest number to lowest (20 before 10); the secondary on the name of the object (v1.bar before v1.foo).',
    ),
    versionPriority: int32(
      'VersionPriority controls the ordering of this API version inside of its group.  Must be greater than zero. The primary sort is based on VersionPriority, ordered highest to lowest (20 before 10); on a tie, the kube-like version ordering applies (v1 before v1beta1, GA and beta before alpha).',
    ),
  },
  'APIServiceSpec contains information for locating and communicating with a server. Only https is supported, though you are able to disable certificate verification.',
);

const conditionSchema = obj(
  {
    type: str('Type is the type of the condition.'),
    status: conditionStatus('Status is the status of the condition. Can be True, False, Unknown.'),
    lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
    reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
    message: str('Human-readable message indicating details about last transition.'),
  },
  'APIServiceCondition describes the state of an APIService at a particular point',
  ['type', 'status'],
);

const schema = kindSchema({
  group: APIREGISTRATION_GROUP,
  version: 'v1',
  kind: 'APIService',
  description: 'APIService represents a server for a particular GroupVersion. Name must be "version.group".',
  properties: {
    spec: describe(specSchema, 'Spec contains information for locating and communicating with a server'),
    status: obj(
      {
        conditions: {
          type: 'array',
          description: 'Current service state of apiService.',
          items: conditionSchema,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          'x-kubernetes-patch-merge-key': 'type',
          'x-kubernetes-patch-strategy': 'merge',
        },
      },
      'Status contains derived information about an API server',
    ),
  },
});

const intOf = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** The decoded length of the base64 caBundle, which upstream's message gives instead of the bytes. */
const bundleBytes = (v: unknown): number => (typeof v === 'string' ? Buffer.from(v, 'base64').length : 0);

export function validateAPIService(apiService: KObject): FieldError[] {
  const spec = specOf(apiService);
  const group = asStr(spec.group) ?? '';
  const version = asStr(spec.version) ?? '';
  const requiredName = apiServiceName(group, version);
  const errs = validateObjectMeta(apiService.metadata, {
    namespaced: false,
    nameValidator: (name) => {
      const problems = pathSegmentName(name);
      if (problems.length > 0) return problems;
      return name === requiredName ? [] : [`must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`];
    },
  });
  const at = root('spec');
  // Only the legacy core group has no name.
  if (group === '' && version !== 'v1')
    errs.push(fieldErrors.required(at.child('group'), 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '')
    for (const p of dns1123Subdomain(group)) errs.push(fieldErrors.invalid(at.child('group'), group, p));
  for (const p of dns1035Label(version)) errs.push(fieldErrors.invalid(at.child('version'), version, p));
  const groupPriority = intOf(spec.groupPriorityMinimum);
  if (groupPriority <= 0 || groupPriority > 20000)
    errs.push(
      fieldErrors.invalid(at.child('groupPriorityMinimum'), groupPriority, 'must be positive and less than 20000'),
    );
  const versionPriority = intOf(spec.versionPriority);
  if (versionPriority <= 0 || versionPriority > 1000)
    errs.push(fieldErrors.invalid(at.child('versionPriority'), versionPriority, 'must be positive and less than 1000'));

  const skipVerify = spec.insecureSkipTLSVerify === true;
  const caBytes = bundleBytes(spec.caBundle);
  const service = asObj(spec.service);
  if (!service) {
    // A Local APIService is served by this server: there is no connection for a CA or a skip to apply to.
    if (caBytes > 0)
      errs.push(
        fieldErrors.invalid(at.child('caBundle'), `${caBytes} bytes`, 'local APIServices may not have a caBundle'),
      );
    if (skipVerify)
      errs.push(
        fieldErrors.invalid(
          at.child('insecureSkipTLSVerify'),
          skipVerify,
          'local APIServices may not have insecureSkipTLSVerify',
        ),
      );
    return errs;
  }
  const serviceAt = at.child('service');
  if (!asStr(service.namespace)) errs.push(fieldErrors.required(serviceAt.child('namespace')));
  if (!asStr(service.name)) errs.push(fieldErrors.required(serviceAt.child('name')));
  const port = typeof service.port === 'number' ? service.port : DEFAULT_SERVICE_PORT;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errs.push(
      fieldErrors.invalid(serviceAt.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'),
    );
  if (skipVerify && caBytes > 0)
    errs.push(
      fieldErrors.invalid(at.child('insecureSkipTLSVerify'), skipVerify, 'may not be true if caBundle is present'),
    );
  return errs;
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

function validateStatus(apiService: KObject): FieldError[] {
  const at = root('status').child('conditions');
  return asArr(statusOf(apiService).conditions).flatMap((raw, i) => {
    const status = asObj(raw)?.status;
    return typeof status === 'string' && CONDITION_STATUSES.includes(status)
      ? []
      : [fieldErrors.notSupported(at.index(i).child('status'), status, CONDITION_STATUSES)];
  });
}

/** The SERVICE cell: `Local`, or `<namespace>/<name>`. */
export function serviceCell(apiService: KObject): string {
  const service = asObj(specOf(apiService).service);
  return service ? `${asStr(service.namespace) ?? ''}/${asStr(service.name) ?? ''}` : 'Local';
}

/** The AVAILABLE cell: `True`, `False (<reason>)`, the bare status without a reason, `Unknown` without a condition. */
export function availableCell(apiService: KObject): string {
  const condition = conditionOf(apiService, 'Available');
  if (!condition) return 'Unknown';
  if (condition.status === 'True' || !condition.reason) return condition.status;
  return `${condition.status} (${condition.reason})`;
}

export const apiService: KindDefinition = {
  group: APIREGISTRATION_GROUP,
  version: 'v1',
  kind: 'APIService',
  resource: 'apiservices',
  singular: 'apiservice',
  namespaced: false,
  categories: ['api-extensions'],
  groupAliases: APIREGISTRATION_GROUP_ALIASES,
  statusSubresource: true,
  tracksGeneration: false,
  schema,
  defaults(obj) {
    const service = asObj(specOf(obj).service);
    if (service && (service.port === undefined || service.port === null)) service.port = DEFAULT_SERVICE_PORT;
  },
  validate: validateAPIService,
  validateStatusUpdate: (obj) => validateStatus(obj),
  tableColumns: [
    column('Service', 'The reference to the service that hosts this API endpoint.', serviceCell),
    column('Available', 'Whether this service is available.', availableCell),
    ageColumn,
  ],
};
