// The headers a proxied request and its answer carry. Toward the upstream: the client's headers without the
// hop-by-hop ones (they describe this connection, not the request), without any identity header a client could
// have forged (X-Remote-*, and whatever names --requestheader-* configures), and with the identity this server
// established, in the request-header form the upstream's authenticator reads: X-Remote-User, one X-Remote-Group
// line per group, and X-Remote-Extra-<key> with the key percent-encoded as client-go's SetAuthProxyHeaders does.
import type { IncomingMessage, IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { UserInfo } from '../../api/meta/user.js';
import { STANDARD_REQUEST_HEADERS, type RequestHeaderConfig } from '../authn/request-header.js';

export const REMOTE_USER = 'X-Remote-User';
export const REMOTE_GROUP = 'X-Remote-Group';
export const REMOTE_EXTRA_PREFIX = 'X-Remote-Extra-';

/** RFC 9110's connection-specific fields, which a proxy never forwards (Go's ReverseProxy drops the same list). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // HTTP/2's upgrade-from-HTTP/1.1 settings, connection-specific too.
  'http2-settings',
]);

/** Names listed in a Connection header are hop-by-hop as well, whatever they are. */
function connectionNamed(value: string | string[] | undefined): Set<string> {
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    joined
      .split(',')
      .map((n) => n.trim().toLowerCase())
      .filter((n) => n !== ''),
  );
}

/** Header-name bytes Go's headerKeyEscape keeps as they are: the token characters but `%`. */
const KEEP = /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/;

/** client-go's headerKeyEscape: every byte of the UTF-8 key outside the kept set as %XX, upper-case hex. */
export function escapeExtraKey(key: string): string {
  let out = '';
  for (const byte of Buffer.from(key, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && KEEP.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export interface IdentityHeaderNames {
  /** Lowercased exact names to drop. */
  names: Set<string>;
  /** Lowercased prefixes to drop. */
  prefixes: string[];
}

/** Every identity header a client might forge: the standard X-Remote-* and those --requestheader-* names. */
export function identityHeaderNames(config?: Omit<RequestHeaderConfig, 'allowedNames'>): IdentityHeaderNames {
  const lower = (list: string[]): string[] => list.map((n) => n.toLowerCase());
  const usernames = [...STANDARD_REQUEST_HEADERS.usernameHeaders, ...(config?.usernameHeaders ?? [])];
  const groups = [...STANDARD_REQUEST_HEADERS.groupHeaders, ...(config?.groupHeaders ?? [])];
  return {
    names: new Set(lower([...usernames, ...groups])),
    prefixes: lower([
      'x-remote-',
      ...STANDARD_REQUEST_HEADERS.extraHeaderPrefixes,
      ...(config?.extraHeaderPrefixes ?? []),
    ]),
  };
}

/**
 * The headers to send upstream. `upgrade` keeps Connection and Upgrade, which then are the request's point.
 * Each header line of the client stays one line (a group name may hold a comma).
 */
export function upstreamRequestHeaders(
  req: IncomingMessage,
  user: UserInfo,
  identity: IdentityHeaderNames,
  upgrade: boolean,
  clientAddress?: string,
): OutgoingHttpHeaders {
  const named = connectionNamed(req.headers.connection);
  const out: Record<string, string[]> = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name.startsWith(':') || name === 'host' || name === 'authorization') continue;
    if (identity.names.has(name) || identity.prefixes.some((p) => name.startsWith(p))) continue;
    const keptForUpgrade = upgrade && (name === 'connection' || name === 'upgrade');
    if (!keptForUpgrade && (HOP_BY_HOP.has(name) || named.has(name))) continue;
    (out[name] ??= []).push(raw[i + 1]);
  }
  // Go's ReverseProxy, under upstream's proxy, appends the client's address to X-Forwarded-For: the upstream's audit
  // then names the client, not this server.
  if (clientAddress !== undefined) {
    const prior = out['x-forwarded-for'] ?? [];
    out['x-forwarded-for'] = [prior.length > 0 ? `${prior.join(', ')}, ${clientAddress}` : clientAddress];
  }
  const headers: OutgoingHttpHeaders = {};
  for (const [name, values] of Object.entries(out)) headers[name] = values.length === 1 ? values[0] : values;
  headers[REMOTE_USER] = user.name;
  if (user.groups.length > 0) headers[REMOTE_GROUP] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {}))
    if (values.length > 0) headers[`${REMOTE_EXTRA_PREFIX}${escapeExtraKey(key)}`] = [...values];
  return headers;
}

/** Drops the upstream answer's hop-by-hop headers: this server's connection to its client has its own. */
export function stripHopByHop(headers: IncomingHttpHeaders): void {
  const named = connectionNamed(headers.connection);
  for (const name of Object.keys(headers)) if (HOP_BY_HOP.has(name) || named.has(name)) delete headers[name];
}
