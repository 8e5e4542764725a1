import type { Context } from 'koa';
import { userOf } from '../filters/user.js';
import type { Subresource } from '../registry/store.js';
import { patchFunctionFor } from './patch-types.js';
import { decodeJsonText } from '../negotiation/json.js';
import { addWarnings, type HandlerDeps, parseFieldValidation, readBody, type ResourceRequest, writeContext, writeResponse } from './request-scope.js';

export async function handlePatch(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const patchFn = patchFunctionFor(ctx.get('content-type') || undefined);
  const fieldValidation = parseFieldValidation(query, 'PatchOptions');
  const body = await readBody(ctx, deps.maxRequestBodyBytes);
  // Patch bodies are JSON; decoding them like any body reports duplicate fields for fieldValidation.
  const decoded = decodeJsonText(body.toString('utf8'), { reportDuplicates: fieldValidation !== 'Ignore' });
  const patch = decoded.value;
  const wctx = writeContext(query, 'PatchOptions', decoded, userOf(ctx));
  const object = await store.patch(info.namespace, info.name, (current) => patchFn(current, patch, store.def.schema), wctx, info.subresource as Subresource);
  addWarnings(ctx, wctx.warnings);
  writeResponse(ctx, deps, 200, object, store.def);
}
