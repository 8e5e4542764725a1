// Secret: small sensitive payloads. `data` holds base64 on the wire; `stringData` is a write-only convenience that
// the server folds into `data` before storing, so it never appears on reads.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors, FieldPath } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema } from '../../common/object-meta.js';
import { bool, map, str, stringMap } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { applySchemaDefaults } from '../../common/defaulting.js';
import { configKeyProblems, validateImmutablePayload } from '../../common/immutable-data.js';
import { asObj, asStr, immutable } from '../../common/validation-helpers.js';
import { corruptBase64Offset } from '../../common/go-decoding.js';
import { validateSecretType } from './secret-types.js';
import { ageColumn, column, countKeys } from '../../common/printers.js';
import { setOwn } from '../../meta/clone.js';

const MAX_SECRET_SIZE = 1024 * 1024;

const schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Secret',
  description:
    'Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than 1MiB.',
  properties: {
    data: map(
      { type: 'string', format: 'byte', description: '' },
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values are base64 encoded.",
    ),
    stringData: stringMap(
      'Write-only convenience: non-binary secret data in string form, merged into data on write (overriding it); never output when reading.',
    ),
    type: str('Used to facilitate programmatic handling of secret data.', { default: 'Opaque' }),
    immutable: bool('If set to true, data cannot be updated (only object metadata can be modified). Defaulted to nil.'),
  },
});

/** Folds string values of stringData into data (base64); non-string values stay for the schema to reject. */
function foldStringData(obj: KObject): void {
  const stringData = asObj(obj.stringData);
  if (!stringData) return;
  const data = { ...(asObj(obj.data) ?? {}) };
  const left: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stringData)) {
    // setOwn: "__proto__" is a key like any other, not the map's prototype.
    if (typeof v === 'string') setOwn(data, k, Buffer.from(v, 'utf8').toString('base64'));
    else setOwn(left, k, v);
  }
  obj.data = data;
  if (Object.keys(left).length > 0) obj.stringData = left;
  else delete obj.stringData;
}

function validateSecret(obj: KObject): FieldError[] {
  const errs = validateMetadata(obj, true, 'subdomain');
  let size = 0;
  for (const [k, v] of Object.entries(asObj(obj.data) ?? {})) {
    for (const p of configKeyProblems(k)) errs.push(fieldErrors.invalid(FieldPath.root('data').key(k), k, p));
    if (typeof v === 'string') size += Buffer.from(v, 'base64').length;
  }
  if (size > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong('data', '', MAX_SECRET_SIZE));
  return [...errs, ...validateSecretType(obj)];
}

/** data values are []byte to Go: text that is not padded base64 fails decoding, before validation sees it. */
function undecodableData(obj: KObject): string | undefined {
  for (const v of Object.values(asObj(obj.data) ?? {})) {
    const offset = typeof v === 'string' ? corruptBase64Offset(v) : -1;
    if (offset >= 0) return `illegal base64 data at input byte ${offset}`;
  }
  return undefined;
}

export const secret: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  resource: 'secrets',
  singular: 'secret',
  namespaced: true,
  statusSubresource: false,
  tracksGeneration: false,
  schema,
  decodeProblem: undecodableData,
  defaults: (obj) => applySchemaDefaults(schema, obj),
  prepareForCreate: foldStringData,
  prepareForUpdate: (obj) => foldStringData(obj),
  validate: validateSecret,
  validateUpdate: (obj, old) => [
    ...immutable('type', obj.type, old.type),
    ...validateImmutablePayload(obj, old, ['data']),
  ],
  selectableFields: (obj) => ({ type: asStr(obj.type) ?? '' }),
  tableColumns: [
    column('Type', 'Used to facilitate programmatic handling of secret data.', (obj) => asStr(obj.type) ?? ''),
    column('Data', 'Data contains the secret data.', (obj) => countKeys(obj.data)),
    ageColumn,
  ],
};
