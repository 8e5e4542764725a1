import type { Context } from 'koa';
import { errors } from '../../api/meta/errors.js';
import type { Subresource } from '../registry/store.js';
import { patchFunctionFor } from './patch-types.js';
import { addWarnings, type HandlerDeps, readBody, type ResourceRequest, writeContext, writeResponse } from './request-scope.js';

export async function handlePatch(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const patchFn = patchFunctionFor(ctx.get('content-type') || undefined);
  const body = await readBody(ctx, deps.maxRequestBodyBytes);
  let patch: unknown;
  try {
    patch = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw errors.badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  const wctx = writeContext(query);
  const object = await store.patch(info.namespace, info.name, (current) => patchFn(current, patch, store.def.schema), wctx, info.subresource as Subresource);
  addWarnings(ctx, wctx.warnings);
  writeResponse(ctx, deps, 200, object, store.def);
}
