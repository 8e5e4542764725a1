// Dispatches a resource request to its verb handler after checking that the path names something we serve in the
// right scope. Everything not served is a 404 Status; a verb the path does not support is a 405.
import type { Context } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { ownValue } from '../../api/meta/types.js';
import type { FeatureGates } from '../server/feature-gates.js';
import { requestInfoOf, requestQuery } from '../request/request-info.js';
import type { Registry } from '../registry/registry.js';
import { handleCreate } from './create.js';
import { handleDelete } from './delete.js';
import { handleDeleteCollection } from './delete-collection.js';
import { handleGet } from './get.js';
import { handleList } from './list.js';
import { handlePatch } from './patch.js';
import { handleUpdate } from './update.js';
import { handleWatch } from './watch.js';
import type { HandlerDeps, ResourceRequest } from './request-scope.js';
import { handleVirtualResource, type VirtualResources } from './virtual-resources.js';
import { handleCreateSubresource, type CreateSubresources } from './create-subresource.js';
import { handleProjectionSubresource } from './projection-subresource.js';

export function createResourceRouter(
  registry: Registry,
  deps: HandlerDeps & { features: FeatureGates },
  virtual?: VirtualResources,
  createSubresources?: CreateSubresources,
) {
  return async function resourceRouter(ctx: Context): Promise<void> {
    const info = requestInfoOf(ctx);
    const virtualResource = virtual?.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (virtualResource) return handleVirtualResource(ctx, deps, info, virtualResource);
    const store = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (!store) throw errors.pathNotFound();
    const def = store.def;
    const namespacePath = info.parts.length > 0 && ctx.path.includes('/namespaces/') && def.resource !== 'namespaces';
    // The namespace segment must match the resource's scope; namespaced items need it.
    if (!def.namespaced && namespacePath) throw errors.pathNotFound();
    if (def.namespaced && !info.namespace && (info.name || ctx.method !== 'GET')) throw errors.pathNotFound();
    const method = ctx.method.toUpperCase();
    // The /watch/ path prefix (verb watch whatever the method) serves GET watches of collections and items only.
    if (info.verb === 'watch' && info.parts.length > 2) throw errors.pathNotFound();
    if (info.verb === 'watch' && method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed();
    // Own keys only: a path segment named `constructor` must not find what every object inherits.
    if (info.parts.length === 3 && ownValue(def.createSubresources, info.subresource)) {
      return handleCreateSubresource(
        ctx,
        deps,
        { info, store, query: requestQuery(ctx) },
        registry,
        createSubresources,
      );
    }
    const projection = info.parts.length === 3 ? ownValue(def.projectionSubresources, info.subresource) : undefined;
    if (projection)
      return handleProjectionSubresource(ctx, deps, { info, store, query: requestQuery(ctx) }, projection);
    if (info.parts.length > 3 || (info.subresource && !(info.subresource === 'status' && def.statusSubresource))) {
      throw errors.pathNotFound();
    }
    const query = requestQuery(ctx);
    const req: ResourceRequest = { info, store, query };
    if (info.subresource && !['GET', 'PUT', 'PATCH'].includes(method)) throw errors.methodNotAllowed();

    switch (method) {
      case 'GET':
      case 'HEAD':
        if (info.verb === 'watch' && info.parts.length === 2) {
          // Watching one object through the `/watch/` item path: the collection's watch, restricted by name.
          query.set('fieldSelector', joinSelectors(`metadata.name=${info.name}`, query.get('fieldSelector')));
          return handleWatch(ctx, deps, req);
        }
        if (info.verb === 'watch') return handleWatch(ctx, deps, req);
        // An item path answers the object whatever its query says: as upstream, `?watch` there is no watch (it was
        // authorized as a get, and must not open a stream a get-only user could not open through the collection).
        if (info.parts.length >= 2) return handleGet(ctx, deps, req);
        return handleList(ctx, deps, req);
      case 'POST':
        if (info.parts.length !== 1) throw errors.methodNotAllowed();
        return handleCreate(ctx, deps, req);
      case 'PUT':
        if (info.parts.length < 2) throw errors.methodNotAllowed();
        return handleUpdate(ctx, deps, req);
      case 'PATCH':
        if (info.parts.length < 2) throw errors.methodNotAllowed();
        return handlePatch(ctx, deps, req);
      case 'DELETE':
        if (info.parts.length >= 2) return handleDelete(ctx, deps, req);
        if (def.noDeleteCollection) throw errors.methodNotAllowed();
        return handleDeleteCollection(ctx, deps, req);
      default:
        throw errors.methodNotAllowed();
    }
  };
}

function joinSelectors(a: string, b: string | null): string {
  return b ? `${a},${b}` : a;
}
