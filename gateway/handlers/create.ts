import type { Context } from 'koa';
import { updateWriteContext } from './field-manager.js';
import { canonicalBody } from '../request/group-alias.js';
import {
  withWarnings,
  decodeRequestBody,
  type HandlerDeps,
  type ResourceRequest,
  writeResponse,
} from './request-scope.js';

export async function handleCreate(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const decoded = await decodeRequestBody(ctx, deps, store.def);
  const wctx = updateWriteContext(ctx, query, 'CreateOptions', decoded);
  const created = await withWarnings(
    ctx,
    wctx,
    store.create(info.namespace, canonicalBody(info, store.def, decoded.value), wctx),
  );
  writeResponse(ctx, deps, 201, created, store.def);
}
