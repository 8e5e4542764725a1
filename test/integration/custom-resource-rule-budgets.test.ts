// What x-kubernetes-validations may cost and how updates are judged, over real HTTPS: a definition whose rule is
// over the estimated budget refused with upstream's hint (and accepted once maxLength bounds it), an object whose
// rules spend the runtime budget refused, optionalOldSelf on create, ratcheting of unchanged invalid values after
// the schema was tightened (a ratcheted rule failure answered as a Warning header), date-time and duration fields
// typed as times in rules, and generation moving with status when there is no status subresource.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, expectFailure } from '../helpers/api.js';
import { APIEXT_K8S, crd } from '../helpers/crds.js';

const GROUP = 'budgets.example.com';
const HINT =
  '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

const tagsSchema = (items: Record<string, unknown>) => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        tags: {
          type: 'array',
          maxItems: 100,
          items,
          'x-kubernetes-validations': [{ rule: 'self.all(t, t.matches("^[a-z]+$"))' }],
        },
      },
    },
  },
});

const nested = (i: number) => ({ rule: `self.all(x, self.all(y, self.all(z, x + y + z > ${-i})))` });

/** Widgets: a rule budget that a list of 50 numbers exhausts, an optionalOldSelf rule, and no status subresource. */
const widgetSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        xs: {
          type: 'array',
          maxItems: 50,
          items: { type: 'integer' },
          'x-kubernetes-validations': Array.from({ length: 12 }, (_, i) => nested(i)),
        },
        level: {
          type: 'integer',
          'x-kubernetes-validations': [
            { rule: 'oldSelf.hasValue() || self == 1', message: 'must start at level 1', optionalOldSelf: true },
          ],
        },
        color: { type: 'string' },
        name: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self.size() <= 100', message: 'name too long' }],
        },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

describe('custom object rule budgets, optionalOldSelf and ratcheting', function () {
  this.timeout(120_000);
  let gh: TestGatehouse;
  let ns: string;
  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'budgets');
  });
  after(async () => {
    await gh?.close();
  });

  async function define(plural: string, kind: string, schema: unknown) {
    const body = crd(plural, GROUP, { kind });
    (body.spec as any).versions[0].schema.openAPIV3Schema = schema;
    return gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, { body });
  }

  async function served(plural: string): Promise<string> {
    const base = `/apis/${GROUP}/v1alpha1/namespaces/${ns}/${plural}`;
    await eventually('served', async () => (await gh.request('GET', base)).status === 200);
    return base;
  }

  const object = (kind: string, name: string, spec: Record<string, unknown>) => ({
    apiVersion: `${GROUP}/v1alpha1`,
    kind,
    metadata: { name },
    spec,
  });

  it('refuses a definition whose rule is over the estimated budget, and accepts it once maxLength is set', async () => {
    const refused = await define('tags', 'Tag', tagsSchema({ type: 'string' }));
    const status = expectFailure(refused, 422, 'Invalid');
    expect(status.details.causes).to.deep.equal([
      {
        reason: 'FieldValueForbidden',
        message: `Forbidden: estimated rule cost exceeds budget by factor of 6.3x ${HINT}`,
        field:
          'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule',
      },
    ]);
    const accepted = await define('tags', 'Tag', tagsSchema({ type: 'string', maxLength: 63 }));
    expect(accepted.status, accepted.body).to.equal(201);
  });

  it('refuses a rule naming a field the schema lacks, with its position', async () => {
    const schema = { ...widgetSchema, 'x-kubernetes-validations': [{ rule: 'self.spec.colour == "red"' }] };
    const status = expectFailure(await define('typos', 'Typo', schema), 422, 'Invalid');
    expect(status.details.causes).to.have.length(1);
    expect(status.details.causes[0].field).to.equal(
      'spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule',
    );
    expect(status.details.causes[0].message).to.include(
      "compilation failed: ERROR: <input>:1:10: undefined field 'colour'",
    );
  });

  describe('objects', () => {
    let base: string;
    before(async () => {
      const res = await define('widgets', 'Widget', widgetSchema);
      expect(res.status, res.body).to.equal(201);
      base = await served('widgets');
    });

    it('refuses an object whose rules spend the runtime budget', async () => {
      const xs = Array.from({ length: 50 }, (_, i) => i + 1);
      const status = expectFailure(
        await gh.request('POST', base, { body: object('Widget', 'costly', { xs }) }),
        422,
        'Invalid',
      );
      expect(status.details.causes).to.deep.equal([
        {
          reason: 'FieldValueInvalid',
          message:
            'Invalid value: "array": validation failed due to running out of cost budget, no further validation ' +
            'rules will be run',
          field: 'spec.xs',
        },
      ]);
      const cheap = await gh.request('POST', base, { body: object('Widget', 'cheap', { xs: [1, 2, 3] }) });
      expect(cheap.status, cheap.body).to.equal(201);
    });

    it('evaluates an optionalOldSelf rule on create, with no old value', async () => {
      const status = expectFailure(
        await gh.request('POST', base, { body: object('Widget', 'leveled', { level: 3 }) }),
        422,
        'Invalid',
      );
      expect(status.details.causes).to.deep.equal([
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "integer": must start at level 1',
          field: 'spec.level',
        },
      ]);
      const created = await gh.request('POST', base, { body: object('Widget', 'leveled', { level: 1 }) });
      expect(created.status, created.body).to.equal(201);
      const raised = await gh.request('PUT', `${base}/leveled`, { body: { ...created.json(), spec: { level: 3 } } });
      expect(raised.status, raised.body).to.equal(200);
    });

    it('types date-time and duration fields as times in rules', async () => {
      const schema = {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              start: { type: 'string', format: 'date-time' },
              end: { type: 'string', format: 'date-time' },
              grace: { type: 'string', format: 'duration' },
            },
            'x-kubernetes-validations': [
              { rule: 'self.start + self.grace < self.end', message: 'the window must outlast its grace period' },
            ],
          },
        },
      };
      const res = await define('windows', 'Window', schema);
      expect(res.status, res.body).to.equal(201);
      const windows = await served('windows');
      // 10:30+01:00 is 09:30Z: before the start, though its text sorts after it.
      const early = { start: '2026-01-01T10:00:00Z', end: '2026-01-01T10:30:00+01:00', grace: '5m' };
      const status = expectFailure(
        await gh.request('POST', windows, { body: object('Window', 'early', early) }),
        422,
        'Invalid',
      );
      expect(status.details.causes).to.deep.equal([
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "object": the window must outlast its grace period',
          field: 'spec',
        },
      ]);
      const late = { ...early, end: '2026-01-01T11:10:00+01:00' };
      const created = await gh.request('POST', windows, { body: object('Window', 'late', late) });
      expect(created.status, created.body).to.equal(201);
      expect(created.json().spec).to.deep.equal(late);
      const tooLong = await gh.request('POST', windows, {
        body: object('Window', 'long', { ...late, grace: '1h' }),
      });
      expectFailure(tooLong, 422, 'Invalid');
    });

    it('moves generation with a change of status alone, there being no status subresource', async () => {
      const created = await gh.request('POST', base, { body: object('Widget', 'phased', { color: 'red' }) });
      expect(created.status, created.body).to.equal(201);
      expect(created.json().metadata.generation).to.equal(1);
      const withStatus = await gh.request('PUT', `${base}/phased`, {
        body: { ...created.json(), status: { phase: 'Ready' } },
      });
      expect(withStatus.status, withStatus.body).to.equal(200);
      expect(withStatus.json().status).to.deep.equal({ phase: 'Ready' });
      expect(withStatus.json().metadata.generation).to.equal(2);
      const labelled = await gh.request('PUT', `${base}/phased`, {
        body: { ...withStatus.json(), metadata: { ...withStatus.json().metadata, labels: { a: 'b' } } },
      });
      expect(labelled.json().metadata.generation).to.equal(2);
    });

    it('ratchets invalid values left unchanged once the schema is tightened, and refuses changed ones', async () => {
      const stored = await gh.request('POST', base, {
        body: object('Widget', 'legacy', { color: 'green', name: 'short', level: 1 }),
      });
      expect(stored.status, stored.body).to.equal(201);

      // Tighten the schema: an enum on color, and a stricter rule on name.
      const path = `${APIEXT_K8S}/customresourcedefinitions/widgets.${GROUP}`;
      const definition = (await gh.request('GET', path)).json();
      const spec = definition.spec.versions[0].schema.openAPIV3Schema.properties.spec;
      spec.properties.color.enum = ['red', 'blue'];
      spec.properties.name['x-kubernetes-validations'] = [{ rule: 'self.size() <= 3', message: 'name too long' }];
      const updated = await gh.request('PUT', path, { body: definition });
      expect(updated.status, updated.body).to.equal(200);
      await eventually('the tightened schema served', async () => {
        const probe = await gh.request('POST', `${base}?dryRun=All`, {
          body: object('Widget', 'probe', { color: 'green' }),
        });
        return probe.status === 422;
      });

      const current = (await gh.request('GET', `${base}/legacy`)).json();
      const unchanged = await gh.request('PUT', `${base}/legacy`, {
        body: { ...current, spec: { ...current.spec, level: 2 } },
      });
      expect(unchanged.status, unchanged.body).to.equal(200);
      // The rule still fails on the name left as it was: said, not refused. The enum is ratcheted silently, as upstream.
      expect(unchanged.headers.warning).to.equal('299 - "spec.name: Invalid value: \\"string\\": name too long"');

      const changed = await gh.request('PUT', `${base}/legacy`, {
        body: { ...unchanged.json(), spec: { ...unchanged.json().spec, color: 'yellow', name: 'longer' } },
      });
      const status = expectFailure(changed, 422, 'Invalid');
      expect(status.details.causes.map((c: { field: string }) => c.field)).to.have.members(['spec.color', 'spec.name']);
    });
  });
});
