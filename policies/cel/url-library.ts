// Kubernetes' URL library: isURL(string), url(string) and the getters of the URL it returns. Parsing follows Go's
// url.ParseRequestURI, which Kubernetes uses: an absolute URL (`scheme:...`) or an absolute path (`/...`); relative
// references are not URLs. The fragment is not split off (the request-URI form has none).
import type { Environment } from '@marcbachmann/cel-js';
import { traversalCost } from './cost-constants.js';
import { define, defineOpaqueType } from './define.js';
import { CelLibraryError } from './errors.js';
import { charge } from './runtime-cost.js';

interface UrlParts {
  href: string;
  scheme: string;
  /** host[:port] as written; IPv6 literals keep their brackets. */
  host: string;
  /** The path with percent-escapes decoded. */
  path: string;
  /** The path as written. */
  rawPath: string;
  rawQuery: string;
}

/** A parsed URL. Its parts live in a private field so expressions reach them only through the getter functions. */
export class CelUrl {
  readonly #parts: UrlParts;

  constructor(parts: UrlParts) {
    this.#parts = parts;
  }

  get href(): string {
    return this.#parts.href;
  }
  get scheme(): string {
    return this.#parts.scheme;
  }
  get host(): string {
    return this.#parts.host;
  }
  get path(): string {
    return this.#parts.path;
  }
  get rawPath(): string {
    return this.#parts.rawPath;
  }
  get rawQuery(): string {
    return this.#parts.rawQuery;
  }

  toPlain(): string {
    return this.#parts.href;
  }
}

export const URL_TYPE = 'kubernetes.URL';

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s;
// Characters Go accepts in a host (RFC 3986 reg-name, IP literals, and the percent sign of escapes).
const HOST = /^[a-zA-Z0-9\-._~!$&'()*+,;=%]*$/;
const PORT = /^\d*$/;

function invalid(): CelLibraryError {
  return new CelLibraryError('invalid_argument', 'URL parse error during conversion from string');
}

// Go refuses ASCII control characters anywhere; a space is fine in the path and query (not in the host).
function hasControl(s: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  return /[\x00-\x1f\x7f]/.test(s);
}

function unescapePath(s: string): string {
  if (/%(?![0-9a-fA-F]{2})/.test(s)) throw invalid();
  try {
    return decodeURIComponent(s);
  } catch {
    // Escapes of bytes that are not UTF-8: decode byte by byte as Go does (the result holds those bytes as chars).
    return s.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

function validateHost(host: string): void {
  let rest = host;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    if (close < 0) throw invalid();
    if (!/^[0-9a-fA-F:.]+(%25.+)?$/.test(rest.slice(1, close))) throw invalid();
    rest = rest.slice(close + 1);
    if (rest !== '' && !(rest.startsWith(':') && PORT.test(rest.slice(1)))) throw invalid();
    return;
  }
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) {
    if (!PORT.test(rest.slice(colon + 1))) throw invalid();
    rest = rest.slice(0, colon);
  }
  if (!HOST.test(rest) || /%(?![0-9a-fA-F]{2})/.test(rest)) throw invalid();
}

/** Parses as Go's url.ParseRequestURI; throws CelLibraryError (without the input) when invalid. */
export function parseUrl(input: string): CelUrl {
  if (hasControl(input)) throw invalid();
  let scheme = '';
  let rest = input;
  if (!input.startsWith('/')) {
    const m = SCHEME.exec(input);
    if (!m) throw invalid();
    scheme = m[1];
    rest = m[2];
  }
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (scheme !== '' && !rest.startsWith('/')) {
    // An opaque URL such as `mailto:someone`: valid, with no host and no path.
    return new CelUrl({ href: input, scheme, host: '', path: '', rawPath: '', rawQuery });
  }
  let host = '';
  if (scheme !== '' && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    host = at < 0 ? authority : authority.slice(at + 1);
    validateHost(host);
  }
  const path = unescapePath(rest);
  return new CelUrl({ href: input, scheme, host, path, rawPath: rest, rawQuery });
}

export function isUrl(input: string): boolean {
  try {
    parseUrl(input);
    return true;
  } catch {
    return false;
  }
}

export function getHostname(u: CelUrl): string {
  const host = u.host;
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

export function getPort(u: CelUrl): string {
  const host = u.host;
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', end);
  return colon < 0 ? '' : host.slice(colon + 1);
}

// Bytes Go leaves unescaped in a path: unreserved characters, sub-delims, ':', '@' and '/'.
const PATH_SAFE = /[a-zA-Z0-9\-._~!$&'()*+,;=:@/]/;

export function getEscapedPath(u: CelUrl): string {
  // Go keeps the path as written when that is a valid escaping of the decoded path.
  if (/^(?:[a-zA-Z0-9\-._~!$&'()*+,;=:@/]|%[0-9a-fA-F]{2})*$/.test(u.rawPath)) return u.rawPath;
  let out = '';
  for (const ch of u.path) {
    out += PATH_SAFE.test(ch)
      ? ch
      : encodeURIComponent(ch).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  return out;
}

function queryUnescape(s: string): string | undefined {
  if (/%(?![0-9a-fA-F]{2})/.test(s)) return undefined;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** Go's url.Query(): pairs separated by `&`; pairs with `;` or bad escapes are dropped. */
export function getQuery(u: CelUrl): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null);
  for (const pair of u.rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = queryUnescape(eq < 0 ? '' : pair.slice(eq + 1));
    if (key === undefined || value === undefined) continue;
    (Object.hasOwn(out, key) ? out[key] : (out[key] = [])).push(value);
  }
  // A plain object, so the library treats it as a map.
  return Object.fromEntries(Object.entries(out));
}

export function registerUrlLibrary(env: Environment): void {
  defineOpaqueType(env, URL_TYPE, CelUrl);
  define(env, 'isURL(string): bool', (s: string) => (charge(traversalCost(s.length)), isUrl(s)));
  define(env, `url(string): ${URL_TYPE}`, (s: string) => (charge(traversalCost(s.length)), parseUrl(s)));
  define(env, `${URL_TYPE}.getScheme(): string`, (u: CelUrl) => u.scheme);
  define(env, `${URL_TYPE}.getHost(): string`, (u: CelUrl) => u.host);
  define(env, `${URL_TYPE}.getHostname(): string`, getHostname);
  define(env, `${URL_TYPE}.getPort(): string`, getPort);
  define(env, `${URL_TYPE}.getEscapedPath(): string`, getEscapedPath);
  define(env, `${URL_TYPE}.getQuery(): map<string, list<string>>`, getQuery);
}
