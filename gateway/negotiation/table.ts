// Server-side printing: objects → meta Table. Kinds without their own columns get Name and Created At, as the spec's
// default table says; rows carry the object (by default as PartialObjectMetadata) so clients can show namespaces
// and labels.
import { errors } from '../../api/meta/errors.js';
import type { KObject, ListMeta } from '../../api/meta/types.js';
import type { KindDefinition, TableColumn } from '../../api/scheme.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  throw errors.badRequest(
    `includeObject: Unsupported value: ${JSON.stringify(value)}: supported values: "None", "Metadata", "Object"`,
  );
}

const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  priority: 0,
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
  cell: (obj) => obj.metadata.name ?? '',
};

const CREATED_AT_COLUMN: TableColumn = {
  name: 'Created At',
  type: 'date',
  priority: 0,
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: (obj) => obj.metadata.creationTimestamp ?? null,
};

function columnsOf(def: KindDefinition): TableColumn[] {
  if (!def.tableColumns) return [NAME_COLUMN, CREATED_AT_COLUMN];
  return def.tableColumnsIncludeName ? def.tableColumns : [NAME_COLUMN, ...def.tableColumns];
}

function rowObject(obj: KObject, include: IncludeObject, metaApiVersion: string): unknown {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: metaApiVersion, metadata: obj.metadata };
}

export interface TableOptions {
  /** `meta.k8s.io/v1`, `meta.platform.io/v1beta1`, ... as negotiated. */
  apiVersion: string;
  include: IncludeObject;
  /** Watch events after the first omit column definitions? We always send them: kubectl prints headers once. */
  listMeta?: ListMeta;
}

export function toTable(def: KindDefinition, objects: KObject[], opts: TableOptions): Record<string, unknown> {
  const columns = columnsOf(def);
  const metaGroupVersion = opts.apiVersion;
  return {
    kind: 'Table',
    apiVersion: opts.apiVersion,
    metadata: opts.listMeta ?? {},
    columnDefinitions: columns.map(({ name, type, format, description, priority }) => ({
      name,
      type,
      format: format ?? '',
      description,
      priority,
    })),
    rows: objects.map((obj) => {
      const row: Record<string, unknown> = { cells: columns.map((c) => c.cell(obj) ?? null) };
      const object = rowObject(obj, opts.include, metaGroupVersion);
      if (object !== undefined) row.object = object;
      return row;
    }),
  };
}
