// Create-only subresources of stored kinds (ServiceAccount `token` now; others such as `eviction` would come the same
// way): POST <collection>/<name>/<subresource> with a body of another kind, answered 201 with what the registered
// handler returns. The kind declares the subresource (KindDefinition.createSubresources, for discovery); the gateway
// registers its behaviour here, so that the API layer stays free of I/O. A declared subresource without a handler
// (a token subresource with no signing key) is a 404, every method but POST a 405.
import type { Context } from 'koa';
import { errors } from '../../api/meta/errors.js';
import type { UserInfo } from '../../api/meta/user.js';
import { userOf } from '../request/user.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';
import type { KObject } from '../../api/meta/types.js';
import type { WrittenKinds } from '../registry/admission-steps.js';
import {
  decodeRequestBody,
  withWarnings,
  writeContext,
  writeResponse,
  type GroupVersionKind,
  type HandlerDeps,
  type ResourceRequest,
} from './request-scope.js';

export interface CreateSubresourceContext {
  /** The parent object's namespace ('' for cluster-scoped kinds) and name, from the path. */
  namespace: string;
  name: string;
  /** The parent kind's store. */
  store: ResourceStore;
  /** Other kinds the handler reads (bound objects). */
  registry: Registry;
  /** The decoded body (not yet checked: the handler owns its kind). */
  body: unknown;
  user: UserInfo;
  dryRun: boolean;
  /** Collected for `Warning:` response headers. */
  warnings: string[];
  /**
   * Admission of the create, shown as a CREATE of the parent's subresource with `object` (of `kind`): the handler
   * calls it once the object is checked and defaulted, before it acts. Mutating webhooks may change the object;
   * `recheck` applies the handler's checks to what they made of it (a StatusError refuses), before the validating
   * phase. Answers the object to act on.
   */
  admit: (object: KObject, kinds: WrittenKinds, recheck: (mutated: KObject) => KObject) => Promise<KObject>;
}

export interface CreateSubresourceHandler {
  /** The parent kind (group and kind) and the subresource name. */
  group: string;
  kind: string;
  subresource: string;
  /** The answer, sent with 201; throws a StatusError for a bad request. */
  create(ctx: CreateSubresourceContext): Promise<unknown>;
  /** The kind of the request body, so that binary codecs (protobuf from typed clients) know what to decode. */
  bodyKind?: GroupVersionKind;
}

export interface CreateSubresources {
  lookup(group: string, kind: string, subresource: string): CreateSubresourceHandler | undefined;
}

export function createSubresourceRegistry(handlers: CreateSubresourceHandler[]): CreateSubresources {
  const byKey = new Map<string, CreateSubresourceHandler>();
  for (const h of handlers) {
    const key = `${h.group}/${h.kind}/${h.subresource}`;
    if (byKey.has(key)) throw new Error(`create subresource ${key} registered twice`);
    byKey.set(key, h);
  }
  return { lookup: (group, kind, subresource) => byKey.get(`${group}/${kind}/${subresource}`) };
}

export async function handleCreateSubresource(
  ctx: Context,
  deps: HandlerDeps,
  req: ResourceRequest,
  registry: Registry,
  handlers: CreateSubresources | undefined,
): Promise<void> {
  const { info, store, query } = req;
  const def = store.def;
  const handler = handlers?.lookup(def.group, def.kind, info.subresource);
  if (!handler) throw errors.pathNotFound();
  const method = ctx.method.toUpperCase();
  if (method !== 'POST') throw errors.methodNotAllowed();
  const wctx = writeContext(query, 'CreateOptions', undefined, userOf(ctx), ctx);
  const body = (await decodeRequestBody(ctx, deps, handler.bodyKind)).value;
  const namespace = def.namespaced ? info.namespace : '';
  const result = await withWarnings(
    ctx,
    wctx,
    handler.create({
      namespace,
      name: info.name,
      store,
      registry,
      body,
      user: userOf(ctx),
      dryRun: wctx.dryRun,
      warnings: wctx.warnings,
      admit: (object, kinds, recheck) =>
        store.admitCreateThrough(namespace, info.name, info.subresource, object, kinds, wctx, recheck),
    }),
  );
  writeResponse(ctx, deps, 201, result);
}
