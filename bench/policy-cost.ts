// What ValidatingAdmissionPolicies cost a write: creates of 1 KiB ConfigMaps against two memory-backend gateways, one
// with three policies over ConfigMaps bound with Deny and one with none, loaded at the same time in rounds
// (paired-cost.ts). The policies are the kind a cluster runs (required labels, size limits, naming rules), two or
// three validations each, and every created object passes them, so the figure is the cost of evaluating, not of
// refusing. The target: creates with the three policies at 70% or more of creates without.
import { CONFIGMAPS, measureCreateCost, setupClient } from './admission-setup.js';
import type { Target } from './load.js';
import { FULL_COST_SETTINGS, type CostSettings } from './metrics-cost.js';
import { formatPairedCost, type PairedCost } from './paired-cost.js';

export const POLICY_COST_TARGET = 0.7;
const LABEL: [string, string] = ['with 3 policies', 'without'];
const AR = '/apis/admissionregistration.k8s.io/v1';

/** Quick settings, for a check on a busy machine: four rounds of 2 s. */
export const QUICK_COST_SETTINGS: CostSettings = { rounds: 4, sliceMs: 2_000 };

const describe = (s: CostSettings) =>
  `memory backend, creates of 1 KiB ConfigMaps, 16 clients, 3 policies of 2-3 validations bound with Deny, ` +
  `${s.rounds} rounds of ${s.sliceMs / 1000} s, both gateways loaded at once`;

const POLICIES = [
  {
    name: 'require-owner-labels',
    validations: [
      {
        expression: "has(object.metadata.labels) && 'app' in object.metadata.labels",
        message: 'every ConfigMap needs an app label',
      },
      {
        expression: "'team' in object.metadata.labels && object.metadata.labels['team'].matches('^[a-z][a-z0-9-]*$')",
        messageExpression: "'team label must be a DNS label, got ' + object.metadata.labels[?'team'].orValue('none')",
      },
    ],
  },
  {
    name: 'limit-configmap-size',
    validations: [
      { expression: '!has(object.data) || size(object.data) <= 64', message: 'at most 64 keys' },
      {
        expression: '!has(object.data) || object.data.all(k, size(object.data[k]) <= 4096)',
        message: 'values of at most 4 KiB',
      },
    ],
  },
  {
    name: 'configmap-naming',
    variables: [{ name: 'name', expression: 'object.metadata.name' }],
    validations: [
      { expression: 'size(variables.name) <= 63', message: 'names of at most 63 characters' },
      { expression: "!variables.name.contains('..')", message: 'no double dots in names' },
      {
        expression: "!has(object.immutable) || !object.immutable || object.metadata.labels['app'] != ''",
        reason: 'Forbidden',
      },
    ],
  },
];

const policy = (p: (typeof POLICIES)[number]) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: p.name },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      resourceRules: [
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] },
      ],
    },
    variables: p.variables,
    validations: p.validations,
  },
});

const binding = (policyName: string) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: policyName },
  spec: { policyName, validationActions: ['Deny'] },
});

/** Creates the policies and bindings, then waits until a ConfigMap without labels is refused (they are in force). */
async function installPolicies(target: Target): Promise<void> {
  const client = setupClient(target);
  try {
    for (const p of POLICIES) {
      await client.post(`${AR}/validatingadmissionpolicies`, policy(p));
      await client.post(`${AR}/validatingadmissionpolicybindings`, binding(p.name));
    }
    const unlabelled = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"probe"}}`;
    const probe = { method: 'POST', path: `${CONFIGMAPS}?dryRun=All`, body: unlabelled };
    if (!(await client.until(probe, (status) => status === 422, 10_000)))
      throw new Error('the policies were not in force within 10 s');
  } finally {
    client.close();
  }
}

export function measurePolicyCost(say: (line: string) => void, settings = FULL_COST_SETTINGS): Promise<PairedCost> {
  return measureCreateCost({ configure: installPolicies, settings, say, label: LABEL });
}

export function formatPolicyCost(cost: PairedCost, settings = FULL_COST_SETTINGS): string[] {
  return formatPairedCost('ValidatingAdmissionPolicy cost', LABEL, cost, POLICY_COST_TARGET, describe(settings));
}
