// A served version's deprecation. kube-apiserver knows two forms of it: built-in types carry the release that
// deprecated them, the one that stops serving them and their replacement (prerelease-lifecycle-gen's tags), and a
// CRD version carries a `deprecated` flag with an optional text of its own. One type holds both, so that a version of
// any origin (built-in, CRD, aggregated) is announced to clients, the audit log and the metrics the same way.

/** A Kubernetes release, `major.minor`. */
export type Release = `${number}.${number}`;

export interface VersionDeprecation {
  /**
   * The release from which requests are warned; a server of an earlier release announces nothing, as upstream's
   * IsDeprecated. Absent: deprecated in every release (a CRD version's `deprecated: true`).
   */
  deprecatedIn?: Release;
  /** The first release that no longer serves the version (the warning's "unavailable in", the removed release). */
  removedIn?: Release;
  /** What clients should move to. */
  replacement?: { group: string; version: string; kind: string };
  /** Sent instead of the text built from the parts above (a CRD version's `deprecationWarning`). */
  warning?: string;
}

export interface ReleaseNumbers {
  major: number;
  minor: number;
}

/**
 * `major.minor` as numbers. A minor with a suffix counts by its leading digits (`32+` is 32), as upstream reads its
 * own version info; anything else is refused, so that a malformed marker stops the start instead of never warning.
 */
export function parseRelease(release: string): ReleaseNumbers {
  const match = /^(\d+)\.(\d+)/.exec(release);
  if (!match) throw new Error(`release ${JSON.stringify(release)} is not of the form <major>.<minor>`);
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/** Whether a server of release `current` announces the deprecation. */
export function isDeprecatedAt(deprecation: VersionDeprecation, current: ReleaseNumbers): boolean {
  if (deprecation.deprecatedIn === undefined) return true;
  const since = parseRelease(deprecation.deprecatedIn);
  return since.major < current.major || (since.major === current.major && since.minor <= current.minor);
}

/** The removal release as the audit annotation and the metric label carry it (`1.35`), '' when none is known. */
export function removedRelease(deprecation: VersionDeprecation): string {
  if (deprecation.removedIn === undefined) return '';
  const { major, minor } = parseRelease(deprecation.removedIn);
  return `${major}.${minor}`;
}

function groupVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}

/**
 * The warning text in upstream's words and order: `<group>/<version> <Kind> is deprecated`, then ` in v1.X+` when
 * the deprecating release is known, `, unavailable in v1.Y+` when the removing one is, and `; use <group>/<version>
 * <Kind>` when a replacement is. `served` names the version as the client asked for it (an alias group included), and
 * `replacementGroup` the replacement's group in the same spelling.
 */
export function deprecationWarning(
  deprecation: VersionDeprecation,
  served: { group: string; version: string; kind: string },
  replacementGroup = deprecation.replacement?.group ?? '',
): string {
  if (deprecation.warning !== undefined) return deprecation.warning;
  let text = `${groupVersion(served.group, served.version)} ${served.kind} is deprecated`;
  if (deprecation.deprecatedIn !== undefined) {
    const { major, minor } = parseRelease(deprecation.deprecatedIn);
    text += ` in v${major}.${minor}+`;
  }
  if (deprecation.removedIn !== undefined) text += `, unavailable in v${removedRelease(deprecation)}+`;
  const replacement = deprecation.replacement;
  if (replacement !== undefined)
    text += `; use ${groupVersion(replacementGroup, replacement.version)} ${replacement.kind}`;
  return text;
}
