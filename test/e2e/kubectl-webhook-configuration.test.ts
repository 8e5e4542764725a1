// Webhook configurations with the stock kubectl: the manifest a controller-runtime project generates
// (config/webhook/manifests.yaml, admissionregistration.k8s.io/v1, cert-manager's CA injection annotation) applies,
// re-applies without a write, lists with upstream's columns, shows in the api-extensions category, is explained
// field by field, and a broken one is refused with the fields named.
import { expect } from 'chai';
import { uniqueName } from '../helpers/api.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';
import { parseColumns } from '../helpers/kubectl.js';

const rules = (path: string) => `  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: ${path}
  failurePolicy: Fail
  rules:
  - apiGroups:
    - batch.tutorial.kubebuilder.io
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - cronjobs
  sideEffects: None`;

const manifest = (mutating: string, validating: string) => `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: ${mutating}
  annotations:
    cert-manager.io/inject-ca-from: system/serving-cert
webhooks:
- admissionReviewVersions:
  - v1
${rules('/mutate-batch-tutorial-kubebuilder-io-v1-cronjob')}
  name: mcronjob.kb.io
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${validating}
  annotations:
    cert-manager.io/inject-ca-from: system/serving-cert
webhooks:
- admissionReviewVersions:
  - v1
${rules('/validate-batch-tutorial-kubebuilder-io-v1-cronjob')}
  name: vcronjob.kb.io
- admissionReviewVersions:
  - v1
  - v1beta1
${rules('/validate-batch-tutorial-kubebuilder-io-v1-cronjob-delete')}
  name: vcronjob-delete.kb.io
`;

describe('kubectl and webhook configurations', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();

  it('applies a controller-runtime webhook manifest, lists it, re-applies it without a write', async () => {
    const mutating = uniqueName('mutating-webhook-configuration');
    const validating = uniqueName('validating-webhook-configuration');
    const file = await env.kubectl.manifest('webhooks.yaml', manifest(mutating, validating));
    const applied = await env.kubectl.ok(['apply', '-f', file]);
    expect(applied).to.include(`mutatingwebhookconfiguration.admissionregistration.k8s.io/${mutating} created`);
    expect(applied).to.include(`validatingwebhookconfiguration.admissionregistration.k8s.io/${validating} created`);

    const validatingRows = parseColumns(await env.kubectl.ok(['get', 'validatingwebhookconfigurations', validating]));
    expect(Object.keys(validatingRows[0])).to.deep.equal(['NAME', 'WEBHOOKS', 'AGE']);
    expect(validatingRows[0]).to.include({ NAME: validating, WEBHOOKS: '2' });
    const mutatingRows = parseColumns(await env.kubectl.ok(['get', 'mutatingwebhookconfigurations', mutating]));
    expect(mutatingRows[0]).to.include({ NAME: mutating, WEBHOOKS: '1' });

    const defaults = await env.kubectl.ok([
      'get',
      'mutatingwebhookconfiguration',
      mutating,
      '-o',
      'jsonpath={.webhooks[0].timeoutSeconds} {.webhooks[0].reinvocationPolicy} {.webhooks[0].clientConfig.service.port} {.webhooks[0].matchPolicy}',
    ]);
    expect(defaults).to.equal('10 Never 443 Equivalent');

    // kubectl resends each webhook's rules, an atomic list the server completed with `scope: "*"` (so it says
    // "configured", as against kube-apiserver); the defaults put back, the server finds nothing to write.
    const versionOf = (kind: string, name: string) =>
      env.kubectl.ok(['get', kind, name, '-o', 'jsonpath={.metadata.resourceVersion} {.metadata.generation}']);
    const before = await versionOf('validatingwebhookconfiguration', validating);
    await env.kubectl.ok(['apply', '-f', file]);
    expect(await versionOf('validatingwebhookconfiguration', validating)).to.equal(before);
    expect(before).to.match(/ 1$/);

    const byCategory = await env.kubectl.ok(['get', 'api-extensions', '-o', 'name']);
    expect(byCategory).to.include(`mutatingwebhookconfiguration.admissionregistration.platform.io/${mutating}`);
    expect(byCategory).to.include(`validatingwebhookconfiguration.admissionregistration.platform.io/${validating}`);

    const deleted = await env.kubectl.ok(['delete', '-f', file]);
    expect(deleted).to.include(`validatingwebhookconfiguration.admissionregistration.k8s.io "${validating}" deleted`);
  });

  it('explains the webhook fields down to the client config', async () => {
    const clientConfig = await env.kubectl.ok(['explain', 'validatingwebhookconfigurations.webhooks.clientConfig']);
    expect(clientConfig).to.match(/^KIND:\s+ValidatingWebhookConfiguration$/m);
    expect(clientConfig).to.match(/^FIELD:\s+clientConfig\s+<WebhookClientConfig>$/m);
    for (const field of [/^\s+caBundle\s+<string>$/m, /^\s+service\s+<ServiceReference>$/m, /^\s+url\s+<string>$/m])
      expect(clientConfig).to.match(field);
    const service = await env.kubectl.ok(['explain', 'mutatingwebhookconfigurations.webhooks.clientConfig.service']);
    expect(service).to.match(/^\s+port\s+<integer>$/m);
    expect(service).to.match(/^\s+name\s+<string> -required-$/m);
    const hook = await env.kubectl.ok(['explain', 'mutatingwebhookconfigurations.webhooks']);
    expect(hook).to.match(/^\s+reinvocationPolicy\s+<string>$/m);
    expect(hook).to.match(/^\s+sideEffects\s+<string> -required-$/m);
    expect(hook).to.match(/^\s+matchConditions\s+<\[\]MatchCondition>$/m);
  });

  it('refuses a webhook without sideEffects and with a plain-http url, naming the fields', async () => {
    const name = uniqueName('broken');
    const file = await env.kubectl.manifest(
      'broken.yaml',
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: ${name}
webhooks:
- name: broken.example.com
  admissionReviewVersions: [v1]
  clientConfig:
    url: http://hooks.example.com/validate
`,
    );
    const refused = await env.kubectl.run(['apply', '-f', file]);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr, refused.stderr).to.include(`The ValidatingWebhookConfiguration "${name}" is invalid`);
    expect(refused.stderr, refused.stderr).to.include(
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
    );
    expect(refused.stderr, refused.stderr).to.include(
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    );
  });
});
