import type { Context } from 'koa';
import { isStatusError } from '../../api/meta/errors.js';
import type { FeatureGates } from '../server/feature-gates.js';
import { selectionPredicate } from '../registry/predicate.js';
import { deleteWriteContext, readDeleteOptions } from './delete-options.js';
import { listRead } from './resource-version.js';
import { withWarnings, type HandlerDeps, type ResourceRequest, writeResponse } from './request-scope.js';

/** Lists what matches, then deletes item by item with the same options; items already gone are skipped. */
export async function handleDeleteCollection(
  ctx: Context,
  deps: HandlerDeps & { features?: FeatureGates },
  req: ResourceRequest,
): Promise<void> {
  const { info, store, query } = req;
  const options = await readDeleteOptions(ctx, deps, deps.features);
  const { read, limit, continue: token } = listRead(query);
  const predicate = selectionPredicate(store.def, query);
  const list = await store.list(info.namespace, { read, limit, continue: token, predicate });
  const wctx = deleteWriteContext(ctx, options);
  for (const item of list.items) {
    try {
      await withWarnings(
        ctx,
        wctx,
        store.delete(item.metadata.namespace ?? '', item.metadata.name ?? '', options, wctx),
      );
    } catch (e) {
      if (!(isStatusError(e) && e.code === 404)) throw e;
    }
  }
  writeResponse(ctx, deps, 200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
}
