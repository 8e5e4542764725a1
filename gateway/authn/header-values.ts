// Header access with Go's net/http semantics, for the headers that carry identity (authenticating proxy,
// impersonation). Node joins repeated header lines with ", ", which would split or merge group names that contain
// commas; Go keeps one value per line, and so does this module (through headersDistinct). Deleting has to reach
// every view Node keeps of the headers (the joined map, the per-line map once built, the raw list), so that nothing
// later in the chain, a proxied request included, can read a stripped header back. HTTP/2 requests come without
// the per-line map; one is built from their raw list (pseudo-headers left out) and kept on the request.
import type { IncomingMessage } from 'node:http';

type DistinctHeaders = IncomingMessage['headersDistinct'];

function distinct(req: IncomingMessage): DistinctHeaders {
  const own = req.headersDistinct as DistinctHeaders | undefined;
  if (own) return own;
  const built: DistinctHeaders = Object.create(null);
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (name.startsWith(':')) continue;
    (built[name] ??= []).push(raw[i + 1]);
  }
  Object.defineProperty(req, 'headersDistinct', { value: built, configurable: true, writable: true });
  return built;
}

/** Every value of `name` (case-insensitive), one per header line, in order; [] when absent. */
export function headerValues(req: IncomingMessage, name: string): string[] {
  return distinct(req)[name.toLowerCase()] ?? [];
}

/** Go's Header.Get: the first value of `name`, or '' when absent. */
export function firstHeaderValue(req: IncomingMessage, name: string): string {
  return headerValues(req, name)[0] ?? '';
}

/** The lowercased names of the request's headers. */
export function headerNames(req: IncomingMessage): string[] {
  return Object.keys(distinct(req));
}

/**
 * Whether some header's lowercased name satisfies `match`. Reads the joined map's names, which Node lowercases (and
 * which keeps every name a raw line carries, a dropped duplicate's too): every request asks this three times, and
 * lowercasing the raw names each time cost more than the rest of the check.
 */
export function hasHeader(req: IncomingMessage, match: (lowerName: string) => boolean): boolean {
  // Requests faked in unit tests may have no headers.
  const headers = req.headers ?? {};
  for (const name in headers) if (match(name)) return true;
  return false;
}

/** Removes every header whose lowercased name satisfies `match`. */
export function deleteHeaders(req: IncomingMessage, match: (lowerName: string) => boolean): void {
  if (!hasHeader(req, match)) return;
  // The per-line map needs the deletion only where it exists already: Node's (HTTP/1.1) may have been built, while
  // the one made here for HTTP/2 is built from the raw list, stripped below, whenever it is first asked for.
  // Building it only to delete from it cost every HTTP/2 request that carried a credential.
  if ('headersDistinct' in req) {
    const lines = distinct(req);
    for (const name of Object.keys(lines)) if (match(name)) delete lines[name];
  }
  // The joined map's names are lowercase already (see hasHeader).
  for (const name of Object.keys(req.headers)) if (match(name)) delete req.headers[name];
  const raw = req.rawHeaders;
  let kept = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (match(raw[i].toLowerCase())) continue;
    raw[kept++] = raw[i];
    raw[kept++] = raw[i + 1];
  }
  raw.length = kept;
}

/** Go's url.PathUnescape, keeping the text as it came when it is not valid percent-encoding (as upstream does). */
export function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}
