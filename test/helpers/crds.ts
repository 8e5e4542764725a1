// CustomResourceDefinition bodies for the tests: a sample-controller-like Foo whose parts a test overrides.
export const APIEXT = '/apis/apiextensions.platform.io/v1';
export const APIEXT_K8S = '/apis/apiextensions.k8s.io/v1';

export const fooSchema = (): Record<string, unknown> => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        deploymentName: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      },
      'x-kubernetes-validations': [{ rule: 'self.replicas <= 10', message: 'at most 10 replicas' }],
    },
    status: { type: 'object', properties: { availableReplicas: { type: 'integer' } } },
  },
});

/** A CRD named `<plural>.<group>`; `spec` is merged over the defaults (one served storage version v1alpha1). */
export function crd(
  plural: string,
  group: string,
  opts: { kind?: string; spec?: Record<string, unknown>; annotations?: Record<string, string> } = {},
): Record<string, unknown> {
  const kind = opts.kind ?? plural.charAt(0).toUpperCase() + plural.slice(1).replace(/s$/, '');
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}`, ...(opts.annotations ? { annotations: opts.annotations } : {}) },
    spec: {
      group,
      names: { plural, kind },
      scope: 'Namespaced',
      versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: fooSchema() } }],
      ...opts.spec,
    },
  };
}
