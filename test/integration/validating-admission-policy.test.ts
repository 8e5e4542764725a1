// ValidatingAdmissionPolicy end to end over real HTTPS: policies and bindings written through the API take effect
// through the plugin's informers (no restart), and each validation action is read back where it lands: the Status
// of a refused write, the Warning header, the audit log.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, expectFailure, uniqueName } from '../helpers/api.js';
import {
  AR,
  AR_K8S,
  binding,
  cm,
  CONFIGMAP_AUDIT_POLICY,
  configMapRule,
  policy,
  policyClient,
} from '../helpers/admission-policy.js';

describe('ValidatingAdmissionPolicy', function () {
  let dir: string;
  let gh: TestGatehouse;

  before(async function () {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-vap-'));
    await writeFile(path.join(dir, 'audit.yaml'), CONFIGMAP_AUDIT_POLICY);
    gh = await startTestGatehouse([
      '--audit-policy-file',
      path.join(dir, 'audit.yaml'),
      '--audit-log-path',
      path.join(dir, 'audit.log'),
    ]);
  });
  after(async () => {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const { post, inForce } = policyClient(() => gh);

  it('refuses a policy whose expression does not compile, naming the field and the position', async () => {
    const res = await gh.request('POST', `${AR}/validatingadmissionpolicies`, {
      body: policy(uniqueName('bad'), { validations: [{ expression: 'object.metadata.name ==' }] }),
    });
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.details.causes[0].field).to.equal('spec.validations[0].expression');
    expect(status.message).to.match(/spec\.validations\[0\]\.expression: Invalid value: "object\.metadata\.name =="/);
    expect(status.message).to.match(/1:\d+/);
  });

  it('refuses a binding with both Deny and Warn, and one without actions', async () => {
    const both = binding(uniqueName('b'), 'p', 'default', { validationActions: ['Deny', 'Warn'] });
    const status = expectFailure(
      await gh.request('POST', `${AR}/validatingadmissionpolicybindings`, { body: both }),
      422,
      'Invalid',
    );
    expect(status.message).to.include('must not contain both Deny and Warn');
    const none = binding(uniqueName('b'), 'p', 'default', { validationActions: [] });
    const s2 = expectFailure(
      await gh.request('POST', `${AR}/validatingadmissionpolicybindings`, { body: none }),
      422,
      'Invalid',
    );
    expect(s2.details.causes[0].field).to.equal('spec.validationActions');
  });

  it('defaults failurePolicy, matchPolicy and the selectors, and warns of params without paramKind', async () => {
    const name = uniqueName('defaults');
    const created = (
      await post(`${AR}/validatingadmissionpolicies`, policy(name, { validations: [{ expression: 'params != null' }] }))
    ).json();
    expect(created.spec.failurePolicy).to.equal('Fail');
    expect(created.spec.matchConstraints).to.include({ matchPolicy: 'Equivalent' });
    expect(created.spec.matchConstraints.namespaceSelector).to.deep.equal({});
    expect(created.spec.matchConstraints.resourceRules[0].scope).to.equal('*');
    const status = await eventually('typeChecking', async () => {
      const res = await gh.request('GET', `${AR}/validatingadmissionpolicies/${name}`);
      const s = res.json().status;
      return s?.observedGeneration === 1 ? s : undefined;
    });
    expect(status.typeChecking.expressionWarnings[0].fieldRef).to.equal('spec.validations[0].expression');
    expect(status.typeChecking.expressionWarnings[0].warning).to.equal(
      "/v1, Kind=ConfigMap: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params != null\n | ^\n",
    );
  });

  it('type-checks each expression against the schema of the matched kind, and a new generation again', async () => {
    const name = uniqueName('typed');
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, { validations: [{ expression: 'object.spec.x == 1' }] }),
    );
    const statusAt = (generation: number) =>
      eventually(`typeChecking of generation ${generation}`, async () => {
        const s = (await gh.request('GET', `${AR}/validatingadmissionpolicies/${name}`)).json().status;
        return s?.observedGeneration === generation ? s : undefined;
      });
    const first = await statusAt(1);
    expect(first.typeChecking.expressionWarnings).to.have.length(1);
    expect(first.typeChecking.expressionWarnings[0].warning).to.match(
      /^\/v1, Kind=ConfigMap: .*undefined field 'spec'/,
    );
    const fixed = await gh.request('PATCH', `${AR}/validatingadmissionpolicies/${name}`, {
      body: { spec: { validations: [{ expression: "object.data.x == '1'" }] } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(fixed.status, fixed.body).to.equal(200);
    expect((await statusAt(2)).typeChecking).to.deep.equal({});
  });

  it('Deny: refuses with the message, reason and code of the validation; the alias group works alike', async () => {
    const ns = await createNamespace(gh, 'vap-deny');
    const name = uniqueName('owner');
    await post(`${AR_K8S}/validatingadmissionpolicies`, {
      ...policy(name, {
        validations: [
          {
            expression: "has(object.metadata.labels) && 'owner' in object.metadata.labels",
            message: 'needs an owner',
            reason: 'Forbidden',
          },
        ],
      }),
      apiVersion: 'admissionregistration.k8s.io/v1',
    });
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${name}-b`, name, ns));
    const res = await inForce(ns, cm('probe'), 403);
    const status = expectFailure(res, 403, 'Forbidden');
    expect(status.message).to.equal(
      `configmaps "probe" is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}-b' denied request: needs an owner`,
    );
    await post(`/api/v1/namespaces/${ns}/configmaps`, cm('fine', { owner: 'me' }));
    // Another namespace is outside the binding's selector.
    const other = await createNamespace(gh, 'vap-other');
    await post(`/api/v1/namespaces/${other}/configmaps`, cm('free'));
    // An update that drops the label is refused too.
    const patched = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/fine`, {
      body: { metadata: { labels: { owner: null } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expectFailure(patched, 403, 'Forbidden');
    // Server-side apply goes through the same admission, creating or updating.
    const applied = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/applied?fieldManager=vap-test`, {
      body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\n`,
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expect(expectFailure(applied, 403, 'Forbidden').message).to.include('needs an owner');
  });

  it('a validation without reason or message answers 422 Invalid with the failed expression', async () => {
    const ns = await createNamespace(gh, 'vap-invalid');
    const name = uniqueName('nox');
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, { validations: [{ expression: "!('x' in object.data)" }] }),
    );
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${name}-b`, name, ns));
    const res = await inForce(ns, cm('probe', {}, { x: '1' }), 422);
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.message).to.include(`denied request: failed expression: !('x' in object.data)`);
  });

  it('Warn and Audit: the write succeeds with a Warning header and the audit annotation', async () => {
    const ns = await createNamespace(gh, 'vap-warn');
    const name = uniqueName('warn');
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, {
        validations: [
          {
            expression: "'owner' in object.metadata.?labels.orValue({})",
            messageExpression: "'missing owner on ' + object.metadata.name",
          },
        ],
        auditAnnotations: [{ key: 'seen', valueExpression: "'name=' + object.metadata.name" }],
      }),
    );
    await post(
      `${AR}/validatingadmissionpolicybindings`,
      binding(`${name}-b`, name, ns, { validationActions: ['Warn', 'Audit'] }),
    );
    const res = await eventually('warning', async () => {
      const r = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: cm('w1') });
      return r.status === 201 && r.headers.warning ? r : undefined;
    });
    expect(String(res.headers.warning)).to.include(
      `Validation failed for ValidatingAdmissionPolicy '${name}' with binding '${name}-b': missing owner on w1`,
    );
    // A Deny binding beside the Warn one: the refusal still carries the warning, as upstream's recorder sends it.
    const strict = uniqueName('strict');
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(strict, { validations: [{ expression: "!object.metadata.name.startsWith('x-')", reason: 'Forbidden' }] }),
    );
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${strict}-b`, strict, ns));
    const both = await inForce(ns, cm('x-1'), 403);
    expect(String(both.headers.warning)).to.include(`ValidatingAdmissionPolicy '${name}' with binding '${name}-b'`);
    const created = await post(`/api/v1/namespaces/${ns}/configmaps`, cm('w2'));
    const auditId = String(created.headers['audit-id']);
    const events = await eventually('audit event', async () => {
      const text = await readFile(path.join(dir, 'audit.log'), 'utf8').catch(() => '');
      const found = text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .filter((e) => e.auditID === auditId && e.stage === 'ResponseComplete');
      return found.length > 0 ? found : undefined;
    });
    const annotations = events[0].annotations;
    expect(annotations[`${name}/seen`]).to.equal('name=w2');
    expect(JSON.parse(annotations['validation.policy.admission.platform.io/validation_failure'])).to.deep.equal([
      {
        message: 'missing owner on w2',
        policy: name,
        binding: `${name}-b`,
        expressionIndex: 0,
        validationActions: ['Warn', 'Audit'],
      },
    ]);
  });

  it('params by name and by selector; a missing param is refused or allowed by parameterNotFoundAction', async () => {
    const ns = await createNamespace(gh, 'vap-params');
    const name = uniqueName('params');
    await post(`/api/v1/namespaces/${ns}/configmaps`, cm('limits', { role: 'limit' }, { max: '2' }));
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }],
        },
        validations: [{ expression: 'size(object.data) <= int(params.data.max)', message: 'too many keys' }],
      }),
    );
    const secret = (n: string, keys: number) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: n },
      stringData: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'v'])),
    });
    await post(
      `${AR}/validatingadmissionpolicybindings`,
      binding(`${name}-byname`, name, ns, {
        paramRef: { name: 'limits', namespace: ns, parameterNotFoundAction: 'Deny' },
      }),
    );
    const refused = await eventually('params by name', async () => {
      const r = await gh.request('POST', `/api/v1/namespaces/${ns}/secrets?dryRun=All`, { body: secret('s', 3) });
      return r.status === 422 ? r : undefined;
    });
    expect(refused.json().message).to.include('too many keys');
    await post(`/api/v1/namespaces/${ns}/secrets`, secret('ok', 2));
    // Selector: the params found by label decide; none found with Deny refuses with upstream's message.
    await gh.request('DELETE', `${AR}/validatingadmissionpolicybindings/${name}-byname`);
    await post(
      `${AR}/validatingadmissionpolicybindings`,
      binding(`${name}-bysel`, name, ns, {
        paramRef: { selector: { matchLabels: { role: 'absent' } }, parameterNotFoundAction: 'Deny' },
      }),
    );
    const none = await eventually('no params', async () => {
      const r = await gh.request('POST', `/api/v1/namespaces/${ns}/secrets?dryRun=All`, { body: secret('s', 1) });
      return r.status === 422 && r.body.includes('no params found') ? r : undefined;
    });
    expect(none.json().message).to.include('no params found for policy binding with `Deny` parameterNotFoundAction');
    await gh.request('DELETE', `${AR}/validatingadmissionpolicybindings/${name}-bysel`);
    await post(
      `${AR}/validatingadmissionpolicybindings`,
      binding(`${name}-allow`, name, ns, {
        paramRef: { selector: { matchLabels: { role: 'absent' } }, parameterNotFoundAction: 'Allow' },
      }),
    );
    await inForce(ns, cm('unrelated'), 201);
    await eventually('allowed without params', async () => {
      const r = await gh.request('POST', `/api/v1/namespaces/${ns}/secrets?dryRun=All`, { body: secret('s', 5) });
      return r.status === 201;
    });
  });

  it('matchConditions, DELETE with oldObject, and failurePolicy on a runtime error', async () => {
    const ns = await createNamespace(gh, 'vap-delete');
    const name = uniqueName('keep');
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, {
        matchConstraints: configMapRule(['DELETE']),
        matchConditions: [{ name: 'only-kept', expression: "oldObject.metadata.?labels.keep.orValue('') == 'yes'" }],
        validations: [
          { expression: 'object == null && request.operation == "DELETE"', message: 'unreachable' },
          { expression: 'false', message: 'kept objects stay' },
        ],
      }),
    );
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${name}-b`, name, ns));
    await post(`/api/v1/namespaces/${ns}/configmaps`, cm('kept', { keep: 'yes' }));
    await post(`/api/v1/namespaces/${ns}/configmaps`, cm('gone'));
    const refused = await eventually('delete refused', async () => {
      const r = await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/kept?dryRun=All`);
      return r.status === 422 ? r : undefined;
    });
    expect(refused.json().message).to.include('kept objects stay').and.not.include('unreachable');
    expect((await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/gone`)).status).to.equal(200);

    const failing = uniqueName('fails');
    const spec = (failurePolicy: string) =>
      policy(failing, { failurePolicy, validations: [{ expression: "object.data['missing'] == 'x'" }] });
    await post(`${AR}/validatingadmissionpolicies`, spec('Fail'));
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${failing}-b`, failing, ns));
    const err = await inForce(ns, cm('e', {}, { a: 'b' }), 422);
    expect(err.json().message).to.include(`expression 'object.data['missing'] == 'x'' resulted in error`);
    // A patch, not a read-then-PUT: the status controller writes the policy's status meanwhile.
    const ignore = await gh.request('PATCH', `${AR}/validatingadmissionpolicies/${failing}`, {
      body: { spec: { failurePolicy: 'Ignore' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(ignore.status, ignore.body).to.equal(200);
    await inForce(ns, cm('e', {}, { a: 'b' }), 201);
  });
});
