// What the flowcontrol tests share: the collection paths under both group names, objects to create, and a
// FlowSchema's Dangling condition read from an object or watch event.
export const FC = '/apis/flowcontrol.apiserver.platform.io/v1';
export const FC_K8S = '/apis/flowcontrol.apiserver.k8s.io/v1';
export const AUTOUPDATE = 'apf.platform.io/autoupdate-spec';

type Spec = Record<string, unknown>;
type Metadata = { name: string; annotations?: Record<string, string> };

const object = (kind: string, metadata: Metadata, spec: Spec, group = 'flowcontrol.apiserver.platform.io') => ({
  apiVersion: `${group}/v1`,
  kind,
  metadata,
  spec,
});

export const flowSchemaBody = (metadata: Metadata, spec: Spec) => object('FlowSchema', metadata, spec);
export const priorityLevelBody = (metadata: Metadata, spec: Spec, group?: string) =>
  object('PriorityLevelConfiguration', metadata, spec, group);

/** The Dangling condition of a FlowSchema (or of the object of a watch event), if it has one. */
export function danglingOf(o: object): Record<string, string> | undefined {
  const status = (o as { status?: { conditions?: Record<string, string>[] } }).status;
  const conditions = status?.conditions ?? [];
  return conditions.find((c) => c.type === 'Dangling');
}
