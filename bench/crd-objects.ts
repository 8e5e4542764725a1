// The CustomResourceDefinition the custom-resources scenario serves: an application-like kind whose spec has 20
// fields of every common shape (bounded strings, integers, enums, a pattern, a set, a map-list, int-or-string
// quantities, a free-form map) and 3 x-kubernetes-validations rules, the kind an operator defines; and one object of
// it that passes every check, serialized once.

export const BENCH_VERSION = 'v1';

const spec = {
  type: 'object',
  required: ['image', 'replicas'],
  properties: {
    image: { type: 'string', maxLength: 256 },
    replicas: { type: 'integer', minimum: 0, maximum: 100 },
    minReplicas: { type: 'integer', minimum: 0, maximum: 100, default: 1 },
    port: { type: 'integer', minimum: 1, maximum: 65535 },
    protocol: { type: 'string', enum: ['TCP', 'UDP', 'SCTP'], default: 'TCP' },
    enabled: { type: 'boolean' },
    weight: { type: 'number', minimum: 0, maximum: 1 },
    tier: { type: 'string', enum: ['small', 'medium', 'large'] },
    owner: { type: 'string', maxLength: 63, pattern: '^[a-z][a-z0-9-]*$' },
    schedule: { type: 'string', maxLength: 64 },
    timeoutSeconds: { type: 'integer', minimum: 1, maximum: 3600 },
    retries: { type: 'integer', minimum: 0, maximum: 10 },
    priority: { type: 'integer', format: 'int32' },
    notes: { type: 'string', maxLength: 1024 },
    createdAt: { type: 'string', format: 'date-time' },
    annotations: { type: 'object', additionalProperties: { type: 'string', maxLength: 256 }, maxProperties: 32 },
    tags: {
      type: 'array',
      maxItems: 16,
      items: { type: 'string', maxLength: 63 },
      'x-kubernetes-list-type': 'set',
    },
    env: {
      type: 'array',
      maxItems: 32,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', maxLength: 128 }, value: { type: 'string', maxLength: 1024 } },
      },
    },
    resources: {
      type: 'object',
      properties: {
        cpu: { 'x-kubernetes-int-or-string': true },
        memory: { 'x-kubernetes-int-or-string': true },
      },
    },
    strategy: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: ['Recreate', 'RollingUpdate'] },
        maxSurge: { type: 'integer', minimum: 0, maximum: 10 },
      },
    },
  },
  'x-kubernetes-validations': [
    { rule: 'self.minReplicas <= self.replicas', message: 'minReplicas must not exceed replicas' },
    { rule: "self.replicas <= 50 || self.tier == 'large'", message: 'more than 50 replicas need the large tier' },
    {
      rule: "!has(self.env) || self.env.all(e, !e.name.startsWith('KUBERNETES_'))",
      messageExpression: "'env names may not start with KUBERNETES_'",
    },
  ],
};

/** `<plural>.<group>`, Namespaced, one served storage version. */
export function benchDefinition(plural: string, group: string): Record<string, unknown> {
  const kind = plural.charAt(0).toUpperCase() + plural.slice(1, -1);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { plural, kind },
      scope: 'Namespaced',
      versions: [
        {
          name: BENCH_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        },
      ],
    },
  };
}

/** Every spec field but the defaulted ones set, valid against the schema and its rules. */
const objectSpec = JSON.stringify({
  image: 'registry.example.com/team/app:1.2.3',
  replicas: 3,
  port: 8080,
  enabled: true,
  weight: 0.5,
  tier: 'medium',
  owner: 'platform-team',
  schedule: '*/5 * * * *',
  timeoutSeconds: 30,
  retries: 3,
  priority: 100,
  notes: 'n'.repeat(200),
  createdAt: '2026-11-27T10:00:00Z',
  annotations: { 'team.example.com/contact': 'ops@example.com', 'team.example.com/tier': 'gold' },
  tags: ['web', 'frontend', 'public'],
  env: [
    { name: 'LOG_LEVEL', value: 'info' },
    { name: 'CACHE_SIZE', value: '256' },
  ],
  resources: { cpu: '500m', memory: '256Mi' },
  strategy: { type: 'RollingUpdate', maxSurge: 1 },
});

export function benchObjectJson(group: string, kind: string, name: string): string {
  return `{"apiVersion":"${group}/${BENCH_VERSION}","kind":"${kind}","metadata":{"name":"${name}"},"spec":${objectSpec}}`;
}
