// POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token: issues a signed token for the account, as
// kube-apiserver's TokenRequest storage does. The body is a TokenRequest in authentication.k8s.io/v1 (what kubectl's
// typed client sends and expects back) or authentication.platform.io/v1 (answered in kind). Steps, in upstream's
// order: metadata name/namespace must match the path (422); the account must exist (404); defaults (audiences: the
// API audiences; expirationSeconds: 3600); validation (422: at least 10 minutes, at most 2^32 s); the bound object
// (Secret or Node) must exist (404) and match a given uid (409), other kinds are a 400; a validity above
// --service-account-max-token-expiration is shortened with a warning; then the token is signed.
import { errors } from '../../api/meta/errors.js';
import { fieldErrors, type FieldError } from '../../api/meta/field-errors.js';
import { isObject, ownValue, type KObject } from '../../api/meta/types.js';
import {
  DEFAULT_EXPIRATION_SECONDS,
  TOKEN_REQUEST_GROUP,
  TOKEN_REQUEST_KIND,
  TOKEN_REQUEST_PLATFORM_GROUP,
  TOKEN_REQUEST_SUBRESOURCE,
  TOKEN_REQUEST_VERSION,
  groupOf,
  readTokenRequest,
  validateExpiration,
  type BoundObjectReference,
  type TokenRequestInput,
} from '../../api/authentication/v1/token-request.js';
import type { ObjectRefClaim } from '../authn/service-account-claims.js';
import {
  createServiceAccountTokenSigner,
  type ServiceAccountTokenSigner,
  type TokenSubject,
} from '../authn/service-account-signer.js';
import type { ServiceAccountKeys } from '../authn/service-account-keys.js';
import type { ServiceAccountOptions } from '../server/service-account-options.js';
import type { Registry } from '../registry/registry.js';
import type { CreateSubresourceHandler } from './create-subresource.js';

export interface TokenRequestOptions {
  signer: ServiceAccountTokenSigner;
  /** Default audiences of a request that names none (--api-audiences). */
  apiAudiences: string[];
  /** --service-account-max-token-expiration in seconds; 0: no cap. */
  maxExpirationSeconds: number;
  /** Milliseconds since the epoch (tests). */
  now?: () => number;
}

const ACCEPTED_API_VERSIONS = [TOKEN_REQUEST_GROUP, TOKEN_REQUEST_PLATFORM_GROUP].map(
  (g) => `${g}/${TOKEN_REQUEST_VERSION}`,
);

/** The body's metadata, if it names the account at all, must name the one of the path. */
function identityErrorsOf(input: TokenRequestInput, name: string, namespace: string): FieldError[] {
  if (input.metadata.name !== undefined && input.metadata.name !== name)
    return [
      fieldErrors.invalid('metadata.name', input.metadata.name, 'must match the service account name if specified'),
    ];
  if (input.metadata.namespace !== undefined && input.metadata.namespace !== namespace)
    return [
      fieldErrors.invalid(
        'metadata.namespace',
        input.metadata.namespace,
        'must match the service account namespace if specified',
      ),
    ];
  return [];
}

/** The kinds a token may be bound to here: Pod is not served; upstream's webhook configurations are not either. */
const BINDABLE: Record<string, { namespaced: boolean }> = { Secret: { namespaced: true }, Node: { namespaced: false } };

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function resolveBoundObject(
  registry: Registry,
  namespace: string,
  ref: BoundObjectReference,
): Promise<{ kind: 'Secret' | 'Node'; claim: ObjectRefClaim }> {
  const group = groupOf(ref.apiVersion);
  const version = ref.apiVersion.slice(ref.apiVersion.indexOf('/') + 1);
  const bindable = group === '' ? ownValue(BINDABLE, ref.kind) : undefined;
  const store = bindable ? registry.byKind('', ref.kind) : undefined;
  if (!bindable || !store) {
    // Upstream's wording, with Go's GroupVersionKind formatting.
    throw errors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${ref.kind}`);
  }
  const obj: KObject = await store.get(bindable.namespaced ? namespace : '', ref.name);
  const uid = obj.metadata.uid ?? '';
  if (ref.uid !== '' && ref.uid !== uid) {
    throw errors.conflict(
      { group: '', resource: ref.kind },
      ref.name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return { kind: ref.kind as 'Secret' | 'Node', claim: { name: obj.metadata.name ?? ref.name, uid } };
}

export function createTokenRequestHandler(opts: TokenRequestOptions): CreateSubresourceHandler {
  const now = opts.now ?? Date.now;
  return {
    group: '',
    kind: 'ServiceAccount',
    subresource: TOKEN_REQUEST_SUBRESOURCE,
    // Typed clients (kubectl create token) send the body as protobuf in the group they hard-code.
    bodyKind: { group: 'authentication.k8s.io', version: TOKEN_REQUEST_VERSION, kind: TOKEN_REQUEST_KIND },
    async create({ namespace, name, store, registry, body, warnings, admit }) {
      if (!isObject(body)) throw errors.badRequest(`the body of the request must be a ${TOKEN_REQUEST_KIND} object`);
      const apiVersion =
        body.apiVersion === undefined || body.apiVersion === '' ? ACCEPTED_API_VERSIONS[0] : body.apiVersion;
      if (typeof apiVersion !== 'string' || !ACCEPTED_API_VERSIONS.includes(apiVersion)) {
        throw errors.badRequest(
          `the API version in the data (${String(apiVersion)}) does not match the expected API version (${ACCEPTED_API_VERSIONS[0]})`,
        );
      }
      if (body.kind !== undefined && body.kind !== '' && body.kind !== TOKEN_REQUEST_KIND) {
        throw errors.badRequest(
          `the kind in the data (${String(body.kind)}) does not match the expected kind (${TOKEN_REQUEST_KIND})`,
        );
      }
      const group = groupOf(apiVersion);
      const invalid = (objectName: string, errs: FieldError[]) =>
        errors.invalid(TOKEN_REQUEST_KIND, group, objectName, errs);
      const readChecked = (source: Record<string, unknown>): TokenRequestInput => {
        const { input, errors: typeErrors } = readTokenRequest(source);
        if (typeErrors.length > 0) throw invalid(name, typeErrors);
        const identityErrors = identityErrorsOf(input, name, namespace);
        if (identityErrors.length > 0) throw invalid(name, identityErrors);
        return input;
      };
      const defaulted = (input: TokenRequestInput) => {
        const spec = {
          audiences: input.audiences && input.audiences.length > 0 ? input.audiences : [...opts.apiAudiences],
          expirationSeconds: input.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS,
          // Upstream's field has no omitempty: an unbound token says null.
          boundObjectRef: input.boundObjectRef ? { ...input.boundObjectRef } : null,
        };
        const expirationErrors = validateExpiration(spec.expirationSeconds);
        if (expirationErrors.length > 0) throw invalid('', expirationErrors);
        return spec;
      };
      const admissionObject = (input: TokenRequestInput): KObject => ({
        apiVersion,
        kind: TOKEN_REQUEST_KIND,
        metadata: { name, namespace },
        spec: defaulted(input),
      });

      const checked = readChecked(body);
      const account = await store.get(namespace, name);
      const nowMs = now();
      // The request as checked and defaulted, with no token yet: what admission judges (CREATE of serviceaccounts/token).
      // What mutating webhooks make of it is checked and defaulted again, as a body would be.
      const admitted = await admit(
        admissionObject(checked),
        {
          kind: { group: TOKEN_REQUEST_PLATFORM_GROUP, version: TOKEN_REQUEST_VERSION, kind: TOKEN_REQUEST_KIND },
          requestKind: { group, version: TOKEN_REQUEST_VERSION, kind: TOKEN_REQUEST_KIND },
        },
        (mutated) => admissionObject(readChecked(mutated)),
      );
      const { audiences, boundObjectRef, ...spec } = defaulted(readChecked(admitted));
      let { expirationSeconds } = spec;

      const subject: TokenSubject = { namespace, name, uid: account.metadata.uid ?? '' };
      if (boundObjectRef) {
        const bound = await resolveBoundObject(registry, namespace, boundObjectRef);
        if (bound.kind === 'Secret') subject.secret = bound.claim;
        else subject.node = bound.claim;
      }

      const requested = expirationSeconds;
      if (opts.maxExpirationSeconds > 0 && expirationSeconds > opts.maxExpirationSeconds) {
        expirationSeconds = opts.maxExpirationSeconds;
        warnings.push(`requested expiration of ${requested} seconds shortened to ${expirationSeconds} seconds`);
      }

      const { token } = await opts.signer.issue({ subject, audiences, expirationSeconds, now: nowMs });
      const metadata: Record<string, unknown> = { name, namespace, creationTimestamp: rfc3339(nowMs) };
      return {
        kind: TOKEN_REQUEST_KIND,
        apiVersion,
        metadata,
        spec: {
          audiences,
          expirationSeconds,
          boundObjectRef,
        },
        status: { token, expirationTimestamp: rfc3339(nowMs + expirationSeconds * 1000) },
      };
    },
  };
}

/** The token subresource when there is a key to sign with; none otherwise (the path then answers 404). */
export function serviceAccountTokenSubresources(
  keys: ServiceAccountKeys,
  options: ServiceAccountOptions,
): CreateSubresourceHandler[] {
  if (!keys.signing) return [];
  return [
    createTokenRequestHandler({
      signer: createServiceAccountTokenSigner(options.issuers[0], keys.signing),
      apiAudiences: options.apiAudiences,
      maxExpirationSeconds: options.maxExpirationSeconds,
    }),
  ];
}
