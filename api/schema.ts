// The schema dialect kinds are described in: the OpenAPI v3 subset Kubernetes publishes, with its x-kubernetes
// extensions. One schema per kind drives request validation (types, required, enums), pruning of unknown fields,
// the OpenAPI v3 documents, and later the merge strategies of patches and server-side apply.
export interface JSONSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchema>;
  additionalProperties?: JSONSchema | boolean;
  items?: JSONSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
  nullable?: boolean;
  allOf?: JSONSchema[];
  anyOf?: JSONSchema[];
  oneOf?: JSONSchema[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
}
