// Discovery as kubectl 1.32 reads it: the legacy documents (/api, /apis, /apis/<g>, per-version APIResourceList),
// the aggregated APIGroupDiscoveryList recognised only by its exact content type, the `*.k8s.io` alias groups after
// ours, /version, OpenAPI v3 (the index, per-group-version documents with PATCH + fieldValidation, and GVK-tagged
// component schemas) and OpenAPI v2 (JSON and gnostic protobuf).
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { decodeOpenAPIV2 } from '../../api/openapi/v2-proto.js';

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const NAMED_GROUPS = [
  'apps',
  'batch',
  'networking.platform.io',
  'rbac.authorization.platform.io',
  'apiregistration.platform.io',
  'admissionregistration.platform.io',
  'apiextensions.platform.io',
  'flowcontrol.apiserver.platform.io',
];
const ALIAS_GROUPS = [
  'networking.k8s.io',
  'events.k8s.io',
  'rbac.authorization.k8s.io',
  'apiregistration.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
];
const RESOURCE_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

describe('discovery', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse();
  });
  after(async () => {
    await gh?.close();
  });

  const getJson = async (path: string, headers: Record<string, string> = {}): Promise<any> => {
    const res = await gh.request('GET', path, { headers });
    expect(res.status, `${path}: ${res.body}`).to.equal(200);
    return res.json();
  };

  describe('legacy documents', () => {
    it('/api lists the core version v1', async () => {
      const doc = await getJson('/api');
      expect(doc.kind).to.equal('APIVersions');
      expect(doc.versions).to.deep.equal(['v1']);
    });

    it('/apis lists every named group with a preferred version', async () => {
      const doc = await getJson('/apis');
      expect(doc).to.include({ kind: 'APIGroupList', apiVersion: 'v1' });
      const names = doc.groups.map((g: any) => g.name);
      expect(names).to.include.members(NAMED_GROUPS);
      // The core group is served under /api only.
      expect(names).to.not.include('');
      for (const group of doc.groups) {
        expect(group.versions, group.name).to.be.an('array').that.is.not.empty;
        // authentication.k8s.io also serves v1beta1 (SelfSubjectReview), after v1.
        expect(group.preferredVersion, group.name).to.deep.equal({ groupVersion: `${group.name}/v1`, version: 'v1' });
        expect(group.versions).to.deep.include(group.preferredVersion);
      }
    });

    it('/apis lists the *.k8s.io alias groups after every group of ours', async () => {
      const names: string[] = (await getJson('/apis')).groups.map((g: any) => g.name);
      const firstAlias = names.findIndex((n) => n.endsWith('.k8s.io'));
      expect(names.slice(firstAlias)).to.have.members(ALIAS_GROUPS);
      expect(names.slice(0, firstAlias)).to.include.members([
        ...NAMED_GROUPS,
        'authentication.platform.io',
        'authorization.platform.io',
      ]);
      const authn = await getJson('/apis/authentication.k8s.io');
      expect(authn.preferredVersion).to.deep.equal({ groupVersion: 'authentication.k8s.io/v1', version: 'v1' });
      const reviews = await getJson('/apis/authorization.k8s.io/v1');
      expect(reviews.resources.find((r: any) => r.name === 'subjectaccessreviews')).to.deep.equal({
        name: 'subjectaccessreviews',
        singularName: 'subjectaccessreview',
        namespaced: false,
        kind: 'SubjectAccessReview',
        verbs: ['create'],
      });
    });

    it("writes a resource entry with upstream's field order, which kubectl's own tests match byte for byte", async () => {
      const res = await gh.request('GET', '/api/v1');
      const entry = /\{"name":"configmaps",[^{}]*\}/.exec(res.body)?.[0];
      expect(entry).to.match(
        new RegExp(
          '^\\{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap",' +
            '"verbs":\\["create","delete","deletecollection","get","list","patch","update","watch"\\],' +
            '"shortNames":\\["cm"\\],"storageVersionHash":"[^"]+"\\}$',
        ),
      );
      const apps = (await gh.request('GET', '/apis/apps/v1')).body;
      expect(/\{"name":"replicasets",[^{}]*\}/.exec(apps)?.[0]).to.match(
        /"shortNames":\["rs"\],"categories":\["all"\],"storageVersionHash":"[^"]+"\}$/,
      );
    });

    it('/apis/apps is an APIGroup', async () => {
      const doc = await getJson('/apis/apps');
      expect(doc).to.deep.include({
        kind: 'APIGroup',
        apiVersion: 'v1',
        name: 'apps',
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      });
      expect(doc.versions).to.deep.equal([{ groupVersion: 'apps/v1', version: 'v1' }]);
    });

    it('/api/v1 describes the core resources, their short names and status subresources', async () => {
      const doc = await getJson('/api/v1');
      expect(doc).to.include({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'v1' });
      const byName = new Map<string, any>(doc.resources.map((r: any) => [r.name, r]));
      for (const name of ['namespaces', 'nodes', 'resourcequotas', 'secrets', 'configmaps', 'serviceaccounts']) {
        const r = byName.get(name);
        expect(r, name).to.not.equal(undefined);
        expect(r.singularName, name).to.equal(name.replace(/s$/, ''));
        // Namespaces cannot be deleted as a collection, as upstream's namespace storage has no DeleteCollection.
        const verbs = name === 'namespaces' ? RESOURCE_VERBS.filter((v) => v !== 'deletecollection') : RESOURCE_VERBS;
        expect([...r.verbs].sort(), name).to.deep.equal(verbs);
        expect(r.kind, name).to.be.a('string').and.not.empty;
      }
      expect(byName.get('namespaces')).to.deep.include({ kind: 'Namespace', namespaced: false, shortNames: ['ns'] });
      expect(byName.get('nodes')).to.deep.include({ kind: 'Node', namespaced: false, shortNames: ['no'] });
      expect(byName.get('configmaps')).to.deep.include({ kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] });
      expect(byName.get('resourcequotas')).to.deep.include({
        kind: 'ResourceQuota',
        namespaced: true,
        shortNames: ['quota'],
      });
      expect(byName.get('serviceaccounts')).to.deep.include({ shortNames: ['sa'] });
      // Secrets have no short name upstream: the field is absent rather than empty.
      expect(byName.get('secrets')).to.not.have.property('shortNames');
      for (const sub of ['nodes/status', 'namespaces/status', 'resourcequotas/status']) {
        const r = byName.get(sub);
        expect(r, sub).to.not.equal(undefined);
        expect([...r.verbs].sort(), sub).to.deep.equal(['get', 'patch', 'update']);
      }
      // Kinds without a status subresource do not list one.
      expect(byName.has('configmaps/status')).to.equal(false);
    });

    it('/apis/<group>/v1 describes named-group resources with categories', async () => {
      const apps = await getJson('/apis/apps/v1');
      expect(apps).to.include({ kind: 'APIResourceList', groupVersion: 'apps/v1' });
      const rs = apps.resources.find((r: any) => r.name === 'replicasets');
      expect(rs).to.deep.include({
        singularName: 'replicaset',
        namespaced: true,
        kind: 'ReplicaSet',
        shortNames: ['rs'],
        categories: ['all'],
      });
      expect([...rs.verbs].sort()).to.deep.equal(RESOURCE_VERBS);
      expect(apps.resources.find((r: any) => r.name === 'replicasets/status')?.verbs).to.have.members([
        'get',
        'patch',
        'update',
      ]);

      const batch = await getJson('/apis/batch/v1');
      expect(batch.resources.find((r: any) => r.name === 'cronjobs')).to.deep.include({
        kind: 'CronJob',
        shortNames: ['cj'],
        categories: ['all'],
      });
      const net = await getJson('/apis/networking.platform.io/v1');
      expect(net.resources.find((r: any) => r.name === 'networkpolicies')).to.deep.include({
        kind: 'NetworkPolicy',
        namespaced: true,
        shortNames: ['netpol'],
      });
      const rbac = await getJson('/apis/rbac.authorization.platform.io/v1');
      const rbacByName = new Map<string, any>(rbac.resources.map((r: any) => [r.name, r]));
      expect(rbacByName.get('roles')).to.include({ kind: 'Role', namespaced: true });
      expect(rbacByName.get('rolebindings')).to.include({ kind: 'RoleBinding', namespaced: true });
      expect(rbacByName.get('clusterroles')).to.include({ kind: 'ClusterRole', namespaced: false });
      expect(rbacByName.get('clusterrolebindings')).to.include({ kind: 'ClusterRoleBinding', namespaced: false });
    });

    it('answers 404 Status for an unknown group or version', async () => {
      for (const path of ['/apis/nope.platform.io', '/apis/nope.platform.io/v1', '/apis/apps/v9']) {
        const res = await gh.request('GET', path);
        expect(res.status, path).to.equal(404);
        expect(res.json(), path).to.include({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
        });
      }
    });
  });

  describe('aggregated discovery', () => {
    const aggregated = async (path: string, accept: string, expectedType: string): Promise<any> => {
      const res = await gh.request('GET', path, { headers: { accept: `${accept},application/json` } });
      expect(res.status, res.body).to.equal(200);
      // kubectl recognises the aggregated form by this header alone, byte for byte.
      expect(res.headers['content-type']).to.equal(expectedType);
      const doc = res.json();
      expect(doc.kind).to.equal('APIGroupDiscoveryList');
      return doc;
    };

    it('/apis answers v2 APIGroupDiscoveryList with resources, scopes, verbs and subresources', async () => {
      const doc = await aggregated('/apis', AGGREGATED_V2, AGGREGATED_V2);
      expect(doc.apiVersion).to.equal('apidiscovery.k8s.io/v2');
      const groups = new Map<string, any>(doc.items.map((g: any) => [g.metadata.name, g]));
      expect([...groups.keys()]).to.include.members(NAMED_GROUPS);
      const apps = groups.get('apps').versions.find((v: any) => v.version === 'v1');
      const rs = apps.resources.find((r: any) => r.resource === 'replicasets');
      expect(rs).to.deep.include({
        responseKind: { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
        scope: 'Namespaced',
        singularResource: 'replicaset',
        shortNames: ['rs'],
        categories: ['all'],
      });
      expect([...rs.verbs].sort()).to.deep.equal(RESOURCE_VERBS);
      const status = rs.subresources.find((s: any) => s.subresource === 'status');
      expect(status.responseKind).to.deep.equal({ group: 'apps', version: 'v1', kind: 'ReplicaSet' });
      expect([...status.verbs].sort()).to.deep.equal(['get', 'patch', 'update']);

      const rbac = groups.get('rbac.authorization.platform.io').versions[0];
      const crb = rbac.resources.find((r: any) => r.resource === 'clusterrolebindings');
      expect(crb).to.include({ scope: 'Cluster', singularResource: 'clusterrolebinding' });
      // Every resource needs a responseKind, or kubectl drops it.
      for (const group of doc.items) {
        for (const version of group.versions) {
          for (const r of version.resources)
            expect(r.responseKind?.kind, `${group.metadata.name}/${r.resource}`).to.be.a('string').and.not.empty;
        }
      }
    });

    it('/apis lists the alias groups after ours, their resources answering in the alias group', async () => {
      const doc = await aggregated('/apis', AGGREGATED_V2, AGGREGATED_V2);
      const names: string[] = doc.items.map((g: any) => g.metadata.name);
      const firstAlias = names.findIndex((n) => n.endsWith('.k8s.io'));
      expect(names.slice(firstAlias)).to.have.members(ALIAS_GROUPS);
      const rbac = doc.items.find((g: any) => g.metadata.name === 'rbac.authorization.k8s.io').versions[0];
      expect(rbac.resources.find((r: any) => r.resource === 'roles')).to.deep.include({
        responseKind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' },
        scope: 'Namespaced',
        singularResource: 'role',
      });
      const authn = doc.items.find((g: any) => g.metadata.name === 'authentication.k8s.io');
      expect(authn.versions.map((v: any) => v.version)).to.deep.equal(['v1', 'v1beta1']);
    });

    it('/api answers the core group in aggregated form', async () => {
      const doc = await aggregated('/api', AGGREGATED_V2, AGGREGATED_V2);
      expect(doc.items).to.have.length(1);
      const core = doc.items[0];
      expect(core.metadata.name ?? '').to.equal('');
      const v1 = core.versions.find((v: any) => v.version === 'v1');
      const nodes = v1.resources.find((r: any) => r.resource === 'nodes');
      expect(nodes).to.deep.include({
        responseKind: { group: '', version: 'v1', kind: 'Node' },
        scope: 'Cluster',
        singularResource: 'node',
        shortNames: ['no'],
      });
      expect(nodes.subresources.map((s: any) => s.subresource)).to.include('status');
      expect(v1.resources.find((r: any) => r.resource === 'configmaps')).to.include({
        scope: 'Namespaced',
        singularResource: 'configmap',
      });
      expect(v1.resources.find((r: any) => r.resource === 'namespaces').verbs).to.not.include('deletecollection');
    });

    it('answers v2beta1 when that is what the client asks for', async () => {
      const doc = await aggregated('/apis', AGGREGATED_V2BETA1, AGGREGATED_V2BETA1);
      expect(doc.apiVersion).to.equal('apidiscovery.k8s.io/v2beta1');
      expect(doc.items.map((g: any) => g.metadata.name)).to.include('apps');
    });

    it('answers the legacy document to a client that does not ask for the aggregated one', async () => {
      const res = await gh.request('GET', '/apis', { headers: { accept: 'application/json' } });
      expect(String(res.headers['content-type'])).to.not.contain('APIGroupDiscoveryList');
      expect(res.json().kind).to.equal('APIGroupList');
    });
  });

  it('/version reports 1.32', async () => {
    const v = await getJson('/version');
    expect(v).to.include({ major: '1', minor: '32' });
    expect(v.gitVersion).to.match(/^v1\.32\./);
  });

  describe('OpenAPI', () => {
    let index: any;
    before(async () => {
      index = await getJson('/openapi/v3');
    });

    it('/openapi/v3 indexes api/v1 and apis/apps/v1 with fetchable documents', async () => {
      for (const key of [
        'api/v1',
        'apis/apps/v1',
        'apis/batch/v1',
        'apis/networking.platform.io/v1',
        'apis/rbac.authorization.platform.io/v1',
      ]) {
        expect(index.paths[key]?.serverRelativeURL, key)
          .to.be.a('string')
          .and.match(new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=`));
      }
    });

    for (const [key, kind, itemPath] of [
      ['api/v1', 'ConfigMap', '/api/v1/namespaces/{namespace}/configmaps/{name}'],
      ['apis/apps/v1', 'ReplicaSet', '/apis/apps/v1/namespaces/{namespace}/replicasets/{name}'],
    ] as const) {
      it(`the ${key} document has a PATCH for ${kind} with fieldValidation and GVK-tagged schemas`, async () => {
        const doc = await getJson(index.paths[key].serverRelativeURL);
        expect(doc.openapi).to.match(/^3\./);
        const item = doc.paths[itemPath];
        expect(item, itemPath).to.not.equal(undefined);
        const patch = item.patch;
        expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({
          group: key === 'api/v1' ? '' : 'apps',
          version: 'v1',
          kind,
        });
        // Parameters may sit on the operation or on the path item, inline or by $ref.
        const params = [...(patch.parameters ?? []), ...(item.parameters ?? [])].map((p: any) => {
          if (!p.$ref) return p;
          const name = String(p.$ref).split('/').pop()!;
          return doc.components.parameters?.[name] ?? { name };
        });
        expect(params.map((p: any) => p.name)).to.include('fieldValidation');
        expect(Object.keys(patch.requestBody?.content ?? {})).to.include('application/merge-patch+json');

        const schemas = Object.values<any>(doc.components.schemas);
        const schema = schemas.find((s) =>
          (s['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.kind === kind),
        );
        expect(schema, `${kind} schema`).to.not.equal(undefined);
        expect(schema['x-kubernetes-group-version-kind']).to.be.an('array');
        expect(schema.properties).to.include.keys('apiVersion', 'kind', 'metadata');
      });
    }

    it('the core document describes Node taints for kubectl explain', async () => {
      const doc = await getJson(index.paths['api/v1'].serverRelativeURL);
      const schemas = doc.components.schemas as Record<string, any>;
      const node = Object.values(schemas).find((s: any) =>
        (s['x-kubernetes-group-version-kind'] ?? []).some((g: any) => g.kind === 'Node' && g.group === ''),
      );
      expect(node).to.not.equal(undefined);
      // Follow $refs as kubectl explain does, down to spec.taints.
      const deref = (s: any): any =>
        s?.$ref ? schemas[String(s.$ref).split('/').pop()!] : s?.allOf?.[0]?.$ref ? deref(s.allOf[0]) : s;
      const spec = deref(node.properties.spec);
      expect(spec?.properties).to.have.property('taints');
    });

    it('answers 404 Status for an unknown group version', async () => {
      const res = await gh.request('GET', '/openapi/v3/apis/nope.platform.io/v1');
      expect(res.status).to.equal(404);
      expect(res.json()).to.include({ kind: 'Status', status: 'Failure', code: 404 });
    });

    it('documents an alias group version with its own group-version-kinds, for kubectl apply and explain', async () => {
      const key = 'apis/rbac.authorization.k8s.io/v1';
      const doc = await getJson(index.paths[key].serverRelativeURL);
      const patch = doc.paths['/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/rolebindings/{name}'].patch;
      expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        kind: 'RoleBinding',
      });
      expect(patch.parameters.map((p: any) => p.name)).to.include('fieldValidation');
      expect(
        doc.components.schemas['io.platform.api.rbac.v1.RoleBinding']['x-kubernetes-group-version-kind'],
      ).to.deep.equal([{ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding' }]);
    });
  });

  describe('OpenAPI v2', () => {
    const PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

    it('/openapi/v2 answers Swagger 2.0 JSON with every kind, aliases included, under the v3 names', async () => {
      const res = await gh.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.equal('application/json');
      const doc = res.json();
      expect(doc).to.include({ swagger: '2.0' });
      const configMap = doc.definitions['io.platform.api.core.v1.ConfigMap'];
      expect(configMap['x-kubernetes-group-version-kind']).to.deep.equal([
        { group: '', version: 'v1', kind: 'ConfigMap' },
      ]);
      expect(configMap.properties.metadata).to.deep.equal({
        description: "Standard object's metadata.",
        $ref: '#/definitions/io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      });
      // One definition for a kind and its alias, naming both.
      expect(doc.definitions['io.platform.api.rbac.v1.Role']['x-kubernetes-group-version-kind']).to.deep.equal([
        { group: 'rbac.authorization.platform.io', version: 'v1', kind: 'Role' },
        { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' },
      ]);
      const item = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
      expect(item.patch['x-kubernetes-group-version-kind']).to.deep.equal({
        group: '',
        version: 'v1',
        kind: 'ConfigMap',
      });
      expect(item.patch.parameters.find((p: any) => p.in === 'query' && p.name === 'fieldValidation')).to.include({
        type: 'string',
      });
      expect(item.patch.parameters.find((p: any) => p.in === 'body')).to.deep.include({ name: 'body', required: true });
      expect(item.patch.consumes).to.include('application/strategic-merge-patch+json');
      expect(item.get.responses['200'].schema).to.deep.equal({
        $ref: '#/definitions/io.platform.api.core.v1.ConfigMap',
      });
      expect(doc.paths).to.have.property('/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}');
      // The reviews, create-only: a definition and a POST, at our group and at the alias (v3 leaves them out).
      expect(
        doc.definitions['io.platform.api.authorization.v1.SubjectAccessReview']['x-kubernetes-group-version-kind'],
      ).to.deep.equal([
        { group: 'authorization.platform.io', version: 'v1', kind: 'SubjectAccessReview' },
        { group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview' },
      ]);
      expect(
        Object.keys(doc.paths['/apis/authorization.k8s.io/v1/namespaces/{namespace}/localsubjectaccessreviews']),
      ).to.deep.equal(['post', 'parameters']);
      expect(doc.definitions).to.have.property('io.platform.api.authentication.v1beta1.SelfSubjectReview');
      // Every reference resolves.
      const refs = JSON.stringify(doc).match(/"#\/definitions\/[^"]+"/g) ?? [];
      for (const ref of new Set(refs))
        expect(doc.definitions, ref).to.have.property(JSON.parse(ref).slice('#/definitions/'.length));
    });

    it("/openapi/v2 answers gnostic protobuf to client-go's Accept header, with an ETag honoured by If-None-Match", async () => {
      const res = await gh.request('GET', '/openapi/v2', { headers: { accept: PROTOBUF } });
      expect(res.status).to.equal(200);
      // Go's media-type parser refuses the `@` of the asked spelling: upstream answers with this one.
      expect(res.headers['content-type']).to.equal('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
      const doc = decodeOpenAPIV2(res.raw) as any;
      expect(doc.swagger).to.equal('2.0');
      const role = doc.definitions.additional_properties.find(
        (d: any) => d.name === 'io.platform.api.rbac.v1.Role',
      ).value;
      const gvk = role.vendor_extension.find((e: any) => e.name === 'x-kubernetes-group-version-kind');
      expect(JSON.parse(gvk.value.yaml)).to.deep.include({
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        kind: 'Role',
      });
      const patch = doc.paths.path.find(
        (p: any) => p.name === '/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}',
      ).value.patch;
      const names = patch.parameters
        .map((p: any) => p.parameter.non_body_parameter?.query_parameter_sub_schema?.name)
        .filter(Boolean);
      expect(names).to.include('fieldValidation');

      const etag = String(res.headers.etag);
      expect(etag).to.match(/^"[0-9A-F]{128}"$/);
      const json = await gh.request('GET', '/openapi/v2');
      expect(json.headers.etag).to.equal(etag);
      expect(json.headers.vary).to.contain('Accept');
      const again = await gh.request('GET', '/openapi/v2', { headers: { accept: PROTOBUF, 'if-none-match': etag } });
      expect(again.status).to.equal(304);
      expect(again.raw.length).to.equal(0);
    });

    it('answers 406 to an Accept header it cannot satisfy', async () => {
      const res = await gh.request('GET', '/openapi/v2', { headers: { accept: 'text/html' } });
      expect(res.status).to.equal(406);
      expect(res.json()).to.include({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    });
  });
});
