import type { Context } from 'koa';
import { selectionPredicate } from '../registry/predicate.js';
import { listRead } from './resource-version.js';
import type { HandlerDeps, ResourceRequest } from './request-scope.js';
import { writeListResponse } from './list-response.js';

export async function handleList(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const { read, limit, continue: token } = listRead(query);
  const predicate = selectionPredicate(store.def, query);
  const list = await store.list(info.namespace, { read, limit, continue: token, predicate });
  await writeListResponse(ctx, deps, list, store.def);
}
