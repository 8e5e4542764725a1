// ValidatingAdmissionPolicy without a server: the kinds' rules and defaults (the CEL compile included), how a write
// is matched (Equivalent through the `*.k8s.io` alias group), and the CEL environment of policy expressions.
import { expect } from 'chai';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';
import type { KObject } from '../../api/meta/types.js';
import { validatingAdmissionPolicy as vap } from '../../api/admissionregistration/v1/validating-admission-policy.js';
import { validatingAdmissionPolicyBinding as binding } from '../../api/admissionregistration/v1/validating-admission-policy-binding.js';
import { serverKindValidator } from '../../gateway/admission/policy/expression-check.js';
import { compilePolicy, type CompiledPolicy } from '../../gateway/admission/policy/compile-policy.js';
import { matchResourcesMatch, type MatchAttributes } from '../../gateway/admission/policy/matching.js';
import { evaluatePolicy } from '../../gateway/admission/policy/evaluate.js';
import type { Authorizer } from '../../policies/authorizer.js';
import { bootstrapClusterRoles } from '../../policies/rbac/bootstrap-policy.js';

const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
const policyOf = (spec: Record<string, unknown>): KObject => {
  const o: KObject = {
    apiVersion: 'admissionregistration.platform.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'p', generation: 1 },
    spec: { matchConstraints: { resourceRules: structuredClone(rules) }, ...spec },
  };
  vap.defaults?.(o);
  return o;
};
const bindingOf = (spec: Record<string, unknown>): KObject => {
  const o: KObject = { metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: ['Deny'], ...spec } };
  binding.defaults?.(o);
  return o;
};
const policyErrors = (spec: Record<string, unknown>) =>
  serverKindValidator(vap).validate(policyOf(spec)).map(fieldErrorMessage);
const bindingErrors = (spec: Record<string, unknown>) =>
  serverKindValidator(binding).validate(bindingOf(spec)).map(fieldErrorMessage);

describe('ValidatingAdmissionPolicy kinds', () => {
  it('defaults failurePolicy Fail, matchPolicy Equivalent, empty selectors and scope *', () => {
    const p = policyOf({ validations: [{ expression: 'true' }] });
    expect(p.spec).to.deep.include({ failurePolicy: 'Fail' });
    expect((p.spec as any).matchConstraints).to.deep.equal({
      resourceRules: [{ ...rules[0], scope: '*' }],
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
    });
    expect(policyErrors({ validations: [{ expression: 'true' }] })).to.deep.equal([]);
  });

  it('compiles every expression at write time, naming the field and the position', () => {
    const errs = policyErrors({
      validations: [{ expression: 'object.x ==' }, { expression: 'true', messageExpression: '1' }],
      variables: [{ name: 'v', expression: '1 +' }],
    });
    expect(errs).to.have.length(3);
    expect(errs[0]).to.match(/^spec\.variables\[0\]\.expression: Invalid value: "1 \+": .*1:/);
    expect(errs.some((e) => e.startsWith('spec.validations[0].expression: Invalid value: "object.x =="'))).to.equal(
      true,
    );
    expect(errs.some((e) => e.startsWith('spec.validations[1].messageExpression'))).to.equal(true);
  });

  it('checks the spec as upstream: validations or auditAnnotations, reasons, names, match rules', () => {
    expect(policyErrors({})).to.deep.equal([
      'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
    ]);
    const errs = policyErrors({
      failurePolicy: 'Sometimes',
      validations: [{ expression: 'true', reason: 'Teapot', message: 'a\nb' }],
      matchConditions: [
        { name: 'bad name!', expression: 'true' },
        { name: 'x', expression: 'true' },
        { name: 'x', expression: 'true' },
      ],
      variables: [{ name: '1x', expression: 'true' }],
      matchConstraints: {
        resourceRules: [{ operations: ['CREATE', '*'], apiGroups: [], apiVersions: ['v1'], resources: ['*', 'pods'] }],
      },
    });
    const fields = errs.map((e) => e.split(':')[0]);
    expect(fields).to.include.members([
      'spec.failurePolicy',
      'spec.validations[0].reason',
      'spec.validations[0].message',
      'spec.matchConditions[0].name',
      'spec.matchConditions[2].name',
      'spec.variables[0].name',
      'spec.matchConstraints.resourceRules[0].operations',
      'spec.matchConstraints.resourceRules[0].apiGroups',
      'spec.matchConstraints.resourceRules[0].resources',
    ]);
    expect(
      serverKindValidator(vap)
        .validate({ metadata: { name: 'p' }, spec: { validations: [{ expression: 'true' }] } })
        .map((e) => e.field),
    ).to.include('spec.matchConstraints');
  });

  it('binding: validationActions required, unique, supported, never Deny with Warn; paramRef name xor selector', () => {
    expect(bindingErrors({})).to.deep.equal([]);
    expect(bindingErrors({ validationActions: [] })).to.deep.equal([
      'spec.validationActions: Required value: at least one validation action is required',
    ]);
    expect(bindingErrors({ validationActions: ['Warn', 'Warn', 'Block'] }).map((e) => e.split(':')[0])).to.deep.equal([
      'spec.validationActions[1]',
      'spec.validationActions[2]',
    ]);
    expect(bindingErrors({ validationActions: ['Deny', 'Warn'] })[0]).to.include('must not contain both Deny and Warn');
    expect(bindingErrors({ paramRef: { parameterNotFoundAction: 'Allow' } })[0]).to.equal(
      'spec.paramRef: Required value: one of `name` or `selector` must be set',
    );
    expect(bindingErrors({ paramRef: { name: 'a', selector: {}, parameterNotFoundAction: 'Deny' } })[0]).to.match(
      /^spec\.paramRef\.name: Forbidden/,
    );
    // v1 has no default for it (v1alpha1 had Deny): a paramRef must say.
    expect(bindingErrors({ paramRef: { name: 'a' } })).to.deep.equal([
      'spec.paramRef.parameterNotFoundAction: Required value',
    ]);
    expect(bindingErrors({ policyName: '' })).to.deep.equal(['spec.policyName: Required value']);
  });
});

describe('ValidatingAdmissionPolicy default RBAC', () => {
  it('is named by no default role but cluster-admin, as upstream', () => {
    const naming = bootstrapClusterRoles()
      .filter((role) =>
        (role.rules ?? []).some((r) => r.apiGroups?.some((g) => g.startsWith('admissionregistration.'))),
      )
      .map((role) => role.metadata.name);
    expect(naming).to.deep.equal([]);
  });
});

describe('ValidatingAdmissionPolicy matching', () => {
  const write = (over: Partial<MatchAttributes> = {}): MatchAttributes => ({
    operation: 'CREATE',
    group: 'rbac.authorization.platform.io',
    groupAliases: ['rbac.authorization.k8s.io'],
    requestGroup: 'rbac.authorization.platform.io',
    version: 'v1',
    resource: 'roles',
    subresource: '',
    namespaced: true,
    name: 'r',
    ...over,
  });
  const rule = (extra: Record<string, unknown> = {}) => ({
    operations: ['CREATE'],
    apiGroups: ['rbac.authorization.k8s.io'],
    apiVersions: ['v1'],
    resources: ['roles'],
    ...extra,
  });
  const labels = { namespaceLabels: { env: 'prod' }, objectLabels: { app: 'a' } };

  it('Equivalent matches the alias group, Exact only the group the request was made at', () => {
    expect(matchResourcesMatch({ resourceRules: [rule()] }, write(), labels, false)).to.equal(true);
    const exact = (apiGroup: string, requestGroup: string) =>
      matchResourcesMatch(
        { resourceRules: [rule({ apiGroups: [apiGroup] })], matchPolicy: 'Exact' },
        write({ requestGroup }),
        labels,
        false,
      );
    expect(exact('rbac.authorization.k8s.io', 'rbac.authorization.platform.io')).to.equal(false);
    expect(exact('rbac.authorization.k8s.io', 'rbac.authorization.k8s.io')).to.equal(true);
    expect(exact('rbac.authorization.platform.io', 'rbac.authorization.k8s.io')).to.equal(false);
    expect(exact('rbac.authorization.platform.io', 'rbac.authorization.platform.io')).to.equal(true);
    expect(
      matchResourcesMatch(
        { resourceRules: [rule({ apiGroups: ['rbac.authorization.platform.io'] })] },
        write({ requestGroup: 'rbac.authorization.k8s.io' }),
        labels,
        false,
      ),
    ).to.equal(true);
  });

  it('subresources, wildcards, scope, names and exclusions', () => {
    const m = (r: Record<string, unknown>, w: Partial<MatchAttributes> = {}) =>
      matchResourcesMatch({ resourceRules: [rule(r)] }, write(w), labels, false);
    expect(m({}, { subresource: 'status' })).to.equal(false);
    expect(m({ resources: ['roles/status'] }, { subresource: 'status' })).to.equal(true);
    expect(m({ resources: ['*/*'] }, { subresource: 'status' })).to.equal(true);
    expect(m({ resources: ['*'] }, { resource: 'rolebindings' })).to.equal(true);
    expect(m({ operations: ['*'] }, { operation: 'DELETE' })).to.equal(true);
    expect(m({}, { operation: 'UPDATE' })).to.equal(false);
    expect(m({ scope: 'Cluster' })).to.equal(false);
    expect(m({ resourceNames: ['other'] })).to.equal(false);
    expect(
      matchResourcesMatch(
        { resourceRules: [rule()], excludeResourceRules: [rule({ resourceNames: ['r'] })] },
        write(),
        labels,
        false,
      ),
    ).to.equal(false);
  });

  it('namespace and object selectors; an empty binding narrowing matches everything', () => {
    const sel = (namespaceSelector: unknown, objectSelector: unknown = {}) =>
      matchResourcesMatch({ resourceRules: [rule()], namespaceSelector, objectSelector }, write(), labels, false);
    expect(sel({ matchLabels: { env: 'prod' } })).to.equal(true);
    expect(sel({ matchLabels: { env: 'dev' } })).to.equal(false);
    expect(sel({}, { matchExpressions: [{ key: 'app', operator: 'In', values: ['b'] }] })).to.equal(false);
    expect(matchResourcesMatch({}, write(), labels, true)).to.equal(true);
  });
});

describe('ValidatingAdmissionPolicy CEL environment', () => {
  const compiled = (spec: Record<string, unknown>): CompiledPolicy => {
    const { compiled: c, errors } = compilePolicy(policyOf(spec));
    expect(errors).to.deep.equal([]);
    return c!;
  };
  const activation = {
    object: { metadata: { name: 'n', labels: { a: '1' } }, data: { k: 'v' } },
    oldObject: null,
    request: { operation: 'CREATE', userInfo: { username: 'alice', groups: ['g'] }, namespace: 'ns' },
    params: { data: { max: '1' } },
    namespaceObject: { metadata: { name: 'ns' } },
  };
  const user = { name: 'alice', groups: ['g'] };

  it('reads object, oldObject, request, params, namespaceObject and variables (each evaluated once)', async () => {
    const policy = compiled({
      variables: [
        { name: 'size', expression: 'size(object.data)' },
        { name: 'broken', expression: 'object.nope.deeper' },
      ],
      validations: [
        { expression: 'variables.size <= int(params.data.max) && oldObject == null' },
        { expression: "request.userInfo.username == 'alice' && namespaceObject.metadata.name == request.namespace" },
        {
          expression: 'variables.size == 2',
          messageExpression: "'size is ' + string(variables.size)",
          reason: 'Forbidden',
        },
        { expression: 'variables.broken == 1' },
      ],
    });
    const outcome = await evaluatePolicy(policy, activation, user, undefined);
    expect(outcome.decisions.map((d) => d.evaluation)).to.deep.equal(['admit', 'admit', 'deny', 'error']);
    expect(outcome.decisions[2]).to.include({ message: 'size is 1', reason: 'Forbidden' });
    expect(outcome.decisions[3].message).to.match(/^expression 'variables.broken == 1' resulted in error: /);
    expect(outcome.decisions[3].action).to.equal('deny');
  });

  it('a false matchCondition skips the policy; an Ignore policy admits on errors', async () => {
    const skipped = await evaluatePolicy(
      compiled({
        matchConditions: [{ name: 'c', expression: "object.metadata.name == 'other'" }],
        validations: [{ expression: 'false' }],
      }),
      activation,
      user,
      undefined,
    );
    expect(skipped.skipped).to.equal(true);
    const failingThenFalse = await evaluatePolicy(
      compiled({
        matchConditions: [
          { name: 'broken', expression: 'object.nope == 1' },
          { name: 'other', expression: "object.metadata.name == 'other'" },
        ],
        validations: [{ expression: 'false' }],
      }),
      activation,
      user,
      undefined,
    );
    expect(failingThenFalse.skipped, 'a false condition wins over an error').to.equal(true);
    const failing = await evaluatePolicy(
      compiled({
        matchConditions: [{ name: 'broken', expression: 'object.nope == 1' }],
        validations: [{ expression: 'true' }],
      }),
      activation,
      user,
      undefined,
    );
    expect(failing.decisions.map((d) => [d.action, d.evaluation])).to.deep.equal([['deny', 'error']]);
    const ignored = await evaluatePolicy(
      compiled({ failurePolicy: 'Ignore', validations: [{ expression: 'object.missing == 1' }] }),
      activation,
      user,
      undefined,
    );
    expect(ignored.decisions[0]).to.include({ action: 'admit', evaluation: 'error' });
  });

  it('the authorizer asks as the request user; over the per-call budget is an error', async () => {
    const asked: string[] = [];
    const authorizer: Authorizer = {
      name: 'test',
      async authorize(attrs) {
        asked.push(`${attrs.user.name} ${attrs.verb} ${attrs.resource}`);
        return { decision: attrs.verb === 'get' ? 'Allow' : 'NoOpinion', reason: '' };
      },
    };
    const outcome = await evaluatePolicy(
      compiled({
        validations: [
          { expression: "authorizer.group('').resource('secrets').check('get').allowed()" },
          { expression: "authorizer.group('').resource('secrets').check('delete').allowed()" },
        ],
      }),
      activation,
      user,
      authorizer,
    );
    expect(outcome.decisions.map((d) => d.evaluation)).to.deep.equal(['admit', 'deny']);
    expect(asked).to.include.members(['alice get secrets', 'alice delete secrets']);
    const costly = await evaluatePolicy(
      compiled({
        validations: [
          {
            expression:
              '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))',
          },
        ],
      }),
      activation,
      user,
      undefined,
    );
    expect(costly.decisions[0].evaluation).to.equal('error');
    expect(costly.decisions[0].message).to.include('cost');
    expect(costly.decisions[0].outOfBudget).to.equal(true);
    expect(outcome.decisions[1].outOfBudget).to.equal(undefined);
  });

  it('audit annotations: a string is recorded, null is left out', async () => {
    const outcome = await evaluatePolicy(
      compiled({
        auditAnnotations: [
          { key: 'name', valueExpression: 'object.metadata.name' },
          { key: 'none', valueExpression: 'null' },
        ],
      }),
      activation,
      user,
      undefined,
    );
    expect([...outcome.auditAnnotations]).to.deep.equal([['name', 'n']]);
    expect(outcome.decisions).to.deep.equal([]);
  });
});
