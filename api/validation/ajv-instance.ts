// The one ajv instance all kinds compile against, taught the OpenAPI/Kubernetes dialect of api/schema.ts:
// x-kubernetes-int-or-string validates, the other x-kubernetes-* markers are annotations, and the formats built-in
// kinds use and upstream validates in custom resource schemas are defined (openapi-formats.ts).
import { Ajv } from 'ajv';
import { addOpenApiFormats } from './openapi-formats.js';
import { re2Pattern } from './re2-pattern.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

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

// ajv names the engine in generated code only for standalone output, which we never produce.
const re2RegExp = Object.assign((pattern: string) => re2Pattern(pattern), { code: 're2Pattern' });

function createAjv(): Ajv {
  // Patterns run on RE2 (re2-pattern.ts), as upstream's do: linear in the input whatever a definition's author wrote.
  // No logger: an unknown format in a custom resource's schema is ignored, as upstream's validator ignores it, and
  // the server writes nothing to the console (ajv would warn there once per compilation).
  // No optimizer: it counts the generated code's names (valid15, _errs110...) in plain objects, and the first name of
  // each hangs a transition off the map every `{}` starts from. V8 gives that map at most 1536 transitions, and the
  // ~900 that compiling every kind adds leave it so near the limit, until a full collection clears them, that objects
  // built key by key (request headers, Koa's ctx.state, PostgreSQL rows) take a new hidden class each. Unoptimized
  // validators keep a few unused variables and are otherwise the same code.
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    verbose: true,
    validateFormats: true,
    logger: false,
    code: { regExp: re2RegExp, optimize: false },
  });
  ajv.addVocabulary(ANNOTATIONS);
  ajv.addKeyword({
    keyword: 'x-kubernetes-int-or-string',
    schemaType: 'boolean',
    errors: true,
    validate: (enabled: boolean, data: unknown) => !enabled || typeof data === 'string' || Number.isInteger(data),
  });
  const isDateTime = (s: string) => RFC3339.test(s) && !Number.isNaN(Date.parse(s));
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => n >= -2147483648 && n <= 2147483647 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) || Number.isInteger(n) });
  ajv.addFormat('int-or-string', { type: 'string', validate: () => true });
  addOpenApiFormats(ajv, isDateTime);
  return ajv;
}

let shared: Ajv | undefined;

export function sharedAjv(): Ajv {
  shared ??= createAjv();
  return shared;
}
