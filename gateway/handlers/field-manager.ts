// Who a write is recorded as in metadata.managedFields: the fieldManager parameter, else the first segment of the
// User-Agent (`kubectl/v1.32.0 (linux/amd64) ...` → `kubectl`), as kube-apiserver derives it.
import type { Context } from 'koa';
import { fieldErrors, type FieldError } from '../../api/meta/field-errors.js';
import type { WriteContext } from '../registry/admission-types.js';
import type { DecodeResult } from '../negotiation/serializer.js';
import { userOf } from '../request/user.js';
import { queryBool } from '../request/request-info.js';
import { invalidOptions, writeContext, type OptionsKind } from './request-scope.js';

const MAX_LENGTH = 128;

function checkFieldManager(value: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(value) > MAX_LENGTH) errs.push(fieldErrors.tooLong('fieldManager', value, MAX_LENGTH));
  let i = 0;
  for (const ch of value) {
    if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/u.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErrors.invalid('fieldManager', value, `invalid character U+${code} (at position ${i})`));
    }
    i += Buffer.byteLength(ch);
  }
  return errs;
}

/** The manager of a create, update or non-apply patch. */
export function updateManager(ctx: Context, q: URLSearchParams, kind: OptionsKind): string {
  const given = q.get('fieldManager') ?? '';
  const errs = checkFieldManager(given);
  if (errs.length > 0) throw invalidOptions(kind, errs);
  if (given) return given;
  const agent = ctx.get('user-agent');
  return agent.split('/')[0].slice(0, MAX_LENGTH);
}

/**
 * The context of a create, update or non-apply patch: the write settings' checks first, then the manager's, set
 * into the context's own field (see writeContext for why it is never spread in).
 */
export function updateWriteContext(
  ctx: Context,
  q: URLSearchParams,
  kind: OptionsKind,
  decoded: DecodeResult,
): WriteContext {
  const wctx = writeContext(q, kind, decoded, userOf(ctx), ctx);
  wctx.fieldManager = updateManager(ctx, q, kind);
  return wctx;
}

/** The manager of a server-side apply: required, never derived. */
export function applyManager(q: URLSearchParams): string {
  const given = q.get('fieldManager') ?? '';
  const errs = given ? checkFieldManager(given) : [fieldErrors.required('fieldManager', 'is required for apply patch')];
  if (errs.length > 0) throw invalidOptions('PatchOptions', errs);
  return given;
}

/** `force` belongs to apply patches only. */
export function parseForce(q: URLSearchParams, isApply: boolean): boolean {
  const force = queryBool(q, 'force');
  if (force === undefined) return false;
  if (!isApply)
    throw invalidOptions('PatchOptions', [fieldErrors.forbidden('force', 'may not be specified for non-apply patch')]);
  return force;
}
