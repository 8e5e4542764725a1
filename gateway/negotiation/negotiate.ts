// Content negotiation: which serializer reads a request body, and which serializer plus `as=` transformation
// answers. The serializer table is data (defaultSerializers); later encodings join it without new branches here.
import { errors } from '../../api/meta/errors.js';
import { createCborSerializer } from './cbor.js';
import { createJsonSerializer } from './json.js';
import { createProtobufSerializer } from './protobuf.js';
import type { ResponseTarget, Serializer } from './serializer.js';
import { createYamlSerializer } from './yaml.js';

export interface SerializerOptions {
  /** The CBORServingAndStorage gate: without it there is no CBOR codec at all (415 and 406 as on an older server). */
  cbor?: boolean;
}

/** JSON first: it answers `*\/*`, a missing Accept header and a body without Content-Type. */
export function defaultSerializers(opts: SerializerOptions = {}): Serializer[] {
  const serializers = [createJsonSerializer(), createYamlSerializer(), createProtobufSerializer()];
  if (opts.cbor) serializers.push(createCborSerializer());
  return serializers;
}

export interface MediaRange {
  type: string;
  subtype: string;
  /** Parameter names lowercased, values unquoted; `q` is removed into `q`. */
  params: Record<string, string>;
  q: number;
}

function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    if (c === '\\' && quoted) {
      current += c + (text[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === sep && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unquote(v: string): string {
  return v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1).replace(/\\(.)/g, '$1') : v;
}

/** One media type with parameters (`application/json; charset=utf-8`); undefined when it is not type/subtype. */
export function parseMediaType(text: string): Omit<MediaRange, 'q'> | undefined {
  const [full, ...rawParams] = splitOutsideQuotes(text, ';');
  const m = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\/([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*$/.exec(full);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of rawParams) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = unquote(p.slice(eq + 1).trim());
  }
  return { type: m[1].toLowerCase(), subtype: m[2].toLowerCase(), params };
}

/**
 * Parses an Accept header by RFC 7231 §5.3.2 and orders it by preference: higher q first, then more specific
 * ranges (wildcards last; parameters do not count, as in kube's goautoneg), then header order. Malformed entries
 * are skipped; q=0 entries are dropped (they mean "not this").
 */
export function parseAccept(header: string): MediaRange[] {
  const ranges: Array<MediaRange & { order: number }> = [];
  splitOutsideQuotes(header, ',').forEach((entry, order) => {
    if (entry.trim() === '') return;
    const mt = parseMediaType(entry);
    if (!mt || (mt.type === '*' && mt.subtype !== '*')) return;
    let q = 1;
    if ('q' in mt.params) {
      q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(mt.params.q) ? Number(mt.params.q) : 0;
      delete mt.params.q;
    }
    if (q > 0) ranges.push({ ...mt, q, order });
  });
  const specificity = (r: MediaRange) => (r.type === '*' ? 0 : r.subtype === '*' ? 1 : 2);
  ranges.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
  return ranges.map(({ order: _order, ...r }) => r);
}

const TABLE_GROUPS = new Set(['meta.k8s.io', 'meta.platform.io']);
const META_VERSIONS = new Set(['v1', 'v1beta1']);
const PARTIAL_KINDS = new Set(['PartialObjectMetadata', 'PartialObjectMetadataList']);

/** What a serializer answers with when the client named it `name` (one of its aliases, or its canonical type). */
function mediaTypeOf(s: Serializer, streaming: boolean, name = s.mediaType): string {
  if (!streaming) return name;
  return name === s.mediaType ? s.streamMediaType : s.streamMediaType.replace(s.mediaType, name);
}

/** The kind an answer will hold; serializers that cover only some kinds are passed over without it. */
export interface EncodedKind {
  apiVersion: string;
  kind: string;
}

function coversKind(s: Serializer, encodes: EncodedKind | undefined): boolean {
  return !s.covers || (encodes !== undefined && s.covers(encodes.apiVersion, encodes.kind));
}

/** Serializers the range names, each with the name it matched (so that an alias is echoed back as the client spelled it). */
function candidates(
  range: MediaRange,
  serializers: Serializer[],
  streaming: boolean,
  encodes: EncodedKind | undefined,
): { s: Serializer; name: string }[] {
  const usable = serializers
    .filter((s) => s.streamMediaType !== '' || !streaming)
    .filter((s) => coversKind(s, encodes));
  if (range.type === '*') return usable.map((s) => ({ s, name: s.mediaType }));
  const out: { s: Serializer; name: string }[] = [];
  for (const s of usable) {
    const name = [s.mediaType, ...s.aliases].find((n) => {
      const [type, subtype] = n.toLowerCase().split('/');
      return type === range.type && (range.subtype === '*' || subtype === range.subtype);
    });
    if (name) out.push({ s, name: range.subtype === '*' ? s.mediaType : name });
  }
  return out;
}

export interface ResponseOptions {
  /** The endpoint can render Tables (resource GET, LIST and WATCH). */
  allowTable: boolean;
  /** A watch: only serializers that frame a stream qualify, and contentType is the stream type. */
  streaming?: boolean;
  /** The handler can render PartialObjectMetadata[List]; otherwise such Accept entries are skipped. */
  allowPartialObjectMetadata?: boolean;
  /** apiVersion and kind of the object the answer holds (a Status for errors); see EncodedKind. */
  encodes?: EncodedKind;
  serializers: Serializer[];
}

// Clients send the same few Accept headers over and over (kubectl, informers, the bench), so each answer is kept per
// serializer table, keyed by the header and the options. Client-chosen headers cannot grow it without bound: it
// starts over once full. Refusals (406) are not kept: they are rare, and their error objects are not shared.
const RESPONSE_CACHE_LIMIT = 256;
const responseCache = new WeakMap<Serializer[], Map<string, ResponseTarget>>();

/** Chooses the response encoding; throws 406 Not Acceptable when no entry of the Accept header can be served. */
export function negotiateResponse(accept: string | undefined, opts: ResponseOptions): ResponseTarget {
  let cache = responseCache.get(opts.serializers);
  if (!cache) {
    cache = new Map();
    responseCache.set(opts.serializers, cache);
  }
  const id = `${accept ?? ''}\u0000${opts.allowTable}|${opts.streaming ?? false}|${opts.allowPartialObjectMetadata ?? false}|${opts.encodes?.apiVersion ?? ''}|${opts.encodes?.kind ?? ''}`;
  let target = cache.get(id);
  if (!target) {
    target = Object.freeze(chooseResponse(accept, opts));
    if (cache.size >= RESPONSE_CACHE_LIMIT) cache.clear();
    cache.set(id, target);
  }
  return target;
}

function chooseResponse(accept: string | undefined, opts: ResponseOptions): ResponseTarget {
  const streaming = opts.streaming ?? false;
  const ranges = accept && accept.trim() !== '' ? parseAccept(accept) : [{ type: '*', subtype: '*', params: {}, q: 1 }];
  for (const range of ranges) {
    const { as, g, v } = range.params;
    // An `as=` transformation answers a meta kind (Table, PartialObjectMetadata...), which is what must be encodable.
    const encodes = as === undefined ? opts.encodes : { apiVersion: `${g ?? ''}/${v ?? ''}`, kind: as };
    const match = candidates(range, opts.serializers, streaming, encodes)[0];
    if (!match) continue;
    const { s: serializer } = match;
    const base = mediaTypeOf(serializer, streaming, match.name);
    // The media-type parameter asks for indented output as the `pretty` query parameter does; only "1" counts.
    if (as === undefined)
      return range.params.pretty === '1'
        ? { serializer, contentType: base, pretty: true }
        : { serializer, contentType: base };
    if (!g || !v || !META_VERSIONS.has(v)) continue;
    if (as === 'Table' && opts.allowTable && TABLE_GROUPS.has(g) && serializer.tables !== false) {
      const apiVersion = `${g}/${v}`;
      const target: ResponseTarget = {
        serializer,
        as,
        tableApiVersion: apiVersion,
        asApiVersion: apiVersion,
        contentType: `${base};as=Table;v=${v};g=${g}`,
      };
      if (range.params.pretty === '1') target.pretty = true;
      return target;
    }
    if (PARTIAL_KINDS.has(as) && opts.allowPartialObjectMetadata && g === 'meta.k8s.io') {
      return {
        serializer,
        as: as as 'PartialObjectMetadata' | 'PartialObjectMetadataList',
        asApiVersion: `${g}/${v}`,
        contentType: `${base};as=${as};v=${v};g=${g}`,
      };
    }
  }
  const supported = opts.serializers
    .filter((s) => coversKind(s, opts.encodes))
    .map((s) => mediaTypeOf(s, streaming))
    .filter((t) => t !== '');
  throw errors.notAcceptable([...new Set(supported)]);
}

const STRICT_TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);

/**
 * Whether a JSON answer is indented, before the media type's own `pretty=1`: the `pretty` query parameter when it
 * has a value, read strictly as Go's strconv.ParseBool reads it (`pretty=yes` is false: the one boolean parameter
 * that is not lenient), else whether the User-Agent is a person's tool (curl, Wget, a browser), as kube-apiserver
 * decides.
 */
export function isPrettyPrint(query: URLSearchParams, userAgent: string): boolean {
  const pretty = query.get('pretty');
  if (pretty) return STRICT_TRUE.has(pretty);
  return userAgent.startsWith('curl') || userAgent.startsWith('Wget') || userAgent.startsWith('Mozilla/5.0');
}

const requestCache = new WeakMap<Serializer[], Map<string, Serializer>>();

/**
 * Chooses the serializer for a request body by its Content-Type. A missing or empty Content-Type reads as the
 * first serializer (JSON), as kube-apiserver does. Parameters such as charset are ignored. Patch media types
 * are not handled here: the patch handler maps them to a serializer itself.
 */
export function negotiateRequest(contentType: string | undefined, serializers: Serializer[]): Serializer {
  if (contentType === undefined || contentType.trim() === '') {
    if (serializers.length > 0) return serializers[0];
    throw errors.unsupportedMediaType(
      contentType ?? '',
      serializers.map((s) => s.mediaType),
    );
  }
  // Kept per header value as the response choices are, for the same reason: every write parses the same few.
  let cache = requestCache.get(serializers);
  if (!cache) {
    cache = new Map();
    requestCache.set(serializers, cache);
  }
  let found = cache.get(contentType);
  if (!found) {
    const mt = parseMediaType(contentType);
    if (mt) {
      const name = `${mt.type}/${mt.subtype}`;
      found = serializers.find((s) => s.mediaType === name || s.aliases.includes(name));
    }
    if (!found)
      throw errors.unsupportedMediaType(
        contentType,
        serializers.map((s) => s.mediaType),
      );
    if (cache.size >= RESPONSE_CACHE_LIMIT) cache.clear();
    cache.set(contentType, found);
  }
  return found;
}
