// DeleteOptions come from the body (optional) and the query; the query wins where both speak, as upstream.
import type { Context } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { fieldErrors, type FieldError } from '../../api/meta/field-errors.js';
import { isObject, type DeleteOptions } from '../../api/meta/types.js';
import type { FeatureGates } from '../server/feature-gates.js';
import { hasRequestBody } from '../server/connection.js';
import { queryBool, requestQuery } from '../request/request-info.js';
import {
  auditAnnotator,
  decodeRequestBody,
  type HandlerDeps,
  parseDryRun,
  requestAttributes,
} from './request-scope.js';
import type { WriteContext } from '../registry/admission-types.js';
import { userOf } from '../request/user.js';

const POLICIES = ['Orphan', 'Background', 'Foreground'];
/** What a delete body is read as when its encoding does not say (a protobuf envelope without typeMeta). */
const DELETE_OPTIONS_KIND = { group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' };

export async function readDeleteOptions(
  ctx: Context,
  deps: HandlerDeps,
  features: FeatureGates | undefined,
): Promise<DeleteOptions> {
  let options: DeleteOptions = {};
  if (hasRequestBody(ctx.req)) {
    const decoded = await decodeRequestBody(ctx, deps, DELETE_OPTIONS_KIND).catch((e: unknown) => {
      if (e instanceof Error && /empty/.test(e.message)) return undefined;
      throw e;
    });
    if (decoded !== undefined) {
      if (!isObject(decoded.value))
        throw errors.badRequest('the body of a delete request must be a DeleteOptions object');
      options = decoded.value;
    }
  }
  const q = requestQuery(ctx);
  const grace = q.get('gracePeriodSeconds');
  if (grace !== null && grace !== '') {
    if (!/^-?\d+$/.test(grace))
      throw errors.badRequest(`gracePeriodSeconds: Invalid value: ${JSON.stringify(grace)}: must be an integer`);
    options.gracePeriodSeconds = Number(grace);
  }
  const policy = q.get('propagationPolicy');
  if (policy !== null && policy !== '') options.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  const orphan = queryBool(q, 'orphanDependents');
  if (orphan !== undefined) options.orphanDependents = orphan;
  const ignoreReadErrors = queryBool(q, 'ignoreStoreReadErrorWithClusterBreakingPotential');
  if (ignoreReadErrors !== undefined) options.ignoreStoreReadErrorWithClusterBreakingPotential = ignoreReadErrors;
  const dryRun = q.getAll('dryRun');
  if (dryRun.length > 0) options.dryRun = dryRun;
  validateDeleteOptions(options, features);
  return options;
}

function validateDeleteOptions(o: DeleteOptions, features: FeatureGates | undefined): void {
  const errs: FieldError[] = [];
  if (o.propagationPolicy !== undefined && !POLICIES.includes(o.propagationPolicy)) {
    errs.push(fieldErrors.notSupported('propagationPolicy', o.propagationPolicy, POLICIES));
  }
  if (o.propagationPolicy !== undefined && o.orphanDependents !== undefined) {
    errs.push(
      fieldErrors.invalid(
        'propagationPolicy',
        o.propagationPolicy,
        'orphanDependents and deletionPropagation cannot be both set',
      ),
    );
  }
  if (
    o.gracePeriodSeconds !== undefined &&
    (typeof o.gracePeriodSeconds !== 'number' || !Number.isInteger(o.gracePeriodSeconds))
  ) {
    errs.push(fieldErrors.invalid('gracePeriodSeconds', o.gracePeriodSeconds, 'must be an integer'));
  }
  if (o.preconditions !== undefined && !isObject(o.preconditions))
    errs.push(fieldErrors.invalid('preconditions', o.preconditions, 'must be an object'));
  if (o.dryRun !== undefined) {
    for (const [i, v] of (Array.isArray(o.dryRun) ? o.dryRun : [o.dryRun]).entries()) {
      if (v !== 'All') errs.push(fieldErrors.notSupported(`dryRun[${i}]`, v, ['All']));
    }
  }
  if (o.ignoreStoreReadErrorWithClusterBreakingPotential) {
    if (!features?.enabled('AllowUnsafeMalformedObjectDeletion')) {
      errs.push(
        fieldErrors.forbidden(
          'ignoreStoreReadErrorWithClusterBreakingPotential',
          'not allowed while the feature gate AllowUnsafeMalformedObjectDeletion is disabled',
        ),
      );
    } else {
      for (const f of [
        'dryRun',
        'gracePeriodSeconds',
        'orphanDependents',
        'preconditions',
        'propagationPolicy',
      ] as const) {
        if (o[f] !== undefined)
          errs.push(
            fieldErrors.forbidden(f, 'must be unset when ignoreStoreReadErrorWithClusterBreakingPotential is true'),
          );
      }
    }
  }
  if (errs.length > 0) throw errors.invalid('DeleteOptions', 'meta.k8s.io', '', errs);
}

export function isDryRun(o: DeleteOptions): boolean {
  return parseDryRun(o.dryRun ?? [], 'DeleteOptions');
}

/** The write context of a delete (one object or a collection's): nothing to validate, the caller's dry run. */
export function deleteWriteContext(ctx: Context, options: DeleteOptions): WriteContext {
  return {
    user: userOf(ctx),
    dryRun: isDryRun(options),
    fieldValidation: 'Ignore',
    duplicateFields: [],
    warnings: [],
    fieldManager: undefined,
    annotate: auditAnnotator(ctx),
    // The DeleteOptions themselves reach admission from the store's delete, which is handed them.
    request: requestAttributes(ctx),
  };
}
