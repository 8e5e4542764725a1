// The built-in kinds Gatehouse serves, in discovery order (core first, then the named groups).
import type { KindDefinition } from './scheme.js';
import { namespace } from './core/v1/namespace.js';
import { node } from './core/v1/node.js';
import { resourceQuota } from './core/v1/resource-quota.js';
import { secret } from './core/v1/secret.js';
import { configMap } from './core/v1/config-map.js';
import { serviceAccount } from './core/v1/service-account.js';
import { event } from './core/v1/event.js';
import { networkPolicy } from './networking/v1/network-policy.js';
import { replicaSet } from './apps/v1/replica-set.js';
import { cronJob } from './batch/v1/cron-job.js';
import { eventsV1Event } from './events/v1/event.js';
import { role } from './rbac/v1/role.js';
import { clusterRole } from './rbac/v1/cluster-role.js';
import { roleBinding } from './rbac/v1/role-binding.js';
import { clusterRoleBinding } from './rbac/v1/cluster-role-binding.js';
import { apiService } from './apiregistration/v1/api-service.js';
import { validatingAdmissionPolicy } from './admissionregistration/v1/validating-admission-policy.js';
import { validatingAdmissionPolicyBinding } from './admissionregistration/v1/validating-admission-policy-binding.js';
import { validatingWebhookConfiguration } from './admissionregistration/v1/validating-webhook-configuration.js';
import { mutatingWebhookConfiguration } from './admissionregistration/v1/mutating-webhook-configuration.js';
import { customResourceDefinition } from './apiextensions/v1/custom-resource-definition.js';
import { flowSchema } from './flowcontrol/v1/flow-schema.js';
import { priorityLevelConfiguration } from './flowcontrol/v1/priority-level-configuration.js';

export const builtinKinds: KindDefinition[] = [
  namespace,
  node,
  resourceQuota,
  secret,
  configMap,
  serviceAccount,
  event,
  networkPolicy,
  replicaSet,
  cronJob,
  eventsV1Event,
  role,
  clusterRole,
  roleBinding,
  clusterRoleBinding,
  apiService,
  validatingWebhookConfiguration,
  mutatingWebhookConfiguration,
  validatingAdmissionPolicy,
  validatingAdmissionPolicyBinding,
  customResourceDefinition,
  flowSchema,
  priorityLevelConfiguration,
];
