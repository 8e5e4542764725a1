import type { Context } from 'koa';
import { updateWriteContext } from './field-manager.js';
import { canonicalBody } from '../request/group-alias.js';
import type { Subresource } from '../registry/store.js';
import {
  withWarnings,
  decodeRequestBody,
  type HandlerDeps,
  type ResourceRequest,
  writeResponse,
} from './request-scope.js';

export async function handleUpdate(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const decoded = await decodeRequestBody(ctx, deps, store.def);
  const wctx = updateWriteContext(ctx, query, 'UpdateOptions', decoded);
  const { object, created } = await withWarnings(
    ctx,
    wctx,
    store.update(
      info.namespace,
      info.name,
      canonicalBody(info, store.def, decoded.value),
      wctx,
      info.subresource as Subresource,
    ),
  );
  writeResponse(ctx, deps, created ? 201 : 200, object, store.def);
}
