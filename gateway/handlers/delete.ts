import type { Context } from 'koa';
import type { FeatureGates } from '../server/feature-gates.js';
import { deleteWriteContext, readDeleteOptions } from './delete-options.js';
import { inRequestedGroup } from '../request/group-alias.js';
import { withWarnings, type HandlerDeps, type ResourceRequest, successStatus, writeResponse } from './request-scope.js';

export async function handleDelete(
  ctx: Context,
  deps: HandlerDeps & { features?: FeatureGates },
  req: ResourceRequest,
): Promise<void> {
  const { info, store } = req;
  const options = await readDeleteOptions(ctx, deps, deps.features);
  const wctx = deleteWriteContext(ctx, options);
  const { object, deleted } = await withWarnings(ctx, wctx, store.delete(info.namespace, info.name, options, wctx));
  // Upstream answers 202 only when deletion is pending and the client asked for cascading (orphanDependents=false).
  const status = !deleted && options.orphanDependents === false ? 202 : 200;
  if (deleted && !store.def.deleteReturnsObject) {
    writeResponse(
      ctx,
      deps,
      status,
      inRequestedGroup(info, store.def, successStatus(store.def, info.name, object.metadata.uid)),
    );
    return;
  }
  writeResponse(ctx, deps, status, object, store.def);
}
