import type { Context } from 'koa';
import { getRead } from './resource-version.js';
import { type HandlerDeps, type ResourceRequest, writeResponse } from './request-scope.js';

export async function handleGet(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const obj = await store.get(info.namespace, info.name, getRead(query));
  writeResponse(ctx, deps, 200, obj, store.def);
}
