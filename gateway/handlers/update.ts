import type { Context } from 'koa';
import { updateManager } from './field-manager.js';
import { userOf } from '../filters/user.js';
import { canonicalBody } from '../filters/group-alias.js';
import type { Subresource } from '../registry/store.js';
import { addWarnings, decodeRequestBody, type HandlerDeps, type ResourceRequest, writeContext, writeResponse } from './request-scope.js';

export async function handleUpdate(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const decoded = await decodeRequestBody(ctx, deps, store.def);
  const wctx = writeContext(query, 'UpdateOptions', decoded, userOf(ctx));
  wctx.fieldManager = updateManager(ctx, query, 'UpdateOptions');
  const { object, created } = await store.update(info.namespace, info.name, canonicalBody(info, store.def, decoded.value), wctx, info.subresource as Subresource);
  addWarnings(ctx, wctx.warnings);
  writeResponse(ctx, deps, created ? 201 : 200, object, store.def);
}
