// Type checking of ValidatingAdmissionPolicy expressions against the schemas of the kinds they match: what is found
// (a field the schema lacks, mismatched types, params without paramKind, an unknown variable), in upstream's words,
// and what must never be a warning (open maps, preserve-unknown-fields, comparisons cel-go allows).
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import type { JSONSchema } from '../../api/schema.js';
import { builtinKinds } from '../../api/register.js';
import { typeCheckPolicy } from '../../gateway/admission/policy/type-check.js';
import { celTypesOfSchema, CelCompileError, typeCheckCel } from '../../policies/cel/index.js';

const served = builtinKinds.map((def) => ({ def }));
const configMaps = { apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] };

function policyOf(spec: Record<string, unknown>, rules: unknown[] = [configMaps]): KObject {
  return { metadata: { name: 'p', generation: 1 }, spec: { matchConstraints: { resourceRules: rules }, ...spec } };
}
const validations = (...expressions: string[]) => ({ validations: expressions.map((expression) => ({ expression })) });
const warningsOf = (spec: Record<string, unknown>, rules?: unknown[]) => typeCheckPolicy(policyOf(spec, rules), served);

describe('ValidatingAdmissionPolicy type checking', () => {
  it('names the kind, the field the schema lacks and its position, as cel-go', () => {
    expect(warningsOf(validations("object.data.x == 'y'", 'object.spec.replicas > 1'))).to.deep.equal([
      {
        fieldRef: 'spec.validations[1].expression',
        warning:
          "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n | object.spec.replicas > 1\n | ......^\n",
      },
    ]);
  });

  it('finds mismatched types and fields inside comprehensions', () => {
    const [mismatch, inner] = warningsOf(
      validations(
        "object.metadata.generation == 'one'",
        "object.metadata.ownerReferences.all(r, r.kindd == 'Deployment')",
      ),
    );
    expect(mismatch.warning).to.include('no such overload: int == string');
    expect(inner.fieldRef).to.equal('spec.validations[1].expression');
    expect(inner.warning).to.include("undefined field 'kindd'");
  });

  it('accepts what evaluation accepts: open maps, labels, object comparisons, null checks, timestamps as strings', () => {
    expect(
      warningsOf({
        ...validations(
          "object.data.anything == 'x' && object.metadata.labels['a.b/c'] != ''",
          'object.metadata == oldObject.metadata && object.metadata != null && has(object.immutable)',
          "object.metadata.creationTimestamp != '' && object.metadata.managedFields.all(f, f.fieldsV1.whatever != 1)",
          "request.operation == 'CREATE' && namespaceObject.metadata.name != ''",
          "authorizer.group('').resource('configmaps').check('get').allowed()",
        ),
        matchConditions: [{ name: 'm', expression: "object.metadata.name != 'skip'" }],
        auditAnnotations: [{ key: 'k', valueExpression: 'object.metadata.name' }],
      }),
    ).to.deep.equal([]);
  });

  it('checks every kind the rules name exactly, each warning naming its kind; wildcards and subresources are skipped', () => {
    const both = { ...configMaps, resources: ['configmaps', 'secrets', 'secrets/status'] };
    const [warning] = warningsOf(validations("object.type == 'Opaque'"), [both]);
    expect(warning.warning).to.match(/^\/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'type'/);
    expect(warning.warning).not.to.include('Kind=Secret');
    const [twice] = warningsOf(validations('object.nope'), [both]);
    expect(twice.warning.split('\n\n').map((w) => w.slice(0, w.indexOf(':')))).to.deep.equal([
      '/v1, Kind=ConfigMap',
      '/v1, Kind=Secret',
    ]);
    expect(warningsOf(validations('object.nope'), [{ ...configMaps, apiGroups: ['*'] }])).to.deep.equal([]);
    expect(warningsOf(validations('object.nope'), [{ ...configMaps, apiVersions: ['*'] }])).to.deep.equal([]);
    expect(warningsOf(validations('object.nope'), [{ ...configMaps, resources: ['*', 'configmaps/x'] }])).to.deep.equal(
      [],
    );
    // An alias group resolves to our kind and is printed as the rule names it.
    const roles = { ...configMaps, apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] };
    expect(warningsOf(validations('object.nope'), [roles])[0].warning).to.match(
      /^rbac\.authorization\.k8s\.io\/v1, Kind=Role: /,
    );
  });

  it('types params from paramKind, leaves them dyn when it does not resolve, and undeclared without one', () => {
    const paramKind = { apiVersion: 'v1', kind: 'ConfigMap' };
    expect(warningsOf({ paramKind, ...validations("params.data.max == 'x'") })).to.deep.equal([]);
    expect(warningsOf({ paramKind, ...validations('params.spec.max == 1') })[0].warning).to.include(
      "undefined field 'spec'",
    );
    const unknownKind = { apiVersion: 'example.com/v1', kind: 'Limits' };
    expect(warningsOf({ paramKind: unknownKind, ...validations('params.spec.max == 1') })).to.deep.equal([]);
    expect(warningsOf(validations('params != null'))[0].warning).to.include(
      "ERROR: <input>:1:1: undeclared reference to 'params' (in container '')",
    );
  });

  it('types variables from their expressions, in order; an unknown one is an undefined field', () => {
    const warnings = warningsOf({
      variables: [
        { name: 'data', expression: 'object.data' },
        { name: 'broken', expression: 'object.nope' },
        { name: 'early', expression: 'variables.late' },
        { name: 'late', expression: '1' },
      ],
      ...validations("variables.data.x == 'y' && variables.broken.anything", "variables.data == 'x'", 'variables.zz'),
    });
    expect(warnings.map((w) => w.fieldRef)).to.deep.equal([
      'spec.variables[1].expression',
      'spec.variables[2].expression',
      'spec.validations[1].expression',
      'spec.validations[2].expression',
    ]);
    expect(warnings[1].warning).to.include("undefined field 'late'");
    expect(warnings[2].warning).to.include('no such overload: map<string, string> == string');
    expect(warnings[3].warning).to.include("undefined field 'zz'");
  });
});

describe('CEL types from a schema', () => {
  const node: JSONSchema = { type: 'object', properties: { name: { type: 'string' } } };
  node.properties!.children = { type: 'array', items: node };
  const schema: JSONSchema = {
    type: 'object',
    properties: {
      tree: node,
      open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
      port: { 'x-kubernetes-int-or-string': true },
      counts: { type: 'object', additionalProperties: { type: 'integer' } },
      free: { type: 'object' },
      ratio: { type: 'number' },
    },
  };
  const types = celTypesOfSchema(schema, 'Thing');
  const check = (expression: string) =>
    typeCheckCel(expression, { variables: { self: types.type }, objectTypes: types.objects });

  it('declares recursive schemas once, and leaves open what the schema leaves open', () => {
    expect(check('self.tree.children.all(c, c.children.all(d, d.name != ""))')).to.equal('bool');
    expect(check('self.open.anything.at.all')).to.equal('dyn');
    expect(check('self.port')).to.equal('dyn');
    expect(check('self.counts.x + 1')).to.equal('int');
    expect(check('self.free.x')).to.equal('dyn');
    expect(check('self.ratio')).to.equal('double');
    expect(() => check('self.tree.children[0].nam')).to.throw(CelCompileError, "undefined field 'nam'");
    expect(celTypesOfSchema(schema, 'Thing')).to.equal(types);
  });
});
