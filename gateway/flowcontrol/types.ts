// The flowcontrol v1 objects as the dispatcher reads them: plain objects in upstream's JSON shape
// (flowcontrol.apiserver.k8s.io/v1 FlowSchema and PriorityLevelConfiguration), whether they come from the stored kinds
// or from the built-in mandatory configuration. Only the fields the dispatcher acts on are typed; every one is
// optional because a stored object may predate a default, and enumerations are strings (an unknown value matches
// nothing), and `levelSettings` applies v1's defaults in one place.

export interface FlowSchemaObject {
  metadata: { name: string; uid?: string };
  spec: {
    priorityLevelConfiguration: { name: string };
    matchingPrecedence?: number;
    distinguisherMethod?: { type: string };
    rules?: PolicyRulesWithSubjects[];
  };
}

export interface PolicyRulesWithSubjects {
  subjects?: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface Subject {
  kind: string;
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}

export interface ResourcePolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs?: string[];
  nonResourceURLs?: string[];
}

export interface PriorityLevelObject {
  metadata: { name: string; uid?: string };
  spec: {
    type: string;
    limited?: {
      nominalConcurrencyShares?: number;
      lendablePercent?: number;
      borrowingLimitPercent?: number;
      limitResponse?: {
        type?: string;
        queuing?: { queues?: number; handSize?: number; queueLengthLimit?: number };
      };
    };
    exempt?: { nominalConcurrencyShares?: number; lendablePercent?: number };
  };
}

/** How a level is limited once v1's defaults are applied. */
export interface LevelSettings {
  exempt: boolean;
  nominalConcurrencyShares: number;
  lendablePercent: number;
  /** undefined: no bound on borrowing. */
  borrowingLimitPercent: number | undefined;
  /** undefined: limitResponse Reject (no queues). */
  queuing: { queues: number; handSize: number; queueLengthLimit: number } | undefined;
}

// v1's defaults (SetDefaults_LimitedPriorityLevelConfiguration and friends): an unset nominalConcurrencyShares is 30
// for a Limited level and 0 for the Exempt one; an explicit 0 stays 0.
const DEFAULT_LIMITED_SHARES = 30;
const DEFAULT_QUEUING = { queues: 64, handSize: 8, queueLengthLimit: 50 };

export function levelSettings(level: PriorityLevelObject): LevelSettings {
  const { spec } = level;
  if (spec.type === 'Exempt')
    return {
      exempt: true,
      nominalConcurrencyShares: spec.exempt?.nominalConcurrencyShares ?? 0,
      lendablePercent: spec.exempt?.lendablePercent ?? 0,
      borrowingLimitPercent: 0,
      queuing: undefined,
    };
  const limited = spec.limited ?? {};
  const queuing = limited.limitResponse?.type === 'Queue' ? limited.limitResponse.queuing : undefined;
  return {
    exempt: false,
    nominalConcurrencyShares: limited.nominalConcurrencyShares ?? DEFAULT_LIMITED_SHARES,
    lendablePercent: limited.lendablePercent ?? 0,
    borrowingLimitPercent: limited.borrowingLimitPercent,
    queuing:
      limited.limitResponse?.type === 'Queue'
        ? {
            queues: queuing?.queues ?? DEFAULT_QUEUING.queues,
            handSize: queuing?.handSize ?? DEFAULT_QUEUING.handSize,
            queueLengthLimit: queuing?.queueLengthLimit ?? DEFAULT_QUEUING.queueLengthLimit,
          }
        : undefined,
  };
}
