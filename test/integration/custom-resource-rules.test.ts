// x-kubernetes-validations rules on custom objects over real HTTPS: a rule at its node with its message and
// fieldPath, a messageExpression under a reason, a transition rule checked only on update, and rules inside a map
// and a list, each failure one cause of a 422.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, expectFailure } from '../helpers/api.js';
import { APIEXT_K8S, crd } from '../helpers/crds.js';

const GROUP = 'rules.example.com';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.min <= self.max', message: 'min must not exceed max', fieldPath: '.min' },
      ],
      properties: {
        min: { type: 'integer' },
        max: { type: 'integer' },
        name: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }],
        },
        tags: {
          type: 'array',
          items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.startsWith("t-")' }] },
          'x-kubernetes-validations': [
            {
              rule: 'self.size() < 3',
              messageExpression: "'too many tags: ' + string(self.size())",
              reason: 'FieldValueForbidden',
            },
          ],
        },
        limits: {
          type: 'object',
          additionalProperties: {
            type: 'integer',
            'x-kubernetes-validations': [{ rule: 'self >= 0', message: 'no negative limits' }],
          },
        },
      },
    },
  },
};

describe('custom object validation rules', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let base: string;
  before(async () => {
    gh = await startTestGatehouse();
    const ns = await createNamespace(gh, 'rules');
    const body = crd('checks', GROUP, { kind: 'Check' });
    (body.spec as any).versions[0].schema.openAPIV3Schema = schema;
    const res = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, { body });
    expect(res.status, res.body).to.equal(201);
    base = `/apis/${GROUP}/v1alpha1/namespaces/${ns}/checks`;
    await eventually('served', async () => (await gh.request('GET', base)).status === 200);
  });
  after(async () => {
    await gh?.close();
  });

  const check = (name: string, spec: Record<string, unknown>) => ({
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'Check',
    metadata: { name },
    spec,
  });

  it('refuses an object breaking rules, one cause per failure with its message, path and reason', async () => {
    const res = await gh.request('POST', base, {
      body: check('bad', { min: 5, max: 1, tags: ['t-a', 'b', 't-c'], limits: { cpu: -1 } }),
    });
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.details.causes).to.deep.include.members([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": min must not exceed max', field: 'spec.min' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: too many tags: 3', field: 'spec.tags' },
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "string": failed rule: self.startsWith("t-")',
        field: 'spec.tags[1]',
      },
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "integer": no negative limits',
        field: 'spec.limits[cpu]',
      },
    ]);
    expect(status.details.causes).to.have.length(4);
  });

  it('checks a transition rule on update only', async () => {
    const created = await gh.request('POST', base, { body: check('named', { min: 1, max: 2, name: 'first' }) });
    expect(created.status, created.body).to.equal(201);
    const renamed = await gh.request('PUT', `${base}/named`, {
      body: { ...created.json(), spec: { min: 1, max: 2, name: 'second' } },
    });
    const status = expectFailure(renamed, 422, 'Invalid');
    expect(status.details.causes).to.deep.equal([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "string": name is immutable', field: 'spec.name' },
    ]);
    const same = await gh.request('PUT', `${base}/named`, {
      body: { ...created.json(), spec: { min: 1, max: 3, name: 'first' } },
    });
    expect(same.status, same.body).to.equal(200);
  });
});
