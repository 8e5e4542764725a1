// The default roles and bindings the server keeps in place (upstream's bootstrap policy, cut to the resources
// Gatehouse serves). The user-facing admin, edit and view roles are aggregated: their rules come from the
// ClusterRoles labelled aggregate-to-<role>, so an extension adds to them by labelling its own ClusterRole; edit is
// itself labelled aggregate-to-admin and view aggregate-to-edit, so each includes the next weaker one.
import type { BindingObject, PolicyRule, RoleObject } from './types.js';
import { RBAC_GROUP, RBAC_GROUP_K8S } from './types.js';

export const AUTOUPDATE_ANNOTATION = `${RBAC_GROUP}/autoupdate`;
export const BOOTSTRAPPING_LABEL = 'platform.io/bootstrapping';
export const AGGREGATE_TO = (role: 'admin' | 'edit' | 'view'): string => `${RBAC_GROUP}/aggregate-to-${role}`;

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = [...READ, ...WRITE];

const rule = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({
  apiGroups,
  resources,
  verbs,
});
const urls = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ nonResourceURLs, verbs });

function clusterRole(
  name: string,
  rules: PolicyRule[],
  labels: Record<string, string> = {},
  aggregateFrom?: string,
): RoleObject {
  const role: RoleObject = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...labels },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
    rules,
  };
  if (aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateFrom]: 'true' } }] };
  return role;
}

function clusterRoleBinding(name: string, role: string, groups: string[]): BindingObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: {
      name,
      labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults' },
      annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ kind: 'Group', apiGroup: RBAC_GROUP, name: g })),
  };
}

// Typed clients reach some groups through their `*.k8s.io` aliases, which is the group RBAC then sees.
const AUTHN = ['authentication.platform.io', 'authentication.k8s.io'];
const AUTHZ = ['authorization.platform.io', 'authorization.k8s.io'];
const RBAC = [RBAC_GROUP, RBAC_GROUP_K8S];
const NETWORKING = 'networking.platform.io';
const EVENTS = ['events.platform.io', 'events.k8s.io'];

export const PUBLIC_INFO_URLS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
export const DISCOVERY_URLS = ['/api', '/api/*', '/apis', '/apis/*', ...PUBLIC_INFO_URLS, '/openapi', '/openapi/*'];

// APIServices are named by no role but cluster-admin, as upstream: registering one routes a whole group's requests
// to a server of the registrant's choosing. The admissionregistration kinds (webhook configurations, policies and
// their bindings) neither, as upstream: they decide what every other user may write, and a webhook sees the writes.
export function bootstrapClusterRoles(): RoleObject[] {
  return [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
    clusterRole('admin', [], {}, AGGREGATE_TO('admin')),
    clusterRole('edit', [], { [AGGREGATE_TO('admin')]: 'true' }, AGGREGATE_TO('edit')),
    clusterRole('view', [], { [AGGREGATE_TO('edit')]: 'true' }, AGGREGATE_TO('view')),
    clusterRole(
      'system:aggregate-to-admin',
      [rule(READ_WRITE, RBAC, ['roles', 'rolebindings']), rule(['create'], AUTHZ, ['localsubjectaccessreviews'])],
      { [AGGREGATE_TO('admin')]: 'true' },
    ),
    clusterRole(
      'system:aggregate-to-edit',
      [
        rule(['impersonate'], [''], ['serviceaccounts']),
        rule(WRITE, [''], ['configmaps', 'secrets', 'serviceaccounts']),
        rule(['create'], [''], ['serviceaccounts/token']),
        rule(READ, [''], ['secrets']),
        rule(WRITE, ['apps'], ['replicasets', 'replicasets/scale']),
        rule(WRITE, ['batch'], ['cronjobs']),
        rule(WRITE, [NETWORKING], ['networkpolicies']),
      ],
      { [AGGREGATE_TO('edit')]: 'true' },
    ),
    // View reads everything of a namespace except Secrets (their content is credentials) and RBAC objects.
    clusterRole(
      'system:aggregate-to-view',
      [
        rule(
          READ,
          [''],
          [
            'configmaps',
            'events',
            'serviceaccounts',
            'resourcequotas',
            'resourcequotas/status',
            'namespaces',
            'namespaces/status',
          ],
        ),
        rule(READ, ['apps'], ['replicasets', 'replicasets/scale', 'replicasets/status']),
        rule(READ, ['batch'], ['cronjobs', 'cronjobs/status']),
        rule(READ, [NETWORKING], ['networkpolicies']),
        // The same Events as the core group's, in their newer form.
        rule(READ, EVENTS, ['events']),
      ],
      { [AGGREGATE_TO('view')]: 'true' },
    ),
    clusterRole('system:basic-user', [
      rule(['create'], AUTHN, ['selfsubjectreviews']),
      rule(['create'], AUTHZ, ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    ]),
    clusterRole('system:discovery', [urls(['get'], DISCOVERY_URLS)]),
    clusterRole('system:public-info-viewer', [urls(['get'], PUBLIC_INFO_URLS)]),
    // Scrapers and probes that want the per-check health endpoints and metrics join the group system:monitoring.
    clusterRole('system:monitoring', [
      urls(
        ['get'],
        ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'],
      ),
    ]),
    // What a node agent needs of the resources served here; bound to nobody (the Node authorizer grants it).
    clusterRole('system:node', [
      rule(READ, [''], ['nodes']),
      rule(['create', 'update', 'patch'], [''], ['nodes']),
      rule(['update', 'patch'], [''], ['nodes/status']),
      rule(['create'], AUTHN, ['tokenreviews']),
      rule(['create'], AUTHZ, ['subjectaccessreviews', 'localsubjectaccessreviews']),
    ]),
  ];
}

export function bootstrapClusterRoleBindings(): BindingObject[] {
  return [
    clusterRoleBinding('cluster-admin', 'cluster-admin', ['system:masters']),
    clusterRoleBinding('system:basic-user', 'system:basic-user', ['system:authenticated']),
    clusterRoleBinding('system:discovery', 'system:discovery', ['system:authenticated']),
    clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', [
      'system:authenticated',
      'system:unauthenticated',
    ]),
    clusterRoleBinding('system:monitoring', 'system:monitoring', ['system:monitoring']),
  ];
}
