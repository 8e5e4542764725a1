// ConfigMap: non-confidential configuration. `data` holds UTF-8 strings, `binaryData` base64 bytes; a key may
// appear in only one of them because both become files in the same volume directory.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema } from '../../common/object-meta.js';
import { bool, map, stringMap } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { configKeyProblems, validateImmutablePayload } from '../../common/immutable-data.js';
import { asObj } from '../../common/validation-helpers.js';
import { ageColumn, column, countKeys } from '../../common/printers.js';

const MAX_CONFIGMAP_SIZE = 1024 * 1024;

const schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  description: 'ConfigMap holds configuration data for pods to consume.',
  properties: {
    data: stringMap(
      "Data contains the configuration data. Keys must consist of alphanumeric characters, '-', '_' or '.'; values with non-UTF-8 byte sequences belong in binaryData.",
    ),
    binaryData: map(
      { type: 'string', format: 'byte', description: '' },
      'BinaryData contains the binary data, base64 encoded. Keys may not overlap with the keys in data.',
    ),
    immutable: bool('If set to true, data cannot be updated (only object metadata can be modified). Defaulted to nil.'),
  },
});

function validateConfigMap(obj: KObject): FieldError[] {
  const errs = validateMetadata(obj, true, 'subdomain');
  const data = asObj(obj.data) ?? {};
  const binary = asObj(obj.binaryData) ?? {};
  let size = 0;
  for (const [k, v] of Object.entries(data)) {
    for (const p of configKeyProblems(k)) errs.push(fieldErrors.invalid('data', k, p));
    if (typeof v === 'string') size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  for (const [k, v] of Object.entries(binary)) {
    for (const p of configKeyProblems(k)) errs.push(fieldErrors.invalid('binaryData', k, p));
    if (Object.hasOwn(data, k)) errs.push(fieldErrors.invalid('data', k, 'duplicate of key present in binaryData'));
    if (typeof v === 'string') size += Buffer.byteLength(k) + Buffer.from(v, 'base64').length;
  }
  if (size > MAX_CONFIGMAP_SIZE) errs.push(fieldErrors.tooLong('', '', MAX_CONFIGMAP_SIZE));
  return errs;
}

export const configMap: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  resource: 'configmaps',
  singular: 'configmap',
  namespaced: true,
  shortNames: ['cm'],
  statusSubresource: false,
  tracksGeneration: false,
  schema,
  validate: validateConfigMap,
  validateUpdate: (obj, old) => validateImmutablePayload(obj, old, ['data', 'binaryData']),
  tableColumns: [
    column('Data', 'Data contains the configuration data.', (obj) => countKeys(obj.data) + countKeys(obj.binaryData)),
    ageColumn,
  ],
};
