// Every controller `--controllers` may name, with upstream's canonical names and aliases. A new controller adds one
// line here (so the flag accepts it) and one entry in start.ts (so it runs).
import type { ControllerInfo } from './selection.js';

export const NAMESPACE_CONTROLLER = 'namespace-controller';
export const TOKEN_CLEANER_CONTROLLER = 'token-cleaner-controller';
export const BOOTSTRAP_SIGNER_CONTROLLER = 'bootstrap-signer-controller';
export const CLUSTERROLE_AGGREGATION_CONTROLLER = 'clusterrole-aggregation-controller';
export const RESOURCE_QUOTA_CONTROLLER = 'resourcequota-controller';
export const SERVICE_ACCOUNT_CONTROLLER = 'serviceaccount-controller';
export const ROOT_CA_PUBLISHER_CONTROLLER = 'root-ca-certificate-publisher-controller';
// kube-apiserver runs these as post-start hooks of its aggregator, not as kube-controller-manager controllers; the
// aliases are the hooks' names.
export const APISERVICE_AUTOREGISTRATION_CONTROLLER = 'apiservice-autoregistration-controller';
export const APISERVICE_AVAILABILITY_CONTROLLER = 'apiservice-availability-controller';
export const POLICY_STATUS_CONTROLLER = 'validatingadmissionpolicy-status-controller';
// apiextensions-apiserver's naming, establishing, API-approval and finalizer controllers, run as one.
export const CRD_STATUS_CONTROLLER = 'customresourcedefinition-status-controller';
// kube-apiserver's priority-and-fairness-config-producer post-start hook keeps the bootstrap configuration; its APF
// configuration controller writes the FlowSchemas' Dangling condition.
export const APF_BOOTSTRAP_CONTROLLER = 'priority-and-fairness-config-producer';
export const FLOWSCHEMA_STATUS_CONTROLLER = 'flowschema-status-controller';

export const KNOWN_CONTROLLERS: readonly ControllerInfo[] = [
  { name: NAMESPACE_CONTROLLER, aliases: ['namespace'], enabledByDefault: true },
  { name: CLUSTERROLE_AGGREGATION_CONTROLLER, aliases: ['clusterrole-aggregation'], enabledByDefault: true },
  { name: RESOURCE_QUOTA_CONTROLLER, aliases: ['resourcequota'], enabledByDefault: true },
  { name: SERVICE_ACCOUNT_CONTROLLER, aliases: ['serviceaccount'], enabledByDefault: true },
  { name: ROOT_CA_PUBLISHER_CONTROLLER, aliases: ['root-ca-cert-publisher'], enabledByDefault: true },
  {
    name: APISERVICE_AUTOREGISTRATION_CONTROLLER,
    aliases: ['kube-apiserver-autoregistration'],
    enabledByDefault: true,
  },
  {
    name: APISERVICE_AVAILABILITY_CONTROLLER,
    aliases: ['apiservice-status-available-controller'],
    enabledByDefault: true,
  },
  {
    name: POLICY_STATUS_CONTROLLER,
    aliases: ['validatingadmissionpolicy-status'],
    enabledByDefault: true,
  },
  {
    name: CRD_STATUS_CONTROLLER,
    aliases: ['crd-naming', 'crd-establishing', 'crd-finalizer'],
    enabledByDefault: true,
  },
  { name: APF_BOOTSTRAP_CONTROLLER, aliases: ['apf-bootstrap'], enabledByDefault: true },
  { name: FLOWSCHEMA_STATUS_CONTROLLER, aliases: ['flowschema-status'], enabledByDefault: true },
  // Off by default upstream too: clusters opt in with --controllers=*,tokencleaner,bootstrapsigner.
  { name: TOKEN_CLEANER_CONTROLLER, aliases: ['tokencleaner'], enabledByDefault: false },
  { name: BOOTSTRAP_SIGNER_CONTROLLER, aliases: ['bootstrapsigner'], enabledByDefault: false },
];
