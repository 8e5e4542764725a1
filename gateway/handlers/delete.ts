import type { Context } from 'koa';
import type { WriteContext } from '../registry/admission-types.js';
import type { FeatureGates } from '../server/feature-gates.js';
import { isDryRun, readDeleteOptions } from './delete-options.js';
import { inRequestedGroup } from '../request/group-alias.js';
import {
  withWarnings,
  auditAnnotator,
  type HandlerDeps,
  type ResourceRequest,
  successStatus,
  writeResponse,
} from './request-scope.js';
import { userOf } from '../request/user.js';

export async function handleDelete(
  ctx: Context,
  deps: HandlerDeps & { features?: FeatureGates },
  req: ResourceRequest,
): Promise<void> {
  const { info, store } = req;
  const options = await readDeleteOptions(ctx, deps, deps.features);
  const wctx: WriteContext = {
    user: userOf(ctx),
    dryRun: isDryRun(options),
    fieldValidation: 'Ignore',
    duplicateFields: [],
    warnings: [],
    fieldManager: undefined,
    annotate: auditAnnotator(ctx),
  };
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
