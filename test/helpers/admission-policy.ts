// What the ValidatingAdmissionPolicy integration tests share: the two paths, a policy over ConfigMaps, a binding
// narrowed to one namespace, and, for one running Gatehouse, a POST that must succeed and a wait for a binding to be
// in force (the plugin's informers see it shortly after the write; nothing in the server can be awaited instead);
// with the webhook tests, the audit policy and the reading of a request's event from the log.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import type { TestGatehouse } from './gatehouse.js';
import { eventually } from './api.js';

export const AR = '/apis/admissionregistration.platform.io/v1';

/** An audit policy recording ConfigMap writes at Metadata level (annotations included) and nothing else. */
export const CONFIGMAP_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources:
  - group: ""
    resources: [configmaps]
- level: None
`;
export const AR_K8S = '/apis/admissionregistration.k8s.io/v1';

/** The ResponseComplete event of a request in a JSON audit log, once the log has it (the backend writes it after). */
export function completedAuditEvent(logPath: string, auditId: string): Promise<any> {
  return eventually('audit event', async () => {
    const text = await readFile(logPath, 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.auditID === auditId && e.stage === 'ResponseComplete');
  });
}

export const configMapRule = (operations = ['CREATE', 'UPDATE']) => ({
  resourceRules: [{ operations, apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
});

export function policy(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.platform.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: configMapRule(), ...spec },
  };
}

export function binding(name: string, policyName: string, ns: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'admissionregistration.platform.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: {
      policyName,
      validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } } },
      ...extra,
    },
  };
}

export const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

export function policyClient(gatehouse: () => TestGatehouse) {
  const post = async (url: string, body: unknown, expected = 201) => {
    const res = await gatehouse().request('POST', url, { body });
    expect(res.status, `POST ${url}: ${res.body}`).to.equal(expected);
    return res;
  };
  /** Waits until the informers have the binding: a dry-run create of `probe` in `ns` answers `status`. */
  const inForce = (ns: string, probe: unknown, status: number) =>
    eventually(`policy in force in ${ns}`, async () => {
      const res = await gatehouse().request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
        body: probe,
      });
      return res.status === status ? res : undefined;
    });
  /** Writes a policy over ConfigMaps (or what `spec` matches) and its binding `<name>-b`, narrowed to `ns`. */
  const enforce = async (name: string, spec: Record<string, unknown>, ns: string) => {
    await post(`${AR}/validatingadmissionpolicies`, policy(name, spec));
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${name}-b`, name, ns));
  };
  return { post, inForce, enforce };
}
