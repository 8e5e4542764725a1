// CustomResourceDefinition over real HTTPS: written and read under both group names, refused with one 422 naming
// every field at fault (a schema that is not structural, a rule that does not compile, a change of scope), kept by
// the status controller (Established, names clashing with another definition or a built-in kind) and removed after
// its cleanup finalizer. Serving the objects they define is test/integration/custom-resources.test.ts.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { eventually, expectFailure, MERGE } from '../helpers/api.js';
import { APIEXT, APIEXT_K8S, crd } from '../helpers/crds.js';

const condition = (obj: any, type: string) => (obj.status?.conditions ?? []).find((c: any) => c.type === type);

describe('CustomResourceDefinition', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse();
  });
  after(async () => {
    await gh?.close();
  });

  const create = async (body: Record<string, unknown>, base = APIEXT_K8S) => {
    const res = await gh.request('POST', `${base}/customresourcedefinitions`, { body });
    expect(res.status, res.body).to.equal(201);
    return res.json();
  };
  const read = async (name: string, base = APIEXT) => {
    const res = await gh.request('GET', `${base}/customresourcedefinitions/${name}`);
    expect(res.status, res.body).to.equal(200);
    return res.json();
  };
  const established = (name: string) =>
    eventually(`${name} established`, async () => {
      const o = await read(name);
      return condition(o, 'Established')?.status === 'True' ? o : undefined;
    });

  it('is created under the k8s.io name, read and listed under both, and established by the controller', async () => {
    const created = await create(crd('foos', 'samplecontroller.example.com'));
    expect(created.apiVersion).to.equal('apiextensions.k8s.io/v1');
    expect(created.spec.names).to.deep.equal({ plural: 'foos', kind: 'Foo', singular: 'foo', listKind: 'FooList' });
    expect(created.spec.conversion).to.deep.equal({ strategy: 'None' });
    expect(created.status.storedVersions).to.deep.equal(['v1alpha1']);
    expect(created.metadata.finalizers).to.deep.equal(['customresourcecleanup.apiextensions.k8s.io']);

    const o = await established('foos.samplecontroller.example.com');
    expect(o.apiVersion).to.equal('apiextensions.platform.io/v1');
    expect(o.status.acceptedNames).to.deep.equal({ plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList' });
    expect(condition(o, 'NamesAccepted')).to.include({ status: 'True', reason: 'NoConflicts' });
    expect(condition(o, 'KubernetesAPIApprovalPolicyConformant')).to.equal(undefined);

    for (const base of [APIEXT, APIEXT_K8S]) {
      const list = (await gh.request('GET', `${base}/customresourcedefinitions`)).json();
      expect(list.kind).to.equal('CustomResourceDefinitionList');
      expect(list.items.map((i: any) => i.metadata.name)).to.include('foos.samplecontroller.example.com');
    }
    const table = await gh.request('GET', `${APIEXT}/customresourcedefinitions`, {
      headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
    });
    expect(table.json().columnDefinitions.map((c: any) => c.name)).to.deep.equal(['Name', 'Created At']);
  });

  it('answers one 422 naming every field at fault: a non-structural schema, a rule that does not compile, the name', async () => {
    const body = crd('bars', 'example.com') as any;
    body.metadata.name = 'bar.example.com';
    const spec = body.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    spec.properties.loose = { properties: { a: { type: 'string' } } };
    spec.properties.both = {
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: { type: 'string' },
    };
    spec['x-kubernetes-validations'] = [{ rule: 'self.replicas >' }];
    const res = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, { body });
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.details).to.include({
      name: 'bar.example.com',
      kind: 'CustomResourceDefinition',
      group: 'apiextensions.k8s.io',
    });
    const at = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';
    expect(status.details.causes.map((c: any) => c.field)).to.have.members([
      'metadata.name',
      `${at}.properties[both].additionalProperties`,
      `${at}.properties[loose].type`,
      `${at}.x-kubernetes-validations[0].rule`,
    ]);
    expect(status.message).to.include(
      `${at}.properties[loose].type: Required value: must not be empty for specified object fields`,
    );
    expect(status.message).to.match(
      /x-kubernetes-validations\[0\]\.rule: Invalid value: "self\.replicas >": compilation failed: .*1:\d+/s,
    );
  });

  it('reports schema keywords JSONSchemaProps lacks as unknown fields: refused when Strict, dropped with a warning', async () => {
    const body = crd('typos', 'example.com') as any;
    body.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.descripton = 'typo';
    const at = 'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.descripton';
    const strict = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions?fieldValidation=Strict`, { body });
    expect(expectFailure(strict, 400, 'BadRequest').message).to.include(`unknown field "${at}"`);
    const warned = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions?fieldValidation=Warn`, { body });
    expect(warned.status, warned.body).to.equal(201);
    expect(warned.headers.warning).to.include(`unknown field \\"${at}\\"`);
    expect(
      warned.json().spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas,
    ).to.not.have.property('descripton');
  });

  it('refuses a change of scope and keeps the stored definition', async () => {
    await create(crd('scopes', 'example.com'));
    const res = await gh.request('PATCH', `${APIEXT}/customresourcedefinitions/scopes.example.com`, {
      body: { spec: { scope: 'Cluster' } },
      headers: MERGE,
    });
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.details.causes).to.deep.equal([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "Cluster": field is immutable', field: 'spec.scope' },
    ]);
    expect((await read('scopes.example.com')).spec.scope).to.equal('Namespaced');
  });

  it('adds a new storage version to storedVersions on update', async () => {
    const name = 'versions.example.com';
    await create(crd('versions', 'example.com'));
    // The definition as the controller left it: a PUT of an older revision would be a conflict.
    const o = await established(name);
    o.spec.versions = [
      { ...o.spec.versions[0], storage: false },
      { ...o.spec.versions[0], name: 'v1' },
    ];
    const res = await gh.request('PUT', `${APIEXT_K8S}/customresourcedefinitions/${name}`, { body: o });
    expect(res.status, res.body).to.equal(200);
    expect(res.json().status.storedVersions).to.deep.equal(['v1alpha1', 'v1']);
    expect(res.json().metadata.generation).to.equal(2);
  });

  it('does not accept the names of a built-in kind in its group, nor names another definition holds', async () => {
    const annotations = { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111' };
    await create(crd('configmaps', 'rbac.authorization.k8s.io', { kind: 'RoleBinding', annotations }));
    const clash = await eventually('names decided', async () => {
      const o = await read('configmaps.rbac.authorization.k8s.io');
      return condition(o, 'NamesAccepted') ? o : undefined;
    });
    expect(condition(clash, 'NamesAccepted')).to.include({ status: 'False', reason: 'ListKindConflict' });
    expect(condition(clash, 'Established')).to.include({ status: 'False', reason: 'NotAccepted' });
    expect(condition(clash, 'KubernetesAPIApprovalPolicyConformant')).to.include({
      status: 'True',
      reason: 'ApprovedAnnotation',
    });

    await create(
      crd('gadgets', 'toys.example.com', {
        spec: { names: { plural: 'gadgets', kind: 'Gadget', shortNames: ['gd'] } },
      }),
    );
    await established('gadgets.toys.example.com');
    await create(
      crd('gizmos', 'toys.example.com', { spec: { names: { plural: 'gizmos', kind: 'Gizmo', shortNames: ['gd'] } } }),
    );
    const second = await eventually('gizmos decided', async () => {
      const o = await read('gizmos.toys.example.com');
      return condition(o, 'NamesAccepted') ? o : undefined;
    });
    expect(condition(second, 'NamesAccepted')).to.include({
      status: 'False',
      reason: 'ShortNamesConflict',
      message: '"gd" is already in use',
    });
    expect(second.status.acceptedNames.shortNames).to.equal(undefined);
  });

  it('refuses a protected group without the approval annotation', async () => {
    const res = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, {
      body: crd('widgets', 'widgets.platform.io'),
    });
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.details.causes[0].field).to.equal('metadata.annotations[api-approved.platform.io]');
  });

  it('is listed in discovery under both group names', async () => {
    const names = (await gh.request('GET', '/apis')).json().groups.map((g: any) => g.name);
    expect(names).to.include.members(['apiextensions.platform.io', 'apiextensions.k8s.io']);
    expect(names.indexOf('apiextensions.k8s.io')).to.be.greaterThan(names.indexOf('apiextensions.platform.io'));
    const aggregated = (
      await gh.request('GET', '/apis', {
        headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
      })
    ).json();
    const resourceIn = (group: string) =>
      aggregated.items.find((g: any) => g.metadata.name === group).versions[0].resources[0];
    expect(resourceIn('apiextensions.platform.io')).to.deep.include({
      resource: 'customresourcedefinitions',
      scope: 'Cluster',
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
    });
    // The alias leaves categories out, so that `kubectl get api-extensions` lists each definition once.
    expect(resourceIn('apiextensions.k8s.io')).to.deep.include({
      resource: 'customresourcedefinitions',
      responseKind: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
    });
  });

  it('is deleted once the controller has let its finalizer go', async () => {
    await create(crd('doomed', 'example.com', { kind: 'Doomed' }));
    const res = await gh.request('DELETE', `${APIEXT}/customresourcedefinitions/doomed.example.com`);
    expect(res.status, res.body).to.be.oneOf([200, 202]);
    await eventually(
      'gone',
      async () => (await gh.request('GET', `${APIEXT}/customresourcedefinitions/doomed.example.com`)).status === 404,
    );
  });
});

describe('CustomResourceDefinition without its status controller', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse(['--controllers=*,-serviceaccount,-root-ca-cert-publisher,-crd-naming']);
  });
  after(async () => {
    await gh?.close();
  });

  it('stays unestablished, and a deleted one stays Terminating behind its finalizer', async () => {
    const res = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, {
      body: crd('stays', 'example.com'),
    });
    expect(res.status, res.body).to.equal(201);
    const deleted = await gh.request('DELETE', `${APIEXT}/customresourcedefinitions/stays.example.com`);
    expect(deleted.status, deleted.body).to.equal(200);
    const o = (await gh.request('GET', `${APIEXT}/customresourcedefinitions/stays.example.com`)).json();
    expect(o.metadata.deletionTimestamp).to.be.a('string');
    expect(o.metadata.finalizers).to.deep.equal(['customresourcecleanup.apiextensions.k8s.io']);
    expect(condition(o, 'Terminating')).to.include({
      status: 'True',
      reason: 'InstanceDeletionInProgress',
      message: 'CustomResource deletion is in progress',
    });
    expect(condition(o, 'Established')).to.equal(undefined);
  });
});
