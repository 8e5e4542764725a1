// The configuration every server starts with, as upstream 1.32's bootstrap defaults
// (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap): the mandatory objects the server depends on (exempt and
// catch-all, kept as defined) and the suggested ones (kept while annotated for automatic update). Names of users and
// groups are upstream's, as the rest of the server names them; upstream's kube-system is our platform-system, and
// its coordination.k8s.io our coordination.platform.io, since requests are classified by the group they are stored in.
import type { KObject } from '../../meta/types.js';
import { AUTOUPDATE_SPEC_ANNOTATION, CATCH_ALL_NAME, EXEMPT_NAME, FLOWCONTROL_GROUP } from './flowcontrol-common.js';

const SYSTEM_NAMESPACE = 'platform-system';
const COORDINATION_GROUP = 'coordination.platform.io';
const SYSTEM_MASTERS = 'system:masters';
const ALL_AUTHENTICATED = 'system:authenticated';
const ALL_UNAUTHENTICATED = 'system:unauthenticated';
const NODES = 'system:nodes';
const ALL_SERVICE_ACCOUNTS = 'system:serviceaccounts';
const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
const KUBE_SCHEDULER = 'system:kube-scheduler';

type Subject = Record<string, unknown>;
type Rule = Record<string, unknown>;

const groups = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'Group', group: { name } }));
const users = (...names: string[]): Subject[] => names.map((name) => ({ kind: 'User', user: { name } }));
const systemServiceAccounts = (...names: string[]): Subject[] =>
  names.map((name) => ({ kind: 'ServiceAccount', serviceAccount: { namespace: SYSTEM_NAMESPACE, name } }));

function resourceRule(
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  namespaces: string[],
  clusterScope: boolean,
): Rule {
  return { verbs, apiGroups, resources, ...(clusterScope ? { clusterScope } : {}), namespaces };
}

const EVERY_RESOURCE = resourceRule(['*'], ['*'], ['*'], ['*'], true);
const EVERY_NON_RESOURCE: Rule = { verbs: ['*'], nonResourceURLs: ['*'] };
const LEADER_ELECTION_VERBS = ['get', 'create', 'update'];

const meta = (name: string) => ({ name, annotations: { [AUTOUPDATE_SPEC_ANNOTATION]: 'true' } });

function flowSchema(
  name: string,
  level: string,
  matchingPrecedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | undefined,
  rule: { subjects: Subject[]; resourceRules?: Rule[]; nonResourceRules?: Rule[] },
): KObject {
  return {
    apiVersion: `${FLOWCONTROL_GROUP}/v1`,
    kind: 'FlowSchema',
    metadata: meta(name),
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [rule],
    },
  };
}

/** A schema for everything its subjects ask. */
const everything = (
  name: string,
  level: string,
  precedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | undefined,
  subjects: Subject[],
) =>
  flowSchema(name, level, precedence, distinguisher, {
    subjects,
    resourceRules: [EVERY_RESOURCE],
    nonResourceRules: [EVERY_NON_RESOURCE],
  });

function level(name: string, spec: Record<string, unknown>): KObject {
  return { apiVersion: `${FLOWCONTROL_GROUP}/v1`, kind: 'PriorityLevelConfiguration', metadata: meta(name), spec };
}

function queued(name: string, shares: number, lendablePercent: number, queues: number, handSize: number): KObject {
  return level(name, {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: shares,
      limitResponse: { type: 'Queue', queuing: { queues, handSize, queueLengthLimit: 50 } },
      lendablePercent,
    },
  });
}

export const MANDATORY_PRIORITY_LEVELS: readonly KObject[] = [
  level(EXEMPT_NAME, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  level(CATCH_ALL_NAME, {
    type: 'Limited',
    limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' }, lendablePercent: 0 },
  }),
];

export const MANDATORY_FLOW_SCHEMAS: readonly KObject[] = [
  // Administrators always get through, so that an overloaded server can still be reconfigured.
  everything(EXEMPT_NAME, EXEMPT_NAME, 1, undefined, groups(SYSTEM_MASTERS)),
  everything(CATCH_ALL_NAME, CATCH_ALL_NAME, 10000, 'ByUser', groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED)),
];

export const SUGGESTED_PRIORITY_LEVELS: readonly KObject[] = [
  queued('system', 30, 33, 64, 6),
  queued('node-high', 40, 25, 64, 6),
  queued('leader-election', 10, 0, 16, 4),
  queued('workload-high', 40, 50, 128, 6),
  queued('workload-low', 100, 90, 128, 6),
  queued('global-default', 20, 50, 128, 6),
];

export const SUGGESTED_FLOW_SCHEMAS: readonly KObject[] = [
  everything('system-nodes', 'system', 500, 'ByUser', groups(NODES)),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', {
    subjects: groups(NODES),
    resourceRules: [
      resourceRule(['*'], [''], ['nodes', 'nodes/status'], ['*'], true),
      resourceRule(['*'], [COORDINATION_GROUP], ['leases'], ['*'], false),
    ],
  }),
  // Probes are never queued, so that a busy server is not restarted for being slow to answer them.
  flowSchema('probes', EXEMPT_NAME, 2, undefined, {
    subjects: groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED),
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
  }),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', {
    subjects: [...users(KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER), ...systemServiceAccounts('*')],
    resourceRules: [
      resourceRule(LEADER_ELECTION_VERBS, [''], ['endpoints', 'configmaps'], [SYSTEM_NAMESPACE], false),
      resourceRule(LEADER_ELECTION_VERBS, [COORDINATION_GROUP], ['leases'], ['*'], false),
    ],
  }),
  flowSchema('endpoint-controller', 'workload-high', 150, 'ByUser', {
    subjects: [
      ...users(KUBE_CONTROLLER_MANAGER),
      ...systemServiceAccounts('endpoint-controller', 'endpointslicemirroring-controller'),
    ],
    resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints'], ['*'], false)],
  }),
  flowSchema('workload-leader-election', 'leader-election', 200, 'ByUser', {
    subjects: systemServiceAccounts('*'),
    resourceRules: [
      resourceRule(LEADER_ELECTION_VERBS, [''], ['endpoints', 'configmaps'], ['*'], false),
      resourceRule(LEADER_ELECTION_VERBS, [COORDINATION_GROUP], ['leases'], ['*'], false),
    ],
  }),
  everything('kube-controller-manager', 'workload-high', 800, 'ByNamespace', users(KUBE_CONTROLLER_MANAGER)),
  everything('kube-scheduler', 'workload-high', 800, 'ByNamespace', users(KUBE_SCHEDULER)),
  everything('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', systemServiceAccounts('*')),
  everything('service-accounts', 'workload-low', 9000, 'ByUser', groups(ALL_SERVICE_ACCOUNTS)),
  everything('global-default', 'global-default', 9900, 'ByUser', groups(ALL_UNAUTHENTICATED, ALL_AUTHENTICATED)),
];
