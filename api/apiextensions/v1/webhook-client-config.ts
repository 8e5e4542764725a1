// The rules of a conversion webhook's clientConfig (upstream's webhook.ValidateWebhookURL and ValidateWebhookService):
// exactly one of url and service, an https URL without user, query or fragment, a service with its names, a path
// starting with a slash and a port in range.
import { fieldErrors, type FieldError, type FieldPath } from '../../meta/field-errors.js';
import { asObj, asStr } from '../../common/validation-helpers.js';
import { dns1123Label, dns1123Subdomain } from '../../meta/validation.js';

function validateUrl(raw: string, at: FieldPath): FieldError[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (e) {
    return [fieldErrors.invalid(at, raw, `url must be a valid URL: ${(e as Error).message}`)];
  }
  const errs: FieldError[] = [];
  if (url.protocol !== 'https:') errs.push(fieldErrors.invalid(at, raw, "'https' is the only allowed URL scheme"));
  if (url.hostname === '') errs.push(fieldErrors.invalid(at, raw, 'host must be specified'));
  if (url.username !== '' || url.password !== '')
    errs.push(fieldErrors.invalid(at, raw, 'user information is not permitted in the URL'));
  if (url.hash !== '' || raw.includes('#'))
    errs.push(fieldErrors.invalid(at, raw, 'fragments are not permitted in the URL'));
  if (url.search !== '' || raw.includes('?'))
    errs.push(fieldErrors.invalid(at, raw, 'query parameters are not permitted in the URL'));
  return errs;
}

function validateServicePath(path: string, at: FieldPath): FieldError[] {
  if (path === '' || path === '/') return [];
  if (!path.startsWith('/')) return [fieldErrors.invalid(at, path, "must start with a '/'")];
  const steps = path.slice(1).replace(/\/$/, '').split('/');
  return steps.flatMap((step, i) =>
    step === ''
      ? [fieldErrors.invalid(at, path, `segment[${i}] may not be empty`)]
      : dns1123Subdomain(step).map((p) => fieldErrors.invalid(at, path, `segment[${i}]: ${p}`)),
  );
}

function validateService(raw: Record<string, unknown>, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = asStr(raw.name) ?? '';
  const namespace = asStr(raw.namespace) ?? '';
  if (name === '') errs.push(fieldErrors.required(at.child('name'), 'service name is required'));
  else for (const p of dns1123Label(name)) errs.push(fieldErrors.invalid(at.child('name'), name, p));
  if (namespace === '') errs.push(fieldErrors.required(at.child('namespace'), 'service namespace is required'));
  else for (const p of dns1123Label(namespace)) errs.push(fieldErrors.invalid(at.child('namespace'), namespace, p));
  errs.push(...validateServicePath(asStr(raw.path) ?? '', at.child('path')));
  const port = raw.port;
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535))
    errs.push(fieldErrors.invalid(at.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  return errs;
}

export function validateWebhookClientConfig(raw: unknown, at: FieldPath): FieldError[] {
  const config = asObj(raw) ?? {};
  const url = asStr(config.url);
  const service = asObj(config.service);
  if ((url === undefined) === (service === undefined))
    return [fieldErrors.required(at, 'exactly one of url or service is required')];
  if (url !== undefined) return validateUrl(url, at.child('url'));
  return validateService(service ?? {}, at.child('service'));
}
