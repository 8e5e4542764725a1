// Group aliases of stored kinds (KindDefinition.groupAliases): `/apis/rbac.authorization.k8s.io/v1/...` is another
// name for `/apis/rbac.authorization.platform.io/v1/...`. The filter runs before authentication and rewrites the
// request info's group to the canonical one, so authorization, routing, storage and admission see one group and one
// set of objects; the group the client spelled stays in `requestedGroup`. Handlers then translate at the edges with
// the helpers below: bodies in the alias apiVersion are read as ours, and answers (objects with the groups their
// references name, lists, watch events, Tables' embedded objects, Status details and error messages) carry the group
// the client asked in. Discovery and OpenAPI list the aliases with aliasedKinds.
import type { Context, Next } from 'koa';
import { StatusError, isStatusError, qualifiedResource } from '../../api/meta/errors.js';
import { isObject, type KObject } from '../../api/meta/types.js';
import { apiVersionOf, type KindDefinition } from '../../api/scheme.js';
import { requestInfoOf, type RequestInfo } from './request-info.js';

/** alias group → the canonical group and the versions served under the alias. */
export type GroupAliasTable = Map<string, { canonical: string; versions: Set<string> }>;

export function groupAliasTable(kinds: KindDefinition[]): GroupAliasTable {
  const table: GroupAliasTable = new Map();
  for (const def of kinds) {
    for (const alias of def.groupAliases ?? []) {
      const known = table.get(alias);
      if (known !== undefined && known.canonical !== def.group)
        throw new Error(`group alias ${alias} names both ${known.canonical} and ${def.group}`);
      if (known) known.versions.add(def.version);
      else table.set(alias, { canonical: def.group, versions: new Set([def.version]) });
    }
  }
  return table;
}

/** A kind as served at one of its alias groups: `group` is the alias, `aliasOf` the kind's own group. */
export interface AliasedKind extends KindDefinition {
  aliasOf: string;
}

export function isAliasedKind(def: KindDefinition): def is AliasedKind {
  return typeof (def as Partial<AliasedKind>).aliasOf === 'string';
}

/**
 * Each kind as served at each of its alias groups, in the order the kinds and their aliases are declared (names,
 * scope, schema and rules unchanged). Discovery and OpenAPI list these after the kinds themselves.
 */
export function aliasedKinds(kinds: KindDefinition[]): AliasedKind[] {
  return kinds.flatMap((def) =>
    (def.groupAliases ?? []).map((alias) => ({ ...def, group: alias, groupAliases: undefined, aliasOf: def.group })),
  );
}

/**
 * The group authorization sees for `group`: the canonical one for an alias, else itself. Access reviews ask
 * with it, so a review about `rbac.authorization.k8s.io` roles answers as a request at that path would be.
 */
export function canonicalGroupResolver(kinds: KindDefinition[]): (group: string) => string {
  const table = groupAliasTable(kinds);
  return (group) => table.get(group)?.canonical ?? group;
}

/** Rewrites a resource request at an alias group to the canonical group, remembering the one asked for. */
export function resolveGroupAlias(info: RequestInfo, table: GroupAliasTable): void {
  if (!info.isResourceRequest || info.apiPrefix !== 'apis' || table.size === 0) return;
  const alias = table.get(info.apiGroup);
  if (alias === undefined || !alias.versions.has(info.apiVersion)) return;
  info.requestedGroup = info.apiGroup;
  info.apiGroup = alias.canonical;
}

/**
 * Resolves aliases before authentication and authorization run, and words every failure of an alias request (403s of
 * the authorizer included) with the group asked in. It sits inside the status filter, which writes what it throws.
 */
export function createGroupAliasFilter(kinds: KindDefinition[]) {
  const table = groupAliasTable(kinds);
  return async function groupAliasFilter(ctx: Context, next: Next): Promise<void> {
    const info = requestInfoOf(ctx);
    resolveGroupAlias(info, table);
    if (!info.requestedGroup) return next();
    try {
      await next();
    } catch (e) {
      throw errorInRequestedGroup(info, e);
    }
  };
}

/** The apiVersion answers of `def` carry for this request: the alias group's when the path named one. */
export function servedApiVersion(info: RequestInfo | undefined, def: KindDefinition): string {
  return info?.requestedGroup ? `${info.requestedGroup}/${def.version}` : apiVersionOf(def);
}

/**
 * A request body at an alias, read as ours: its apiVersion (the store accepts only the canonical one) and the groups
 * its references name. Server-side apply compares the configuration with the stored object before defaults would
 * normalize those groups, and would otherwise see every reference as changed.
 */
export function canonicalBody<T>(info: RequestInfo, def: KindDefinition, body: T): T {
  if (!info.requestedGroup || !isObject(body)) return body;
  const alias = info.requestedGroup;
  const renamed = body.apiVersion === servedApiVersion(info, def) ? { ...body, apiVersion: apiVersionOf(def) } : body;
  return (
    def.mapReferencedGroups
      ? def.mapReferencedGroups(renamed as unknown as KObject, (g) => (g === alias ? def.group : g))
      : renamed
  ) as T;
}

/**
 * An answer about `def` in the group the client asked in: objects and lists of the kind (and their items), the groups
 * their references name, and the group of a Status's details. Stored objects are shared and frozen, so this copies
 * what it changes.
 */
export function inRequestedGroup(info: RequestInfo | undefined, def: KindDefinition, value: unknown): unknown {
  if (!info?.requestedGroup || !isObject(value)) return value;
  const ours = apiVersionOf(def);
  const theirs = servedApiVersion(info, def);
  if (value.kind === 'Status') {
    const details = value.details;
    if (!isObject(details) || details.group !== def.group) return value;
    return { ...value, details: { ...details, group: info.requestedGroup } };
  }
  if (value.apiVersion !== ours) return value;
  const asked = info.requestedGroup;
  const mapGroup = (group: string): string => (group === def.group ? asked : group);
  const object = (item: Record<string, unknown>): Record<string, unknown> => {
    const renamed = { ...item, apiVersion: theirs };
    return def.mapReferencedGroups ? def.mapReferencedGroups(renamed as KObject, mapGroup) : renamed;
  };
  if (!Array.isArray(value.items)) return object(value);
  return {
    ...value,
    apiVersion: theirs,
    items: value.items.map((item: unknown) => (isObject(item) && item.apiVersion === ours ? object(item) : item)),
  };
}

/**
 * A StatusError about the request's resource (not found, already exists, invalid, forbidden) with the group asked in:
 * its details and the qualified name in its message (`roles.rbac.authorization.k8s.io "x" not found`). A 403's
 * "in API group" keeps the canonical group: that is the group rules must name.
 */
export function errorInRequestedGroup(info: RequestInfo, e: unknown): unknown {
  if (!info.requestedGroup || !isStatusError(e) || !e.details || e.details.group !== info.apiGroup) return e;
  const resource = e.details.kind ?? info.resource;
  const ours = qualifiedResource({ group: info.apiGroup, resource });
  const theirs = qualifiedResource({ group: info.requestedGroup, resource });
  const message = e.message.startsWith(ours) ? theirs + e.message.slice(ours.length) : e.message;
  return new StatusError(e.code, e.reason, message, { ...e.details, group: info.requestedGroup }, e.headers);
}
