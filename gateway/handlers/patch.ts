import type { Context } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { isObject, type KObject } from '../../api/meta/types.js';
import { userOf } from '../request/user.js';
import { canonicalBody } from '../request/group-alias.js';
import type { Subresource } from '../registry/store.js';
import { APPLY_PATCH_TYPE, JSON_PATCH_TYPE, patchFunctionFor, patchMediaType } from '../patch/patch-types.js';
import { decodeJsonText } from '../negotiation/json.js';
import { decodeYamlText } from '../negotiation/yaml.js';
import { APPLY_PATCH_CBOR_TYPE, CBOR_MEDIA_TYPE } from '../negotiation/cbor.js';
import { decodeCbor } from '../negotiation/cbor-decode.js';
import { applyManager, parseForce, updateWriteContext } from './field-manager.js';
import {
  withWarnings,
  type HandlerDeps,
  parseFieldValidation,
  readBody,
  type ResourceRequest,
  writeContext,
  writeResponse,
} from './request-scope.js';
import { auditOf } from '../audit/request-audit.js';

export async function handlePatch(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const mediaType = patchMediaType(ctx.get('content-type') || undefined);
  // apply-patch+cbor exists only with the CBOR codec (the CBORServingAndStorage gate); no other patch type has a CBOR
  // form, so merge-patch+cbor and the like stay 415 either way.
  const applyTypes = deps.serializers.some((s) => s.mediaType === CBOR_MEDIA_TYPE)
    ? [APPLY_PATCH_TYPE, APPLY_PATCH_CBOR_TYPE]
    : [APPLY_PATCH_TYPE];
  if (applyTypes.includes(mediaType)) return handleApply(ctx, deps, req, mediaType);
  const patchFn = patchFunctionFor(mediaType, applyTypes, !req.store.def.noStrategicMergePatch);
  parseForce(query, false);
  const fieldValidation = parseFieldValidation(query, 'PatchOptions');
  const body = await readBody(ctx, deps.maxRequestBodyBytes, deps.readBodyTimeoutMs);
  // Patch bodies are JSON; decoding them like any body reports duplicate fields for fieldValidation.
  const decoded = decodeJsonText(body.toString('utf8'), { reportDuplicates: fieldValidation !== 'Ignore' });
  const patch = decoded.value;
  auditOf(ctx)?.requestPatch(patch);
  const wctx = updateWriteContext(ctx, query, 'PatchOptions', decoded);
  const patched = (current: KObject): unknown => {
    const result = patchFn(current, patch, store.def.schema);
    // Only a JSON patch's copies make a document larger than the body and the object together.
    if (mediaType === JSON_PATCH_TYPE) assertEncodedWithin(result, deps.maxRequestBodyBytes);
    return canonicalBody(info, store.def, result);
  };
  const object = await withWarnings(
    ctx,
    wctx,
    store.patch(info.namespace, info.name, patched, wctx, info.subresource as Subresource),
  );
  writeResponse(ctx, deps, 200, object, store.def);
}

/**
 * Server-side apply: the body is the manager's whole intent for the object, in YAML (JSON being YAML) or CBOR; both
 * decode to the same applied configuration and go through the same apply.
 */
async function handleApply(ctx: Context, deps: HandlerDeps, req: ResourceRequest, mediaType: string): Promise<void> {
  const { info, store, query } = req;
  const fieldManager = applyManager(query);
  const force = parseForce(query, true);
  const fieldValidation = parseFieldValidation(query, 'PatchOptions');
  const body = await readBody(ctx, deps.maxRequestBodyBytes, deps.readBodyTimeoutMs);
  const decoded =
    mediaType === APPLY_PATCH_CBOR_TYPE
      ? decodeCbor(body)
      : decodeYamlText(body.toString('utf8'), { reportDuplicates: fieldValidation !== 'Ignore' });
  const config = decoded.value;
  auditOf(ctx)?.requestPatch(config);
  if (!isObject(config)) throw errors.badRequest('an apply patch must be an object (the applied configuration)');
  if (
    typeof config.apiVersion !== 'string' ||
    config.apiVersion === '' ||
    typeof config.kind !== 'string' ||
    config.kind === ''
  ) {
    throw errors.badRequest('an apply patch must set apiVersion and kind');
  }
  if (config.metadata !== undefined && !isObject(config.metadata)) {
    throw errors.badRequest('metadata of an apply patch must be an object');
  }
  if (
    isObject(config.metadata) &&
    config.metadata.managedFields !== undefined &&
    config.metadata.managedFields !== null
  ) {
    throw errors.badRequest('metadata.managedFields must be nil');
  }
  const wctx = writeContext(query, 'PatchOptions', decoded, userOf(ctx), ctx);
  wctx.fieldManager = fieldManager;
  const { object, created } = await withWarnings(
    ctx,
    wctx,
    store.apply(
      info.namespace,
      info.name,
      canonicalBody(info, store.def, config as KObject),
      force,
      wctx,
      info.subresource as Subresource,
    ),
  );
  writeResponse(ctx, deps, created ? 201 : 200, object, store.def);
}

/** A patched object may be no larger than a body that creates it could be: 413 past that, as for a body. */
function assertEncodedWithin(value: unknown, limit: number): void {
  if (Buffer.byteLength(JSON.stringify(value)) > limit) throw errors.requestEntityTooLarge(limit);
}
