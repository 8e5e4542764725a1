// Requests to a deprecated version (KindDefinition.deprecation) announced as kube-apiserver announces them at the
// route (endpoints/installer.go, endpoints/metrics): a Warning header for the client, audit annotations that let the
// operator find the caller, and apiserver_requested_deprecated_apis for the operator's alerts. Every verb is
// announced, watches included, and failures too (a get of a missing object still went to the deprecated version).
// Texts and labels are worked out once from the served kinds, so a request costs one Map lookup.
import type { Context } from 'koa';
import {
  deprecationWarning,
  isDeprecatedAt,
  parseRelease,
  removedRelease,
  type VersionDeprecation,
} from '../../api/deprecation.js';
import type { KindDefinition } from '../../api/scheme.js';
import { addAuditAnnotation } from '../audit/request-audit.js';
import type { DeprecatedApiLabels } from '../metrics/deprecation-metrics.js';
import { groupAliasTable, type GroupAliasTable } from '../request/group-alias.js';
import type { RequestInfo } from '../request/request-info.js';
import { addWarnings } from './warning-headers.js';

// Upstream writes k8s.io/deprecated and k8s.io/removed-release; the annotations of our own server carry our domain,
// as the authorization ones do.
export const DEPRECATED_ANNOTATION = 'platform.io/deprecated';
export const REMOVED_RELEASE_ANNOTATION = 'platform.io/removed-release';

/** Announces the request if it is to a deprecated version; a no-op otherwise. Runs once the route is known. */
export type DeprecationNotices = (ctx: Context, info: RequestInfo) => void;

interface Notice {
  warning: string;
  removedRelease: string;
  statusSubresource: boolean;
  labels: Omit<DeprecatedApiLabels, 'subresource'>;
}

/**
 * `current` is the server's own release (its /version): a version deprecated in a later release is not announced yet.
 * `onRequest` records the metric (absent when the server serves no metrics).
 */
export function createDeprecationNotices(
  kinds: readonly KindDefinition[],
  current: { major: string; minor: string },
  onRequest?: (labels: DeprecatedApiLabels) => void,
): DeprecationNotices {
  const release = parseRelease(`${current.major}.${current.minor}`);
  const aliases = groupAliasTable([...kinds]);
  const notices = new Map<string, Notice>();
  for (const def of kinds) {
    const deprecation = def.deprecation;
    if (deprecation === undefined || !isDeprecatedAt(deprecation, release)) continue;
    const removed = removedRelease(deprecation);
    const labels = { group: def.group, version: def.version, resource: def.resource, removed_release: removed };
    for (const group of [def.group, ...(def.groupAliases ?? [])]) {
      const served = { group, version: def.version, kind: def.kind };
      notices.set(`${group}/${def.version}/${def.resource}`, {
        warning: deprecationWarning(deprecation, served, replacementGroup(deprecation, group, aliases)),
        removedRelease: removed,
        statusSubresource: def.statusSubresource,
        labels,
      });
    }
  }
  if (notices.size === 0) return () => {};
  return (ctx, info) => {
    const notice = notices.get(`${info.requestedGroup ?? info.apiGroup}/${info.apiVersion}/${info.resource}`);
    if (notice === undefined) return;
    // Only the paths that answer the deprecated kind itself: anything else is another kind's route, or none.
    if (info.subresource !== '' && !(info.subresource === 'status' && notice.statusSubresource)) return;
    addWarnings(ctx, [notice.warning]);
    addAuditAnnotation(ctx, DEPRECATED_ANNOTATION, 'true');
    if (notice.removedRelease !== '') addAuditAnnotation(ctx, REMOVED_RELEASE_ANNOTATION, notice.removedRelease);
    onRequest?.({ ...notice.labels, subresource: info.subresource });
  };
}

/**
 * The replacement's group as a client asking in `asked` should write it: the alias itself when the alias also serves
 * the replacement (a client of `widgets.k8s.io/v1beta1` is told `widgets.k8s.io/v1`), else the replacement's own.
 */
function replacementGroup(deprecation: VersionDeprecation, asked: string, aliases: GroupAliasTable): string {
  const replacement = deprecation.replacement;
  if (replacement === undefined) return '';
  const alias = aliases.get(asked);
  return alias !== undefined && alias.canonical === replacement.group && alias.versions.has(replacement.version)
    ? asked
    : replacement.group;
}
