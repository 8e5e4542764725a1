// The one ajv instance all kinds compile against, taught the OpenAPI/Kubernetes dialect of api/schema.ts:
// x-kubernetes-int-or-string validates, the other x-kubernetes-* markers are annotations, and the formats the
// kinds use are defined (unknown formats would otherwise be ignored silently with strict: false).
import { Ajv } from 'ajv';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const ANNOTATIONS = [
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
  'x-kubernetes-group-version-kind',
];

// `optimize: false`: ajv's optimizer counts the generated code's names (valid15, _errs110...) in plain objects, and
// the first name of each hangs a transition off the map every `{}` starts from. V8 gives that map at most 1536
// transitions, and the ~900 that compiling every kind adds leave it so near the limit, until a full collection clears
// them, that objects built key by key (request headers, Koa's ctx.state, PostgreSQL rows) take a new hidden class
// each. Unoptimized validators keep a few unused variables and are otherwise the same code.
function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    verbose: true,
    validateFormats: true,
    code: { optimize: false },
  });
  ajv.addVocabulary(ANNOTATIONS);
  ajv.addKeyword({
    keyword: 'x-kubernetes-int-or-string',
    schemaType: 'boolean',
    errors: true,
    validate: (enabled: boolean, data: unknown) => !enabled || typeof data === 'string' || Number.isInteger(data),
  });
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s)),
  });
  ajv.addFormat('byte', { type: 'string', validate: (s: string) => BASE64.test(s) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => n >= -2147483648 && n <= 2147483647 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) || Number.isInteger(n) });
  ajv.addFormat('int-or-string', { type: 'string', validate: () => true });
  return ajv;
}

let shared: Ajv | undefined;

export function sharedAjv(): Ajv {
  shared ??= createAjv();
  return shared;
}
