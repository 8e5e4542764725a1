// Subresources that show the object as another kind (KindDefinition.projectionSubresources: ReplicaSet `scale`).
// GET answers the projection of the stored object. PUT and PATCH build the written projection (the body, or the
// patch applied to the current projection), check it as that kind, carry it into the parent and update the parent
// through its store, so the parent's resourceVersion guard, rules and admission hold; the answer is the projection
// of the result.
import type { Context } from 'koa';
import { errors } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { cloneJson } from '../../api/meta/clone.js';
import type { KindDefinition, ProjectionSubresource } from '../../api/scheme.js';
import { createSchemaValidator, type SchemaValidator } from '../../api/validation/schema-validator.js';
import type { WriteContext } from '../registry/admission-types.js';
import type { Subresource } from '../registry/store.js';
import { admitTypeMeta } from '../registry/type-meta.js';
import { decodeJsonText } from '../negotiation/json.js';
import { updateWriteContext, parseForce } from './field-manager.js';
import { patchFunctionFor, patchMediaType } from '../patch/patch-types.js';
import { getRead } from './resource-version.js';
import {
  withWarnings,
  decodeRequestBody,
  parseFieldValidation,
  readBody,
  writeResponse,
  type HandlerDeps,
  type ResourceRequest,
} from './request-scope.js';

const validators = new WeakMap<ProjectionSubresource, SchemaValidator>();
const tableKinds = new WeakMap<ProjectionSubresource, KindDefinition>();

/** The parent's definition with the projection's columns: what Table conversion of a projection reads. */
function tableKindOf(parent: KindDefinition, projection: ProjectionSubresource): KindDefinition {
  let def = tableKinds.get(projection);
  if (!def) tableKinds.set(projection, (def = { ...parent, tableColumns: projection.tableColumns }));
  return def;
}

function validatorOf(projection: ProjectionSubresource): SchemaValidator {
  let validator = validators.get(projection);
  if (!validator) validators.set(projection, (validator = createSchemaValidator(projection.schema)));
  return validator;
}

export async function handleProjectionSubresource(
  ctx: Context,
  deps: HandlerDeps,
  req: ResourceRequest,
  projection: ProjectionSubresource,
): Promise<void> {
  const { info, store, query } = req;
  const method = ctx.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD') {
    const parent = await store.get(info.namespace, info.name, getRead(query));
    writeResponse(ctx, deps, 200, projection.read(parent), tableKindOf(store.def, projection));
    return;
  }

  let written: (current: KObject) => unknown;
  let wctx: WriteContext;
  if (method === 'PUT') {
    const decoded = await decodeRequestBody(ctx, deps, projection);
    wctx = updateWriteContext(ctx, query, 'UpdateOptions', decoded);
    written = () => cloneJson(decoded.value);
  } else if (method === 'PATCH') {
    // Server-side apply is not served here: its field ownership would have to be mapped onto the parent's fields.
    const patchFn = patchFunctionFor(patchMediaType(ctx.get('content-type') || undefined), []);
    parseForce(query, false);
    const fieldValidation = parseFieldValidation(query, 'PatchOptions');
    const body = await readBody(ctx, deps.maxRequestBodyBytes);
    const decoded = decodeJsonText(body.toString('utf8'), { reportDuplicates: fieldValidation !== 'Ignore' });
    wctx = updateWriteContext(ctx, query, 'PatchOptions', decoded);
    written = (current) => patchFn(projection.read(current), decoded.value, projection.schema);
  } else {
    throw errors.methodNotAllowed();
  }

  const namespace = store.def.namespaced ? info.namespace : '';
  // Unknown and duplicate fields are the projection's, reported once by admitProjection; the parent has none.
  const parentCtx: WriteContext = { ...wctx, duplicateFields: [] };
  const parent = await withWarnings(
    ctx,
    wctx,
    store.patch(
      info.namespace,
      info.name,
      (current) => {
        const accepted = admitProjection(projection, written(current), namespace, info.name, wctx);
        const uid = accepted.metadata.uid;
        if (uid && uid !== current.metadata.uid) {
          throw errors.conflict(
            { group: store.def.group, resource: `${store.def.resource}/${info.subresource}` },
            info.name,
            `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`,
          );
        }
        const next = cloneJson(current);
        projection.write(accepted, next);
        // The projection's resourceVersion is the parent's: a stale one makes the store answer 409.
        const resourceVersion = accepted.metadata.resourceVersion;
        if (resourceVersion) next.metadata.resourceVersion = resourceVersion;
        else delete next.metadata.resourceVersion;
        return next;
      },
      parentCtx,
      info.subresource as Subresource,
    ),
  );
  writeResponse(ctx, deps, 200, projection.read(parent), tableKindOf(store.def, projection));
}

/** A written projection checked as its own kind: type, names, unknown fields, schema and the kind's rules. */
function admitProjection(
  projection: ProjectionSubresource,
  body: unknown,
  namespace: string,
  name: string,
  ctx: WriteContext,
): KObject {
  const obj = admitTypeMeta(body, projection);
  const meta = obj.metadata;
  if (meta.name && meta.name !== name)
    throw errors.badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  if (namespace && meta.namespace && meta.namespace !== namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.name = name;
  if (namespace) meta.namespace = namespace;
  const validator = validatorOf(projection);
  const unknown = validator.prune(obj).map((f) => `unknown field "${f}"`);
  const problems =
    ctx.fieldValidation === 'Ignore' ? [] : [...unknown, ...ctx.duplicateFields.map((f) => `duplicate field "${f}"`)];
  if (problems.length > 0) {
    if (ctx.fieldValidation === 'Strict') throw errors.badRequest(`strict decoding error: ${problems.join(', ')}`);
    ctx.warnings.push(...problems);
  }
  const schemaErrors = validator.validate(obj);
  const fieldErrs = schemaErrors.some((e) => e.type === 'FieldValueTypeInvalid')
    ? schemaErrors
    : [...schemaErrors, ...projection.validate(obj)];
  if (fieldErrs.length > 0) throw errors.invalid(projection.kind, projection.group, name, fieldErrs);
  return obj;
}
