// The typed Secrets: a type promises keys in `data` that consumers (image pulls, ingress TLS, token mounts) read
// without checking, so the server refuses a Secret of such a type without them, as kube-apiserver does. Each type
// is accepted under its `kubernetes.io/` name, which kubectl and charts write, and under its `platform.io/` name.
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors, FieldPath } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { goJsonObjectError } from '../../common/go-decoding.js';
import { asObj, asStr } from '../../common/validation-helpers.js';

const PREFIXES = ['kubernetes.io/', 'platform.io/'];

/** The annotation a service-account-token Secret names its ServiceAccount with, under the type's own prefix. */
const SERVICE_ACCOUNT_NAME_ANNOTATION = 'service-account.name';

const REDACTED = '<secret contents redacted>';

type TypeRule = (data: Record<string, unknown>, obj: KObject, prefix: string) => FieldError[];

const dataKey = (key: string): FieldPath => FieldPath.root('data').key(key);
const has = (data: Record<string, unknown>, key: string): boolean => Object.hasOwn(data, key);
const decoded = (data: Record<string, unknown>, key: string): Buffer => Buffer.from(asStr(data[key]) ?? '', 'base64');

function jsonConfig(key: string): TypeRule {
  return (data) => {
    if (!has(data, key)) return [fieldErrors.required(dataKey(key))];
    const problem = goJsonObjectError(decoded(data, key));
    return problem ? [fieldErrors.invalid(dataKey(key), REDACTED, problem)] : [];
  };
}

const RULES: Record<string, TypeRule> = {
  'service-account-token': (_data, obj, prefix) => {
    const annotations = asObj(obj.metadata.annotations) ?? {};
    // Either spelling names the account: a client may set the one it knows on a type of the other.
    if (PREFIXES.some((p) => asStr(annotations[p + SERVICE_ACCOUNT_NAME_ANNOTATION]))) return [];
    return [
      fieldErrors.required(
        FieldPath.root('metadata')
          .child('annotations')
          .key(prefix + SERVICE_ACCOUNT_NAME_ANNOTATION),
      ),
    ];
  },
  dockercfg: jsonConfig('.dockercfg'),
  dockerconfigjson: jsonConfig('.dockerconfigjson'),
  // Either credential may be empty, but one of the two keys must be there.
  'basic-auth': (data) =>
    has(data, 'username') || has(data, 'password')
      ? []
      : [fieldErrors.required(dataKey('username')), fieldErrors.required(dataKey('password'))],
  'ssh-auth': (data) =>
    decoded(data, 'ssh-privatekey').length === 0 ? [fieldErrors.required(dataKey('ssh-privatekey'))] : [],
  // Presence only: the server does not parse the PEM, a consumer that needs it does.
  tls: (data) => ['tls.crt', 'tls.key'].filter((k) => !has(data, k)).map((k) => fieldErrors.required(dataKey(k))),
};

/** The errors of the keys a Secret's type requires; none for Opaque and for types the server does not know. */
export function validateSecretType(obj: KObject): FieldError[] {
  const type = asStr(obj.type) ?? '';
  const prefix = PREFIXES.find((p) => type.startsWith(p));
  if (prefix === undefined || !Object.hasOwn(RULES, type.slice(prefix.length))) return [];
  return RULES[type.slice(prefix.length)](asObj(obj.data) ?? {}, obj, prefix);
}
