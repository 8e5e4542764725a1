// No built-in version is deprecated in 1.32, so the deprecation tests serve kinds of their own beside the built-in
// ones (startTestGatehouse's `kinds`): Widget at widgets.platform.io (alias widgets.k8s.io) in v1 and in a
// deprecated v1beta1 that names every part of a deprecation, and Gadget, whose only version names the deprecating
// release alone. They borrow ConfigMap's schema and rules; both Widget versions share one set of stored objects, as
// the versions of one resource do, but nothing converts between them: an object keeps the apiVersion it was written in.
import { configMap } from '../../api/core/v1/config-map.js';
import { builtinKinds } from '../../api/register.js';
import type { KindDefinition } from '../../api/scheme.js';

export const WIDGETS = 'widgets.platform.io';
export const WIDGETS_ALIAS = 'widgets.k8s.io';
export const GADGETS = 'gadgets.platform.io';

const widgetV1: KindDefinition = {
  ...configMap,
  group: WIDGETS,
  kind: 'Widget',
  resource: 'widgets',
  singular: 'widget',
  shortNames: undefined,
  groupAliases: [WIDGETS_ALIAS],
  tableColumns: undefined,
};

const widgetV1beta1: KindDefinition = {
  ...widgetV1,
  version: 'v1beta1',
  deprecation: {
    deprecatedIn: '1.30',
    removedIn: '1.35',
    replacement: { group: WIDGETS, version: 'v1', kind: 'Widget' },
  },
};

const gadgetV1alpha1: KindDefinition = {
  ...widgetV1,
  group: GADGETS,
  version: 'v1alpha1',
  kind: 'Gadget',
  resource: 'gadgets',
  singular: 'gadget',
  groupAliases: undefined,
  deprecation: { deprecatedIn: '1.31' },
};

/** The built-in kinds, then the test's (v1 first, so that discovery prefers it). */
export const kindsWithDeprecatedVersions: KindDefinition[] = [...builtinKinds, widgetV1, widgetV1beta1, gadgetV1alpha1];

/** An audit policy at Metadata level for every request but health checks and scrapes: where deprecations are read. */
export const DEPRECATION_AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/metrics"]
- level: Metadata
`;
