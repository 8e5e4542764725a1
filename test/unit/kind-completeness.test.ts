// Every built-in kind is served whole: a protobuf message, an OpenAPI definition, printer columns and a place in the
// default RBAC policy. Each is declared somewhere other than the kind's own file, so a kind added without one would
// still be served, silently without it (see CONTRIBUTING.md, "Add a resource kind").
import { expect } from 'chai';
import { builtinKinds } from '../../api/register.js';
import { apiVersionOf } from '../../api/scheme.js';
import { protobufCovers } from '../../api/proto/object-codec.js';
import { buildOpenAPIDocument, groupVersionKey } from '../../api/openapi/documents.js';
import { bootstrapClusterRoles } from '../../policies/rbac/bootstrap-policy.js';

// Roles every cluster has whatever its kinds; a namespaced kind must be named by one of the others (the aggregated
// admin, edit and view roles are about what lives in a namespace; cluster-scoped kinds are cluster-admin's, as
// upstream's ClusterRoles and ClusterRoleBindings are).
const GENERIC_ROLES = new Set(['cluster-admin']);
// Kinds whose upstream printer prints exactly the default columns, Name and Created At.
const DEFAULT_COLUMNS_UPSTREAM = new Set(['Role', 'ClusterRole', 'CustomResourceDefinition']);

describe('every built-in kind', () => {
  for (const def of builtinKinds) {
    const gv = apiVersionOf(def);
    describe(`${def.kind} (${gv})`, () => {
      it('has a protobuf message, for itself and its list', () => {
        expect(protobufCovers(gv, def.kind), def.kind).to.equal(true);
        expect(protobufCovers(gv, `${def.kind}List`), `${def.kind}List`).to.equal(true);
      });

      it('has an OpenAPI definition naming its group, version and kind', () => {
        const doc = buildOpenAPIDocument(builtinKinds, groupVersionKey(def).replace(/^apis?\//, ''));
        const gvks = Object.values(doc?.components.schemas ?? {}).flatMap(
          (s: any) => s['x-kubernetes-group-version-kind'] ?? [],
        );
        expect(gvks).to.deep.include({ group: def.group, version: def.version, kind: def.kind });
      });

      it('has its printer columns', () => {
        if (DEFAULT_COLUMNS_UPSTREAM.has(def.kind)) expect(def.tableColumns, def.kind).to.equal(undefined);
        else expect(def.tableColumns ?? [], def.kind).to.not.be.empty;
      });

      if (def.namespaced)
        it('is named by a default role other than cluster-admin', () => {
          const named = bootstrapClusterRoles()
            .filter((role) => !GENERIC_ROLES.has(role.metadata.name ?? ''))
            .some((role) =>
              (role.rules ?? []).some((r) => r.apiGroups?.includes(def.group) && r.resources?.includes(def.resource)),
            );
          expect(named, `${def.resource} in ${def.group || 'the core group'}`).to.equal(true);
        });
    });
  }
});
