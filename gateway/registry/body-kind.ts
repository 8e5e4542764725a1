// What a write body must say about its own type, worded as kube-apiserver's decoder reports it. The decoder first
// reads apiVersion and kind (an empty or missing one takes the endpoint's), decodes the body as the kind it names and
// then converts it to the endpoint's kind: a body of another kind fails that conversion, and a body whose type cannot
// even be read is "unrecognized".
import { errors, type StatusError } from '../../api/meta/errors.js';
import { isObject } from '../../api/meta/types.js';
import { apiVersionOf, type KindDefinition } from '../../api/scheme.js';

/** Go's rendering of the struct the decoder reads apiVersion and kind into, as its JSON errors print it. */
const TYPE_META_STRUCT =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Throws the 400 for a body that is not an object of `def`'s kind; returns normally when it is one (or says nothing). */
export function checkBodyKind(body: unknown, def: Pick<KindDefinition, 'group' | 'version' | 'kind'>): void {
  if (!isObject(body))
    throw unrecognized(
      def,
      `json: cannot unmarshal ${goJsonType(body)} into Go value of type ${TYPE_META_STRUCT}`,
      body,
    );
  for (const field of ['apiVersion', 'kind'] as const) {
    const value = body[field];
    if (value !== undefined && value !== null && typeof value !== 'string') {
      throw unrecognized(
        def,
        `json: cannot unmarshal ${goJsonType(value)} into Go struct field .${field} of type string`,
        body,
      );
    }
  }
  const kind = typeof body.kind === 'string' ? body.kind : '';
  const apiVersion =
    typeof body.apiVersion === 'string' && body.apiVersion !== '' ? body.apiVersion : apiVersionOf(def);
  if (kind !== '' && kind !== def.kind) {
    const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
    // Go names the types by package: the versioned one the body was decoded as, and the endpoint's internal one.
    const internalPackage = def.group === '' ? 'core' : def.group.split('.')[0];
    throw errors.badRequest(
      `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${def.kind}: ` +
        `converting (${version}.${kind}) to (${internalPackage}.${def.kind}): unknown conversion`,
    );
  }
  if (apiVersion !== apiVersionOf(def)) {
    throw errors.badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${apiVersionOf(def)})`,
    );
  }
}

function unrecognized(def: Pick<KindDefinition, 'kind'>, reason: string, body: unknown): StatusError {
  const why = `couldn't get version/kind; json parse error: ${reason}`;
  return errors.badRequest(
    `the object provided is unrecognized (must be of type ${def.kind}): ${why} (${summarize(body)})`,
  );
}

function goJsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** The start of the body as upstream quotes it: text when it is an object, hex otherwise, cut at 30 bytes. */
function summarize(body: unknown): string {
  const bytes = Buffer.from(JSON.stringify(body) ?? '');
  if (bytes.length === 0) return '<empty>';
  const head = bytes.subarray(0, 30);
  const text = bytes[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return bytes.length > 30 ? `${text} ...` : text;
}
