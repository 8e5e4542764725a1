// NetworkPolicy: which traffic the selected pods may receive and send. Gatehouse only stores and validates it.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import type { JSONSchema } from '../../schema.js';
import { kindSchema, labelSelectorSchema } from '../../common/object-meta.js';
import { arr, describe, enumStr, int32, intOrString, obj, str, stringList } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { applySchemaDefaults } from '../../common/defaulting.js';
import { asArr, asObj, asStr, root, specOf, validateLabelSelector } from '../../common/validation-helpers.js';
import { CIDR_DETAIL, cidrStrictlyContains, parseCidr } from '../../common/net.js';
import { ageColumn, column, formatLabelSelector } from '../../common/printers.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];
const IANA_SVC_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

const portSchema = obj(
  {
    protocol: enumStr(
      PROTOCOLS,
      'The protocol (TCP, UDP, or SCTP) which traffic must match. If not specified, this field defaults to TCP.',
      { default: 'TCP' },
    ),
    port: describe(
      intOrString,
      'The port on the given protocol: a numerical or named port on a pod. If not specified, this matches all port names and numbers.',
    ),
    endPort: int32(
      'Indicates that a range of ports from port to endPort, inclusive, should be allowed. Not allowed if port is unset or named; must be at least port.',
    ),
  },
  'NetworkPolicyPort describes a port to allow traffic on.',
);

const peerSchema = obj(
  {
    podSelector: describe(
      labelSelectorSchema,
      "A label selector for pods. Alone, it selects pods in the policy's namespace; with namespaceSelector, pods matching both in the selected namespaces. Present but empty selects all pods.",
    ),
    namespaceSelector: describe(
      labelSelectorSchema,
      'Selects namespaces using cluster-scoped labels. Present but empty selects all namespaces.',
    ),
    ipBlock: obj(
      {
        cidr: str('A string representing the IPBlock, e.g. "192.168.1.0/24" or "2001:db8::/64".'),
        except: stringList(
          'CIDRs that should not be included within the IPBlock; each must lie inside cidr.',
          'atomic',
        ),
      },
      'A particular CIDR range to allow. Exclusive with the other peer fields.',
      ['cidr'],
    ),
  },
  'NetworkPolicyPeer describes a peer to allow traffic to/from. Only certain combinations of fields are allowed.',
);

const ports = arr(portSchema, 'List of ports; items are ORed. Empty or missing matches all ports.', 'atomic');

const specSchema: JSONSchema = obj(
  {
    podSelector: describe(
      labelSelectorSchema,
      'Selects the pods to which this policy applies. An empty selector selects all pods in the namespace; several policies selecting the same pods add their rules.',
    ),
    ingress: arr(
      obj(
        {
          from: arr(
            peerSchema,
            'Sources which are able to access the selected pods; items are ORed. Empty or missing matches all sources.',
            'atomic',
          ),
          ports,
        },
        'Ingress rule: traffic must match both ports and from.',
      ),
      "Ingress rules. An empty list allows no ingress; traffic from the pod's own node is always allowed.",
      'atomic',
    ),
    egress: arr(
      obj(
        {
          to: arr(
            peerSchema,
            'Destinations for outgoing traffic; items are ORed. Empty or missing matches all destinations.',
            'atomic',
          ),
          ports,
        },
        'Egress rule: traffic must match both ports and to.',
      ),
      'Egress rules. An empty list denies all egress.',
      'atomic',
    ),
    policyTypes: arr(
      enumStr(POLICY_TYPES, 'Policy type.'),
      'Rule types the policy relates to: Ingress, Egress. When unset, Ingress is always included and Egress when egress rules exist; to define egress only or deny all egress, list Egress.',
      'atomic',
    ),
  },
  'NetworkPolicySpec provides the specification of a NetworkPolicy.',
  ['podSelector'],
);

const schema = kindSchema({
  group: 'networking.platform.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  description: 'NetworkPolicy describes what network traffic is allowed for a set of pods.',
  properties: {
    spec: describe(specSchema, 'Spec represents the specification of the desired behavior for this NetworkPolicy.'),
  },
});

function validatePort(raw: unknown, at: FieldPath): FieldError[] {
  const p = asObj(raw) ?? {};
  const errs: FieldError[] = [];
  const protocol = asStr(p.protocol);
  if (protocol !== undefined && !PROTOCOLS.includes(protocol))
    errs.push(fieldErrors.notSupported(at.child('protocol'), protocol, PROTOCOLS));
  const port = p.port;
  if (typeof port === 'number') {
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      errs.push(fieldErrors.invalid(at.child('port'), port, 'must be between 1 and 65535, inclusive'));
  } else if (typeof port === 'string') {
    if (port.length > 15 || !IANA_SVC_NAME.test(port) || !/[a-z]/.test(port) || port.includes('--')) {
      errs.push(
        fieldErrors.invalid(
          at.child('port'),
          port,
          "must be a valid IANA_SVC_NAME: at most 15 lowercase alphanumeric characters or '-', at least one letter, no leading, trailing or double '-'",
        ),
      );
    }
  }
  const endPort = p.endPort;
  if (typeof endPort === 'number') {
    if (port === undefined || port === null)
      errs.push(fieldErrors.required(at.child('port'), 'must specify port when endPort is specified'));
    else if (typeof port === 'string')
      errs.push(fieldErrors.forbidden(at.child('endPort'), 'may not be specified when `port` is non-numeric'));
    else if (typeof port === 'number' && endPort < port)
      errs.push(fieldErrors.invalid(at.child('endPort'), endPort, 'must be greater than or equal to `port`'));
  }
  return errs;
}

function validatePeer(raw: unknown, at: FieldPath): FieldError[] {
  const peer = asObj(raw) ?? {};
  const errs: FieldError[] = [];
  const present = ['podSelector', 'namespaceSelector', 'ipBlock'].filter(
    (f) => peer[f] !== undefined && peer[f] !== null,
  );
  if (present.length === 0) errs.push(fieldErrors.required(at, 'must specify a peer'));
  else if (present.includes('ipBlock') && present.length > 1)
    errs.push(fieldErrors.forbidden(at, 'may not specify both ipBlock and another peer'));
  errs.push(...validateLabelSelector(peer.podSelector, at.child('podSelector')));
  errs.push(...validateLabelSelector(peer.namespaceSelector, at.child('namespaceSelector')));
  const block = asObj(peer.ipBlock);
  if (block) {
    const cidrText = asStr(block.cidr) ?? '';
    const cidr = parseCidr(cidrText);
    if (!cidrText) errs.push(fieldErrors.required(at.child('ipBlock').child('cidr')));
    else if (!cidr) errs.push(fieldErrors.invalid(at.child('ipBlock').child('cidr'), cidrText, CIDR_DETAIL));
    asArr(block.except).forEach((e, i) => {
      const exAt = at.child('ipBlock').child('except').index(i);
      const ex = typeof e === 'string' ? parseCidr(e) : null;
      if (!ex) errs.push(fieldErrors.invalid(exAt, e, CIDR_DETAIL));
      else if (cidr && !cidrStrictlyContains(cidr, ex))
        errs.push(fieldErrors.invalid(exAt, e, 'must be a strict subset of `cidr`'));
    });
  }
  return errs;
}

function validateRules(rules: unknown, at: FieldPath, peersField: 'from' | 'to'): FieldError[] {
  return asArr(rules).flatMap((raw, i) => {
    const rule = asObj(raw) ?? {};
    const ruleAt = at.index(i);
    return [
      ...asArr(rule.ports).flatMap((p, j) => validatePort(p, ruleAt.child('ports').index(j))),
      ...asArr(rule[peersField]).flatMap((p, j) => validatePeer(p, ruleAt.child(peersField).index(j))),
    ];
  });
}

function validateNetworkPolicy(obj: KObject): FieldError[] {
  const spec = specOf(obj);
  const at = root('spec');
  const errs = [
    ...validateMetadata(obj, true, 'subdomain'),
    ...validateLabelSelector(spec.podSelector, at.child('podSelector')),
    ...validateRules(spec.ingress, at.child('ingress'), 'from'),
    ...validateRules(spec.egress, at.child('egress'), 'to'),
  ];
  const types = asArr(spec.policyTypes);
  types.forEach((t, i) => {
    if (typeof t === 'string' && !POLICY_TYPES.includes(t))
      errs.push(fieldErrors.notSupported(at.child('policyTypes').index(i), t, POLICY_TYPES));
  });
  if (types.length > 2)
    errs.push(fieldErrors.invalid(at.child('policyTypes'), types, 'may not specify more than two policyTypes'));
  return errs;
}

/** policyTypes defaults to Ingress, plus Egress when egress rules exist (an explicit list is kept). */
function defaultPolicyTypes(obj: KObject): void {
  const spec = asObj(obj.spec);
  if (!spec || asArr(spec.policyTypes).length > 0) return;
  spec.policyTypes = asArr(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
}

export const networkPolicy: KindDefinition = {
  group: 'networking.platform.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  resource: 'networkpolicies',
  singular: 'networkpolicy',
  namespaced: true,
  shortNames: ['netpol'],
  // The upstream group name, which every existing NetworkPolicy manifest and chart names.
  groupAliases: ['networking.k8s.io'],
  statusSubresource: false,
  tracksGeneration: true,
  schema,
  defaults(obj) {
    applySchemaDefaults(schema, obj);
    defaultPolicyTypes(obj);
  },
  validate: validateNetworkPolicy,
  tableColumns: [
    column(
      'Pod-Selector',
      'Selects the pods to which this NetworkPolicy applies; an empty selector selects every pod in the namespace.',
      (obj) => formatLabelSelector(specOf(obj).podSelector),
    ),
    ageColumn,
  ],
};
