// How the server reaches an admission webhook (upstream's WebhookClientConfig): a URL or a Service reference, and the
// CA bundle that verifies it. The rules are k8s.io/apiserver's ValidateWebhookURL and ValidateWebhookService.
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import { dns1123Subdomain } from '../../meta/validation.js';
import { int32, named, obj, str } from '../../common/schema-builders.js';
import { asObj, asStr, type Obj } from '../../common/validation-helpers.js';

const DEF = 'io.platform.api.admissionregistration.v1';
export const DEFAULT_WEBHOOK_PORT = 443;
const URL_FORM = '; desired format: https://host[/path]';

export const webhookClientConfigSchema = named(
  `${DEF}.WebhookClientConfig`,
  obj(
    {
      url: str(
        '`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified.\n\nThe scheme must be "https"; the URL must begin with "https://". A path is optional. Attempting to use a user or basic auth e.g. "user:password@" is not allowed. Fragments ("#...") and query parameters ("?...") are not allowed, either.',
      ),
      service: named(
        `${DEF}.ServiceReference`,
        obj(
          {
            namespace: str('`namespace` is the namespace of the service. Required'),
            name: str('`name` is the name of the service. Required'),
            path: str('`path` is an optional URL path which will be sent in any request to this service.'),
            port: int32(
              'If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).',
            ),
          },
          'ServiceReference holds a reference to Service.legacy.k8s.io',
          ['namespace', 'name'],
        ),
      ),
      caBundle: str(
        "`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used.",
        { format: 'byte' },
      ),
    },
    'WebhookClientConfig contains the information to make a TLS connection with the webhook',
  ),
);

/** Upstream's SetDefaults_ServiceReference. */
export function defaultClientConfig(clientConfig: unknown): void {
  const service = asObj(asObj(clientConfig)?.service);
  if (service) service.port ??= DEFAULT_WEBHOOK_PORT;
}

interface ParsedUrl {
  scheme: string;
  host: string;
  user?: string;
  query: string;
  fragment: string;
}

/**
 * The parts of a URL as Go's url.Parse finds them, or the error it reports. Not WHATWG's URL: it refuses what Go
 * accepts (`https://`, no scheme at all), and upstream's messages are about Go's reading.
 */
function parseLikeGo(raw: string): ParsedUrl | { error: string } {
  const fail = (problem: string) => ({ error: `parse ${JSON.stringify(raw)}: ${problem}` });
  // eslint-disable-next-line no-control-regex -- Go refuses ASCII control characters anywhere in a URL
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail('net/url: invalid control character in URL');
  const badEscape = /%(?![0-9a-fA-F]{2})/.exec(raw);
  if (badEscape) return fail(`invalid URL escape ${JSON.stringify(raw.slice(badEscape.index, badEscape.index + 3))}`);
  const hash = raw.indexOf('#');
  const fragment = hash < 0 ? '' : raw.slice(hash + 1);
  let rest = hash < 0 ? raw : raw.slice(0, hash);
  let scheme = '';
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1].toLowerCase();
    rest = rest.slice(schemeMatch[0].length);
  } else if (rest.startsWith(':')) return fail('missing protocol scheme');
  const question = rest.indexOf('?');
  const query = question < 0 ? '' : rest.slice(question + 1);
  if (question >= 0) rest = rest.slice(0, question);
  if (!rest.startsWith('//')) {
    if (scheme === '' && (rest.split('/')[0] ?? '').includes(':'))
      return fail('first path segment in URL cannot contain colon');
    return { scheme, host: '', query, fragment };
  }
  const authorityEnd = rest.indexOf('/', 2);
  const authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, authorityEnd);
  const at = authority.lastIndexOf('@');
  const host = at < 0 ? authority : authority.slice(at + 1);
  const colon = host.startsWith('[') ? host.indexOf(':', host.indexOf(']')) : host.lastIndexOf(':');
  if (colon >= 0 && !/^:\d*$/.test(host.slice(colon)))
    return fail(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
  return { scheme, host, user: at < 0 ? undefined : authority.slice(0, at), query, fragment };
}

/** Upstream's ValidateWebhookURL with https forced, as admission webhooks have it. */
export function validateWebhookURL(raw: string, at: FieldPath): FieldError[] {
  const u = parseLikeGo(raw);
  if ('error' in u) return [fieldErrors.required(at, `url must be a valid URL: ${u.error}${URL_FORM}`)];
  const errs: FieldError[] = [];
  if (u.scheme !== 'https')
    errs.push(fieldErrors.invalid(at, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host === '') errs.push(fieldErrors.invalid(at, u.host, `host must be specified${URL_FORM}`));
  if (u.user !== undefined) errs.push(fieldErrors.invalid(at, u.user, 'user information is not permitted in the URL'));
  if (u.fragment !== '') errs.push(fieldErrors.invalid(at, u.fragment, 'fragments are not permitted in the URL'));
  if (u.query !== '') errs.push(fieldErrors.invalid(at, u.query, 'query parameters are not permitted in the URL'));
  return errs;
}

/** Each segment of a service path must be a DNS subdomain; `/` and an empty path are fine. */
function validateServicePath(path: string, at: FieldPath): FieldError[] {
  if (path === '' || path === '/') return [];
  if (path === '//') return [fieldErrors.invalid(at, path, 'segment[0] may not be empty')];
  const errs: FieldError[] = [];
  if (!path.startsWith('/')) errs.push(fieldErrors.invalid(at, path, "must start with a '/'"));
  let toCheck = path.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((segment, i) => {
    if (segment === '') errs.push(fieldErrors.invalid(at, path, `segment[${i}] may not be empty`));
    else for (const p of dns1123Subdomain(segment)) errs.push(fieldErrors.invalid(at, path, `segment[${i}]: ${p}`));
  });
  return errs;
}

/** Upstream's ValidateWebhookService (reporting a missing name under `name`, where upstream's swapped arguments do not). */
function validateWebhookService(service: Obj, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!asStr(service.name)) errs.push(fieldErrors.required(at.child('name')));
  if (!asStr(service.namespace)) errs.push(fieldErrors.required(at.child('namespace')));
  const port = service.port ?? DEFAULT_WEBHOOK_PORT;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
    errs.push(fieldErrors.invalid(at.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const path = asStr(service.path);
  if (path !== undefined) errs.push(...validateServicePath(path, at.child('path')));
  return errs;
}

/** Exactly one of url and service, each valid. */
export function validateClientConfig(raw: unknown, at: FieldPath): FieldError[] {
  const clientConfig = asObj(raw) ?? {};
  const url = asStr(clientConfig.url);
  const service = asObj(clientConfig.service);
  if ((url === undefined) === (service === undefined))
    return [fieldErrors.required(at, 'exactly one of url or service is required')];
  return url !== undefined
    ? validateWebhookURL(url, at.child('url'))
    : validateWebhookService(service!, at.child('service'));
}
