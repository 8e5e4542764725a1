import { expect } from 'chai';
import { builtinKinds } from '../../api/register.js';
import { buildOpenAPIDocument, buildOpenAPIIndex, documentHash, groupVersionKey } from '../../api/openapi/documents.js';
import { PATCH_CONTENT_TYPES } from '../../api/openapi/operations.js';
import { buildOpenAPIV2, v2Schema, type SwaggerDocument } from '../../api/openapi/v2.js';
import { decodeOpenAPIV2, encodeOpenAPIV2 } from '../../api/openapi/v2-proto.js';
import { aliasedKinds } from '../../gateway/request/group-alias.js';

const GVK = 'x-kubernetes-group-version-kind';

const docs = () =>
  Object.keys(buildOpenAPIIndex(builtinKinds).paths).map((k) => [k, buildOpenAPIDocument(builtinKinds, k)!] as const);

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

describe('OpenAPI v3 documents', () => {
  it('indexes every group version with a hashed server-relative URL', () => {
    const index = buildOpenAPIIndex(builtinKinds);
    expect(Object.keys(index.paths)).to.have.members([
      'api/v1',
      'apis/apps/v1',
      'apis/batch/v1',
      'apis/events.platform.io/v1',
      'apis/networking.platform.io/v1',
      'apis/rbac.authorization.platform.io/v1',
      'apis/apiregistration.platform.io/v1',
      'apis/admissionregistration.platform.io/v1',
      'apis/apiextensions.platform.io/v1',
      'apis/flowcontrol.apiserver.platform.io/v1',
    ]);
    const doc = buildOpenAPIDocument(builtinKinds, 'api/v1')!;
    expect(index.paths['api/v1'].serverRelativeURL).to.equal(`/openapi/v3/api/v1?hash=${documentHash(doc)}`);
    expect(documentHash(doc)).to.match(/^[0-9A-F]{128}$/);
  });

  it('documents replicasets/scale with the autoscaling/v1 Scale schema and no apply patch', () => {
    const doc = buildOpenAPIDocument(builtinKinds, 'apis/apps/v1')!;
    const item = doc.paths['/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/scale'] as Record<string, any>;
    expect(item.get.operationId).to.equal('readAppsV1NamespacedReplicaSetScale');
    expect(item.put['x-kubernetes-group-version-kind']).to.deep.equal({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    expect(Object.keys(item.patch.requestBody.content)).to.not.include('application/apply-patch+yaml');
    expect(doc.components.schemas['io.platform.api.autoscaling.v1.Scale']).to.have.property(
      'x-kubernetes-group-version-kind',
    );
  });

  it('answers undefined for an unknown group version and accepts apiVersion spellings', () => {
    expect(buildOpenAPIDocument(builtinKinds, 'apis/nope/v1')).to.equal(undefined);
    expect(buildOpenAPIDocument(builtinKinds, 'apps/v1')).to.deep.equal(
      buildOpenAPIDocument(builtinKinds, 'apis/apps/v1'),
    );
  });

  it('gives every kind a PATCH operation with fieldValidation, all patch types and its GVK', () => {
    for (const def of builtinKinds) {
      const doc = buildOpenAPIDocument(builtinKinds, groupVersionKey(def))!;
      const patches = Object.values(doc.paths)
        .map((p) => p.patch as any)
        .filter((op) => op && op['x-kubernetes-group-version-kind'].kind === def.kind);
      expect(patches, def.kind).to.have.length(def.statusSubresource ? 2 : 1);
      for (const op of patches) {
        expect(op['x-kubernetes-group-version-kind']).to.deep.equal({
          group: def.group,
          version: def.version,
          kind: def.kind,
        });
        expect(op['x-kubernetes-action']).to.equal('patch');
        expect(op.parameters.map((p: any) => p.name)).to.include.members([
          'dryRun',
          'fieldManager',
          'fieldValidation',
          'force',
        ]);
        expect(Object.keys(op.requestBody.content)).to.have.members(PATCH_CONTENT_TYPES);
      }
    }
  });

  it('serves collection, item, all-namespaces and status paths with their actions', () => {
    const doc = buildOpenAPIDocument(builtinKinds, 'apis/apps/v1')!;
    const coll = doc.paths['/apis/apps/v1/namespaces/{namespace}/replicasets'] as any;
    expect([coll.get, coll.post, coll.delete].map((o) => o['x-kubernetes-action'])).to.deep.equal([
      'list',
      'post',
      'deletecollection',
    ]);
    const item = doc.paths['/apis/apps/v1/namespaces/{namespace}/replicasets/{name}'] as any;
    expect([item.get, item.put, item.patch, item.delete].map((o) => o['x-kubernetes-action'])).to.deep.equal([
      'get',
      'put',
      'patch',
      'delete',
    ]);
    expect((doc.paths['/apis/apps/v1/replicasets'] as any).get['x-kubernetes-action']).to.equal('list');
    expect(doc.paths).to.have.property('/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/status');
    const core = buildOpenAPIDocument(builtinKinds, 'api/v1')!;
    expect(core.paths).to.have.property('/api/v1/nodes/{name}/status');
    expect(core.paths).to.not.have.property('/api/v1/secrets/{name}');
    // Namespaces cannot be deleted as a collection: no deletecollection operation.
    expect(Object.keys(core.paths['/api/v1/namespaces'])).to.not.include('delete');
    expect((core.paths['/api/v1/nodes'] as any).delete['x-kubernetes-action']).to.equal('deletecollection');
  });

  it('answers a deleted ResourceQuota with the object and others with a Status', () => {
    const core = buildOpenAPIDocument(builtinKinds, 'api/v1')!;
    const schemaOf = (p: string) =>
      (core.paths[p] as any).delete.responses['200'].content['application/json'].schema.$ref;
    expect(schemaOf('/api/v1/namespaces/{namespace}/resourcequotas/{name}')).to.equal(
      '#/components/schemas/io.platform.api.core.v1.ResourceQuota',
    );
    expect(schemaOf('/api/v1/namespaces/{namespace}/configmaps/{name}')).to.equal(
      '#/components/schemas/io.platform.apimachinery.pkg.apis.meta.v1.Status',
    );
  });

  it('marks kind and list component schemas with GVK arrays', () => {
    for (const def of builtinKinds) {
      const schemas = buildOpenAPIDocument(builtinKinds, groupVersionKey(def))!.components.schemas;
      const pkg = def.group ? def.group.split('.')[0] : 'core';
      const kindSchema = schemas[`io.platform.api.${pkg}.v1.${def.kind}`];
      expect(kindSchema, def.kind).to.not.equal(undefined);
      expect(kindSchema['x-kubernetes-group-version-kind']).to.deep.equal([
        { group: def.group, version: def.version, kind: def.kind },
      ]);
      expect(schemas[`io.platform.api.${pkg}.v1.${def.kind}List`]['x-kubernetes-group-version-kind']).to.deep.equal([
        { group: def.group, version: def.version, kind: `${def.kind}List` },
      ]);
    }
  });

  it('resolves every $ref inside its own document', () => {
    for (const [key, doc] of docs()) {
      for (const r of collectRefs(doc)) {
        expect(r, key).to.match(/^#\/components\/schemas\//);
        expect(doc.components.schemas, `${key}: ${r}`).to.have.property(r.slice('#/components/schemas/'.length));
      }
    }
  });

  it('describes nested fields for kubectl explain, with merge markers for strategic merge patch', () => {
    const schemas = buildOpenAPIDocument(builtinKinds, 'api/v1')!.components.schemas as any;
    const taints = schemas['io.platform.api.core.v1.Node'].properties.spec.properties.taints;
    expect(taints.description).to.be.a('string').and.not.equal('');
    expect(taints['x-kubernetes-list-type']).to.equal('atomic');
    const taint = schemas['io.platform.api.core.v1.Taint'];
    expect(taint.properties.effect.enum).to.deep.equal(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
    expect(taint.properties.key.description).to.match(/taint key/);
    const conditions = schemas['io.platform.api.core.v1.Node'].properties.status.properties.conditions;
    expect(conditions['x-kubernetes-patch-merge-key']).to.equal('type');
    expect(conditions['x-kubernetes-patch-strategy']).to.equal('merge');
  });
});

describe('OpenAPI v2 document', () => {
  const served = [...builtinKinds, ...aliasedKinds(builtinKinds)];
  let doc: SwaggerDocument;
  before(() => {
    doc = buildOpenAPIV2(served, 'v1.32.0');
  });

  it('turns v3 references with a use-site description into Swagger 2.0 pairs', () => {
    expect(v2Schema({ description: 'd', allOf: [{ $ref: '#/components/schemas/X' }], default: {} })).to.deep.equal({
      description: 'd',
      $ref: '#/definitions/X',
    });
    expect(v2Schema({ type: 'array', items: { $ref: '#/components/schemas/Y' } })).to.deep.equal({
      type: 'array',
      items: { $ref: '#/definitions/Y' },
    });
  });

  it('resolves every $ref among its definitions and keeps no v3-only keyword', () => {
    for (const r of collectRefs(doc)) {
      expect(r).to.match(/^#\/definitions\//);
      expect(doc.definitions, r).to.have.property(r.slice('#/definitions/'.length));
    }
    expect(JSON.stringify(doc)).to.not.match(/"(allOf|requestBody|components|nullable|oneOf|anyOf)"/);
  });

  it('names a kind served at an alias once, with both group-version-kinds', () => {
    expect(doc.definitions['io.platform.api.rbac.v1.ClusterRoleBindingList'][GVK]).to.deep.equal([
      { group: 'rbac.authorization.platform.io', version: 'v1', kind: 'ClusterRoleBindingList' },
      { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBindingList' },
    ]);
    expect(doc.definitions['io.platform.apimachinery.pkg.apis.meta.v1.DeleteOptions'][GVK]).to.deep.include({
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'DeleteOptions',
    });
  });

  it('gives each operation a body parameter, flat query parameters and content types', () => {
    const coll = doc.paths['/apis/apps/v1/namespaces/{namespace}/replicasets'] as any;
    expect(coll.post.parameters[0]).to.deep.equal({
      name: 'body',
      in: 'body',
      schema: { $ref: '#/definitions/io.platform.api.apps.v1.ReplicaSet' },
      required: true,
    });
    expect(coll.post.parameters.find((p: any) => p.name === 'fieldValidation')).to.include({
      in: 'query',
      type: 'string',
      uniqueItems: true,
    });
    expect(coll.get.produces).to.include('application/json;stream=watch');
    expect(coll.parameters.map((p: any) => [p.name, p.in, p.type])).to.deep.equal([
      ['namespace', 'path', 'string'],
      ['pretty', 'query', 'string'],
    ]);
    expect(coll.get.responses['401']).to.deep.equal({ description: 'Unauthorized' });
  });

  it('encodes to protobuf that decodes to the same definitions, paths and vendor extensions', () => {
    const decoded = decodeOpenAPIV2(encodeOpenAPIV2(doc)) as any;
    expect(decoded.swagger).to.equal('2.0');
    expect(decoded.info).to.deep.equal({ title: 'Gatehouse', version: 'v1.32.0' });
    expect(decoded.definitions.additional_properties.map((d: any) => d.name)).to.deep.equal(
      Object.keys(doc.definitions),
    );
    expect(decoded.paths.path.map((p: any) => p.name)).to.deep.equal(Object.keys(doc.paths));
    const taint = decoded.definitions.additional_properties.find(
      (d: any) => d.name === 'io.platform.api.core.v1.Taint',
    ).value;
    const effect = taint.properties.additional_properties.find((p: any) => p.name === 'effect').value;
    expect(effect.type.value).to.deep.equal(['string']);
    expect(effect.enum.map((e: any) => JSON.parse(e.yaml))).to.deep.equal([
      'NoSchedule',
      'PreferNoSchedule',
      'NoExecute',
    ]);
    const meta = decoded.definitions.additional_properties
      .find((d: any) => d.name === 'io.platform.api.core.v1.ConfigMap')
      .value.properties.additional_properties.find((p: any) => p.name === 'metadata').value;
    expect(meta).to.deep.equal({
      _ref: '#/definitions/io.platform.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      description: "Standard object's metadata.",
    });
    const item = decoded.paths.path.find(
      (p: any) => p.name === '/api/v1/namespaces/{namespace}/configmaps/{name}',
    ).value;
    const gvk = item.patch.vendor_extension.find((e: any) => e.name === GVK);
    expect(JSON.parse(gvk.value.yaml)).to.deep.equal({ group: '', version: 'v1', kind: 'ConfigMap' });
    expect(item.patch.parameters[0].parameter.body_parameter).to.include({ name: 'body', in: 'body', required: true });
    expect(item.parameters[0].parameter.non_body_parameter.path_parameter_sub_schema).to.include({
      name: 'name',
      in: 'path',
      required: true,
      type: 'string',
    });
    expect(
      item.get.responses.response_code.find((r: any) => r.name === '200').value.response.schema.schema._ref,
    ).to.equal('#/definitions/io.platform.api.core.v1.ConfigMap');
  });
});
