// ServiceAccount: an identity for processes in pods. The token controller and bound tokens read it; the
// object itself carries only references.
import type { KindDefinition } from '../../scheme.js';
import { kindSchema, localObjectReferenceSchema, objectReferenceSchema } from '../../common/object-meta.js';
import { arr, bool, mapList } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { ageColumn, column } from '../../common/printers.js';
import { asArr } from '../../common/validation-helpers.js';
import {
  TOKEN_REQUEST_GROUP,
  TOKEN_REQUEST_KIND,
  TOKEN_REQUEST_SUBRESOURCE,
  TOKEN_REQUEST_VERSION,
} from '../../authentication/v1/token-request.js';

const schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  description:
    'ServiceAccount binds together a name understood by users and systems, a principal that can be authenticated and authorized, and a set of secrets.',
  properties: {
    secrets: mapList(
      objectReferenceSchema,
      'name',
      'Secrets in the same namespace that pods running as this service account may use. Deprecated as a source of tokens.',
    ),
    imagePullSecrets: arr(
      localObjectReferenceSchema,
      'References to secrets in the same namespace used for pulling images in pods that reference this ServiceAccount.',
      'atomic',
    ),
    automountServiceAccountToken: bool(
      'Whether pods running as this service account should have an API token automatically mounted; can be overridden at the pod level.',
    ),
  },
});

export const serviceAccount: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  resource: 'serviceaccounts',
  singular: 'serviceaccount',
  namespaced: true,
  shortNames: ['sa'],
  statusSubresource: false,
  tracksGeneration: false,
  createSubresources: {
    [TOKEN_REQUEST_SUBRESOURCE]: {
      group: TOKEN_REQUEST_GROUP,
      version: TOKEN_REQUEST_VERSION,
      kind: TOKEN_REQUEST_KIND,
    },
  },
  schema,
  validate: (obj) => validateMetadata(obj, true, 'subdomain'),
  tableColumns: [
    column(
      'Secrets',
      'Secrets in the same namespace that pods running as this service account may use.',
      (obj) => asArr(obj.secrets).length,
    ),
    ageColumn,
  ],
};
