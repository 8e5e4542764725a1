// A deprecated version of a definition (`deprecated: true`), announced as built-in deprecated versions are (the
// Warning header, the audit annotation, apiserver_requested_deprecated_apis) with the text upstream's crdHandler
// sends: the version's deprecationWarning, or `<group>/<version> <Kind> is deprecated`, followed by `; use
// <group>/<version> <Kind>` naming the most preferred served version that is neither deprecated nor less preferred.
import type { ServedDefinition, ServedVersion } from '../../api/apiextensions/v1/crd-types.js';
import type { VersionDeprecation } from '../../api/deprecation.js';
import { compareKubeAwareVersions } from '../aggregator/version-order.js';

export function versionDeprecationOf(served: ServedDefinition, version: ServedVersion): VersionDeprecation | undefined {
  if (!version.deprecated) return undefined;
  if (version.deprecationWarning !== undefined) return { warning: version.deprecationWarning };
  const kind = served.names.kind;
  const warning = `${served.group}/${version.name} ${kind} is deprecated`;
  const replacement = served.versions
    .filter((v) => v.served && !v.deprecated && compareKubeAwareVersions(v.name, version.name) > 0)
    .sort((a, b) => compareKubeAwareVersions(b.name, a.name))[0];
  return { warning: replacement ? `${warning}; use ${served.group}/${replacement.name} ${kind}` : warning };
}
