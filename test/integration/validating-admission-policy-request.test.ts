// What a ValidatingAdmissionPolicy reads of the request beyond its object, over real HTTPS with RBAC: request.options
// and request.uid, authorizer.requestResource checking the request's own resource as the requesting user, and
// matchPolicy Exact against Equivalent for a request made at the `*.k8s.io` alias of one of our groups.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, uniqueName } from '../helpers/api.js';
import { cm, policyClient } from '../helpers/admission-policy.js';
import { bindingBody, RBAC, RBAC_V1, roleBody } from '../helpers/rbac.js';

const ROLES_K8S = (ns: string) => `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
const ROLES_OURS = (ns: string) => `${RBAC_V1}/namespaces/${ns}/roles`;

describe('ValidatingAdmissionPolicy and the request', function () {
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse(['--authorization-mode=RBAC']);
  });
  after(async () => {
    await gh?.close();
  });

  const { post, enforce } = policyClient(() => gh);

  it('reads request.options and request.uid', async () => {
    const ns = await createNamespace(gh, 'vap-options');
    const name = uniqueName('options');
    await enforce(
      name,
      {
        validations: [
          {
            expression:
              "request.options.kind == 'CreateOptions' && request.options.apiVersion == 'meta.k8s.io/v1' && request.uid != ''",
            message: 'not CreateOptions',
          },
          {
            expression: "!has(request.options.fieldManager) || request.options.fieldManager != 'intruder'",
            messageExpression:
              "'manager ' + request.options.fieldManager + ' refused, dryRun ' + request.options.dryRun.join(',')",
          },
        ],
      },
      ns,
    );
    const create = (query: string) =>
      gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All${query}`, { body: cm('probe') });
    const refused = await eventually('policy in force', async () => {
      const r = await create('&fieldManager=intruder');
      return r.status === 422 ? r : undefined;
    });
    expect(refused.json().message).to.include('denied request: manager intruder refused, dryRun All');
    expect((await create('&fieldManager=friend')).status).to.equal(201);
    expect((await create('')).status).to.equal(201);
  });

  it('checks authorizer.requestResource as the user, on the resource, namespace and name of the request', async () => {
    const ns = await createNamespace(gh, 'vap-request-resource');
    await post(
      `${RBAC_V1}/namespaces/${ns}/roles`,
      roleBody('writer', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }]),
    );
    await post(
      `${RBAC_V1}/namespaces/${ns}/roles`,
      roleBody('approver', [
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['probe'], verbs: ['approve'] },
      ]),
    );
    await post(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('writer', 'Role', 'writer', ['dave', 'carol']));
    await post(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('approver', 'Role', 'approver', ['carol']));
    const name = uniqueName('approve');
    await enforce(
      name,
      {
        validations: [
          {
            expression: "authorizer.requestResource.check('approve').allowed()",
            messageExpression: "request.userInfo.username + ' may not approve ' + request.name",
            reason: 'Forbidden',
          },
        ],
      },
      ns,
    );
    const as = (user: string, object: string) =>
      gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
        body: cm(object),
        headers: { 'Impersonate-User': user },
      });
    const refused = await eventually('policy in force', async () => {
      const r = await as('dave', 'probe');
      return r.status === 403 && r.body.includes('ValidatingAdmissionPolicy') ? r : undefined;
    });
    expect(refused.json().message).to.include('denied request: dave may not approve probe');
    expect((await as('carol', 'probe')).status).to.equal(201);
    // carol's approval names one object: the check carries the request's name.
    const other = await as('carol', 'other');
    expect(other.status).to.equal(403);
    expect(other.json().message).to.include('carol may not approve other');
  });

  it('matches under Exact only the group the request was made at, under Equivalent its aliases too', async () => {
    const ns = await createNamespace(gh, 'vap-exact');
    const rule = (apiGroup: string) => ({
      resourceRules: [{ operations: ['CREATE'], apiGroups: [apiGroup], apiVersions: ['v1'], resources: ['roles'] }],
    });
    const refuse = async (matchPolicy: 'Exact' | 'Equivalent', apiGroup: string) => {
      const name = uniqueName(matchPolicy.toLowerCase());
      await enforce(
        name,
        {
          matchConstraints: { ...rule(apiGroup), matchPolicy },
          validations: [
            {
              expression: 'false',
              messageExpression: `'${matchPolicy} ${apiGroup}: asked in ' + request.requestResource.group + ', served as ' + request.resource.group + ' ' + request.requestKind.kind`,
            },
          ],
        },
        ns,
      );
    };
    const create = (url: string, apiVersion: string) =>
      gh.request('POST', `${url}?dryRun=All`, {
        body: { apiVersion, kind: 'Role', metadata: { name: 'r' }, rules: [] },
      });
    const atAlias = () => create(ROLES_K8S(ns), 'rbac.authorization.k8s.io/v1');
    const atOurs = () => create(ROLES_OURS(ns), `${RBAC}/v1`);

    await refuse('Exact', 'rbac.authorization.k8s.io');
    const exact = await eventually('Exact policy in force', async () => {
      const r = await atAlias();
      return r.status === 422 ? r : undefined;
    });
    expect(exact.json().message).to.include(
      'Exact rbac.authorization.k8s.io: asked in rbac.authorization.k8s.io, served as rbac.authorization.platform.io Role',
    );
    expect((await atOurs()).status).to.equal(201);

    await refuse('Equivalent', 'rbac.authorization.k8s.io');
    const equivalent = await eventually('Equivalent policy in force', async () => {
      const r = await atOurs();
      return r.status === 422 ? r : undefined;
    });
    expect(equivalent.json().message).to.include(
      'Equivalent rbac.authorization.k8s.io: asked in rbac.authorization.platform.io, served as rbac.authorization.platform.io',
    );
  });
});
