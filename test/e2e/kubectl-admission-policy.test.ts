// ValidatingAdmissionPolicy with the stock kubectl: the policy and binding are applied as upstream manifests
// (admissionregistration.k8s.io/v1), then `kubectl create configmap` fails with the policy's message while the binding
// denies, and succeeds with kubectl printing the `Warning:` once the same binding warns instead.
import { expect } from 'chai';
import { eventually, uniqueName } from '../helpers/api.js';
import { gatehouseWithKubectl, yamlManifest } from '../helpers/kubectl-suite.js';
import { parseColumns } from '../helpers/kubectl.js';

describe('kubectl and ValidatingAdmissionPolicy', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();

  it('a policy requiring an owner label refuses kubectl create configmap, then warns', async () => {
    const ns = uniqueName('kvap');
    await env.kubectl.ok(['create', 'namespace', ns]);
    const name = uniqueName('require-owner');
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] },
          ],
        },
        validations: [
          {
            expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
            message: 'every ConfigMap needs an owner label',
            reason: 'Forbidden',
          },
        ],
      },
    };
    const binding = (actions: string[]) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: `${name}-binding` },
      spec: {
        policyName: name,
        validationActions: actions,
        matchResources: { namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } } },
      },
    });
    const file = await env.kubectl.manifest('deny.yaml', yamlManifest(policy, binding(['Deny'])));
    await env.kubectl.ok(['apply', '-f', file]);
    const rows = parseColumns(await env.kubectl.ok(['get', 'validatingadmissionpolicies', name]));
    expect(rows[0]).to.include({ NAME: name, VALIDATIONS: '1', PARAMKIND: '<unset>' });

    const refused = await eventually('the policy refuses', async () => {
      const r = await env.kubectl.run(['create', 'configmap', 'unowned', '-n', ns, '--from-literal=k=v']);
      return r.code !== 0 ? r : undefined;
    });
    expect(refused.stderr).to.include(
      `configmaps "unowned" is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}-binding' denied request: every ConfigMap needs an owner label`,
    );
    const owned = await env.kubectl.manifest(
      'owned.yaml',
      yamlManifest({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'owned', namespace: ns, labels: { owner: 'me' } },
      }),
    );
    expect(await env.kubectl.ok(['create', '-f', owned])).to.match(/configmap\/owned created/);

    const warn = await env.kubectl.manifest('warn.yaml', yamlManifest(binding(['Warn'])));
    await env.kubectl.ok(['apply', '-f', warn]);
    const warned = await eventually('the binding warns', async () => {
      const r = await env.kubectl.run(['create', 'configmap', uniqueName('warned'), '-n', ns]);
      return r.code === 0 ? r : undefined;
    });
    expect(warned.stderr).to.include(
      `Warning: Validation failed for ValidatingAdmissionPolicy '${name}' with binding '${name}-binding': every ConfigMap needs an owner label`,
    );
    expect(warned.stdout).to.match(/configmap\/warned-\S+ created/);
  });
});
