// Virtual resources: create-only kinds that are computed from the request and never stored (the review kinds:
// SelfSubjectReview, the access reviews; TokenReview... later). A POST on the collection path (under
// /namespaces/<ns>/ for namespaced ones) answers 201 with what create() returns; every other verb is a 405.
// All are listed in discovery with verbs [create], those at an alias group after our own groups.
import type { Context } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { isObject } from '../../api/meta/types.js';
import type { UserInfo } from '../../api/meta/user.js';
import {
  SELF_SUBJECT_REVIEW_GROUP,
  SELF_SUBJECT_REVIEW_GROUP_ALIASES,
  SELF_SUBJECT_REVIEW_KIND,
  SELF_SUBJECT_REVIEW_RESOURCE,
  SELF_SUBJECT_REVIEW_SCHEMA,
  SELF_SUBJECT_REVIEW_SINGULAR,
  SELF_SUBJECT_REVIEW_VERSION,
} from '../../api/authentication/v1/self-subject-review.js';
import type { Authorizer, CallerGone } from '../../policies/authorizer.js';
import type { JSONSchema } from '../../api/schema.js';
import type { CreateOnlyKind } from '../../api/openapi/definitions.js';
import { clientGoneSignal } from '../server/connection.js';
import type { RequestInfo } from '../request/request-info.js';
import { accessReviewResources, type CanonicalGroup } from './access-reviews.js';
import { userOf } from '../request/user.js';
import { decodeRequestBody, writeResponse, type HandlerDeps } from './request-scope.js';

export interface VirtualCreateContext {
  user: UserInfo;
  /** The path's namespace (namespaced resources only; '' otherwise). */
  namespace: string;
  /** The client-gone signal, for reviews that ask a slow authorizer (which then stops waiting). */
  callerGone?: CallerGone;
  /** The decoded body; its apiVersion and kind, when present, are already checked against the path. */
  body: unknown;
}

export interface VirtualResource {
  group: string;
  version: string;
  /** Plural, as in the URL. */
  resource: string;
  singular: string;
  kind: string;
  /** Namespaced ones are served only under /namespaces/<ns>/ (LocalSubjectAccessReview). */
  namespaced: boolean;
  /**
   * Set on the copy served at a `*.k8s.io` alias group (the paths typed clients hard-code): the group it is an alias
   * of. Requests there are authorized in the alias group; discovery lists alias groups after ours.
   */
  aliasOf?: string;
  /** The kind's schema, for the OpenAPI documents only (create() checks what it reads). */
  schema?: JSONSchema;
  /** The response object (or a promise of it), answered with 201; may throw a StatusError (422 for an invalid spec). */
  create(ctx: VirtualCreateContext): unknown;
}

export interface VirtualResources {
  lookup(group: string, version: string, resource: string): VirtualResource | undefined;
  /** The resources discovery lists, in registration order. */
  listed(): VirtualResource[];
}

export function createVirtualResources(resources: VirtualResource[]): VirtualResources {
  const byKey = new Map<string, VirtualResource>();
  for (const r of resources) {
    const key = `${r.group}/${r.version}/${r.resource}`;
    if (byKey.has(key)) throw new Error(`virtual resource ${key} registered twice`);
    byKey.set(key, r);
  }
  return {
    lookup: (group, version, resource) => byKey.get(`${group}/${version}/${resource}`),
    listed: () => resources,
  };
}

/** The virtual resources with a schema, as the OpenAPI documents describe them. */
export function documentedVirtualResources(resources: VirtualResource[]): CreateOnlyKind[] {
  return resources.flatMap((r) =>
    r.schema
      ? [
          {
            group: r.group,
            version: r.version,
            kind: r.kind,
            resource: r.resource,
            namespaced: r.namespaced,
            schema: r.schema,
          },
        ]
      : [],
  );
}

export function virtualApiVersion(r: Pick<VirtualResource, 'group' | 'version'>): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

/** Serves one request whose path names a virtual resource: only POST on the collection, in the resource's scope. */
export async function handleVirtualResource(
  ctx: Context,
  deps: HandlerDeps,
  info: RequestInfo,
  r: VirtualResource,
): Promise<void> {
  // Collection only, in the right scope: a namespace segment on a cluster-scoped kind (or none on a namespaced one)
  // or an item path names nothing served.
  if (Boolean(info.namespace) !== r.namespaced || info.parts.length !== 1) throw errors.pathNotFound();
  const method = ctx.method.toUpperCase();
  if (method !== 'POST') throw errors.methodNotAllowed();
  // Typed clients (kubectl auth whoami, auth can-i, create token) POST protobuf and never retry with JSON after a 415.
  const body = (await decodeRequestBody(ctx, deps, r)).value;
  const apiVersion = virtualApiVersion(r);
  if (!isObject(body)) throw errors.badRequest(`the body of the request must be a ${r.kind} object`);
  // As for stored kinds, absent apiVersion/kind default to the path's; present ones must match it.
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
    throw errors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersion})`,
    );
  }
  if (body.kind !== undefined && body.kind !== r.kind) {
    throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${r.kind})`);
  }
  const result = await r.create({
    user: userOf(ctx),
    body,
    namespace: info.namespace,
    callerGone: () => clientGoneSignal(ctx.req),
  });
  writeResponse(ctx, deps, 201, result);
}

/** SelfSubjectReview at one group version: the caller's identity, in the wire form of authentication/v1 UserInfo. */
function selfSubjectReview(group: string, version: string, aliasOf?: string): VirtualResource {
  return {
    group,
    version,
    aliasOf,
    namespaced: false,
    schema: SELF_SUBJECT_REVIEW_SCHEMA,
    resource: SELF_SUBJECT_REVIEW_RESOURCE,
    singular: SELF_SUBJECT_REVIEW_SINGULAR,
    kind: SELF_SUBJECT_REVIEW_KIND,
    create({ user }) {
      // kube-apiserver's authentication/v1 (and v1beta1) UserInfo spells the name `username`; it is what kubectl reads.
      // Its uid and extra are omitempty there: absent rather than empty.
      const userInfo: Record<string, unknown> = { username: user.name };
      if (user.uid) userInfo.uid = user.uid;
      userInfo.groups = [...user.groups];
      if (user.extra && Object.keys(user.extra).length > 0) userInfo.extra = user.extra;
      return {
        apiVersion: `${group}/${version}`,
        kind: SELF_SUBJECT_REVIEW_KIND,
        metadata: { creationTimestamp: null },
        status: { userInfo },
      };
    },
  };
}

/** The virtual resources Gatehouse serves; the access reviews need the authorizer chain they ask. */
export function builtinVirtualResources(
  deps: { authorizer?: Authorizer; canonicalGroup?: CanonicalGroup } = {},
): VirtualResource[] {
  return [
    selfSubjectReview(SELF_SUBJECT_REVIEW_GROUP, SELF_SUBJECT_REVIEW_VERSION),
    ...SELF_SUBJECT_REVIEW_GROUP_ALIASES.map((a) => selfSubjectReview(a.group, a.version, SELF_SUBJECT_REVIEW_GROUP)),
    ...(deps.authorizer ? accessReviewResources(deps.authorizer, deps.canonicalGroup) : []),
  ];
}
