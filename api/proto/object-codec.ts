// The protobuf encoding: the `k8s\0` prefix, then a runtime.Unknown whose typeMeta
// names the kind and whose raw field holds the object's own message. This module compiles the schema once, knows which
// kinds have a protobuf form (the one place that decides which types protobuf covers), and converts between bytes and
// the JSON-shaped objects the rest of Gatehouse works with. Handlers of virtual resources call decodeProtobufObject to
// read a protobuf body; the negotiation codec (gateway/negotiation/protobuf.ts) wraps these for the serializer table.
import { performance } from 'node:perf_hooks';
import protobuf from 'protobufjs';
import { errors, isStatusError } from '../meta/errors.js';
import {
  AUTHENTICATION_PROTO,
  AUTHORIZATION_PROTO,
  APPS_PROTO,
  AUTOSCALING_PROTO,
  BATCH_PROTO,
  EVENTS_PROTO,
  NETWORKING_PROTO,
  RBAC_PROTO,
} from './groups-proto.js';
import { CORE_PROTO } from './core-proto.js';
import { APIREGISTRATION_PROTO } from './apiregistration-proto.js';
import { ADMISSIONREGISTRATION_PROTO } from './admissionregistration-proto.js';
import { APIEXTENSIONS_PROTO } from './apiextensions-proto.js';
import { FLOWCONTROL_PROTO } from './flowcontrol-proto.js';
import { POD_PROTO } from './pod-proto.js';
import {
  ENVELOPE_PREFIX,
  isEnvelope,
  jsonToMessage,
  MappingError,
  messageToJson,
  type Message,
} from './json-mapping.js';
import { META_PROTO } from './meta-proto.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const root = new protobuf.Root();
for (const source of [
  META_PROTO,
  CORE_PROTO,
  POD_PROTO,
  APPS_PROTO,
  AUTOSCALING_PROTO,
  EVENTS_PROTO,
  BATCH_PROTO,
  NETWORKING_PROTO,
  RBAC_PROTO,
  AUTHENTICATION_PROTO,
  AUTHORIZATION_PROTO,
  APIREGISTRATION_PROTO,
  ADMISSIONREGISTRATION_PROTO,
  APIEXTENSIONS_PROTO,
  FLOWCONTROL_PROTO,
]) {
  protobuf.parse(source, root, { keepCase: true });
}
root.resolveAll();

const typeOf = (name: string): protobuf.Type => root.lookupType(name);
const UNKNOWN = typeOf('gatehouse.meta.Unknown');
const WATCH_EVENT = typeOf('gatehouse.meta.WatchEvent');

/**
 * Built-in group "families": the group with its `.platform.io` or `.k8s.io` suffix removed, so that the platform groups
 * and the `*.k8s.io` names stock clients hard-code share one schema. Only these groups have a protobuf form: user-defined
 * and aggregated types never do.
 */
const KINDS_BY_FAMILY: Record<string, { versions: string[]; pkg: string; kinds: string[]; lists: boolean }[]> = {
  '': [
    {
      versions: ['v1'],
      pkg: 'core',
      kinds: ['Namespace', 'Node', 'ResourceQuota', 'Secret', 'ConfigMap', 'ServiceAccount', 'Event'],
      lists: true,
    },
  ],
  apps: [{ versions: ['v1'], pkg: 'apps', kinds: ['ReplicaSet'], lists: true }],
  autoscaling: [{ versions: ['v1'], pkg: 'autoscaling', kinds: ['Scale'], lists: false }],
  batch: [{ versions: ['v1'], pkg: 'batch', kinds: ['CronJob'], lists: true }],
  events: [{ versions: ['v1'], pkg: 'events', kinds: ['Event'], lists: true }],
  networking: [{ versions: ['v1'], pkg: 'networking', kinds: ['NetworkPolicy'], lists: true }],
  'rbac.authorization': [
    { versions: ['v1'], pkg: 'rbac', kinds: ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'], lists: true },
  ],
  authentication: [
    {
      versions: ['v1'],
      pkg: 'authentication',
      kinds: ['SelfSubjectReview', 'TokenRequest', 'TokenReview'],
      lists: false,
    },
    // kubectl auth whoami falls back to v1beta1, whose SelfSubjectReview has the same wire form.
    { versions: ['v1beta1'], pkg: 'authentication', kinds: ['SelfSubjectReview'], lists: false },
  ],
  authorization: [
    {
      versions: ['v1'],
      pkg: 'authorization',
      lists: false,
      kinds: ['SubjectAccessReview', 'SelfSubjectAccessReview', 'LocalSubjectAccessReview', 'SelfSubjectRulesReview'],
    },
  ],
  apiregistration: [{ versions: ['v1'], pkg: 'apiregistration', kinds: ['APIService'], lists: true }],
  admissionregistration: [
    {
      versions: ['v1'],
      pkg: 'admissionregistration',
      kinds: [
        'ValidatingWebhookConfiguration',
        'MutatingWebhookConfiguration',
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ],
      lists: true,
    },
  ],
  apiextensions: [{ versions: ['v1'], pkg: 'apiextensions', kinds: ['CustomResourceDefinition'], lists: true }],
  'flowcontrol.apiserver': [
    { versions: ['v1'], pkg: 'flowcontrol', kinds: ['FlowSchema', 'PriorityLevelConfiguration'], lists: true },
  ],
};

/** Kinds of meta/v1 that every built-in group version serves under its own apiVersion (Status is `v1`). */
const META_KINDS = new Map(
  ['Status', 'DeleteOptions', 'WatchEvent', 'PartialObjectMetadata', 'PartialObjectMetadataList'].map((kind) => [
    kind,
    typeOf(`gatehouse.meta.${kind}`),
  ]),
);

const typesByKey = new Map<string, protobuf.Type>();
for (const [family, entries] of Object.entries(KINDS_BY_FAMILY)) {
  for (const { versions, pkg, kinds, lists } of entries) {
    for (const version of versions) {
      for (const kind of kinds) {
        typesByKey.set(`${family}/${version}/${kind}`, typeOf(`gatehouse.${pkg}.${kind}`));
        if (lists) typesByKey.set(`${family}/${version}/${kind}List`, typeOf(`gatehouse.${pkg}.${kind}List`));
      }
    }
  }
}

function family(group: string): string | undefined {
  const f = group.replace(/\.(platform\.io|k8s\.io)$/, '');
  return f === 'meta' || Object.hasOwn(KINDS_BY_FAMILY, f) ? f : undefined;
}

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** As a literal, not `{ ...parseApiVersion(v), kind }`: that spread gave each answer a hidden class of its own. */
function gvkOf(apiVersion: string, kind: string): GroupVersionKind {
  const { group, version } = parseApiVersion(apiVersion);
  return { group, version, kind };
}

function messageType(gvk: GroupVersionKind): protobuf.Type | undefined {
  const f = family(gvk.group);
  if (f === undefined) return undefined;
  return META_KINDS.get(gvk.kind) ?? typesByKey.get(`${f}/${gvk.version}/${gvk.kind}`);
}

/** Whether objects of this apiVersion and kind have a protobuf form (else protobuf is 406 / 415 for them). */
export function protobufCovers(apiVersion: string, kind: string): boolean {
  return messageType(gvkOf(apiVersion, kind)) !== undefined;
}

function badBody(why: string) {
  return errors.badRequest(`the protobuf body of the request could not be read: ${why}`);
}

function mappingProblem(e: unknown): string | undefined {
  return e instanceof MappingError ? e.message : undefined;
}

/**
 * The enveloped protobuf bytes of a JSON-shaped object (its apiVersion and kind pick the message and go into the
 * envelope's typeMeta, as the JSON answer would carry them). Throws a 500 StatusError for an object without a protobuf
 * form or with a field that has no protobuf value (callers check protobufCovers first).
 */
export function encodeProtobufObject(obj: unknown): Buffer {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj))
    throw errors.internal('only objects can be encoded as protobuf');
  const json = obj as Record<string, unknown>;
  const apiVersion = typeof json.apiVersion === 'string' ? json.apiVersion : '';
  const kind = typeof json.kind === 'string' ? json.kind : '';
  const type = messageType(gvkOf(apiVersion, kind));
  if (!type)
    throw errors.internal(
      `object ${kind || '<no kind>'} of ${apiVersion || '<no apiVersion>'} has no protobuf encoding`,
    );
  let raw: Uint8Array;
  try {
    raw = type.encode(jsonToMessage(type, json)).finish();
  } catch (e) {
    const problem = mappingProblem(e);
    if (problem === undefined) throw e;
    throw errors.internal(`unable to encode ${kind} as protobuf: ${problem}`);
  }
  const typeMeta: Message = {};
  if (apiVersion) typeMeta.apiVersion = apiVersion;
  if (kind) typeMeta.kind = kind;
  return Buffer.concat([ENVELOPE_PREFIX, UNKNOWN.encode({ typeMeta, raw }).finish()]);
}

/**
 * The same bytes as encodeProtobufObject(list), as pieces made in batches of items with the event loop let through
 * between them: 50,000 items are seconds of encoding. The envelope's length prefix needs the whole size, so every
 * item is encoded before the pieces are returned. A batch is the list message with only those items set, which
 * protobuf encodes as exactly the run of `items` entries the whole list's encoding holds for them.
 */
export async function encodeProtobufListInBatches(
  list: Record<string, unknown> & { items: unknown[] },
): Promise<Buffer[]> {
  const apiVersion = typeof list.apiVersion === 'string' ? list.apiVersion : '';
  const kind = typeof list.kind === 'string' ? list.kind : '';
  const type = messageType(gvkOf(apiVersion, kind));
  const itemsField = type?.fields.items;
  // Only when the items come last on the wire is the concatenation the whole list's bytes.
  if (!type || !itemsField?.repeated || type.fieldsArray[type.fieldsArray.length - 1] !== itemsField)
    return [encodeProtobufObject(list)];
  const encode = (json: Record<string, unknown>): Buffer => {
    try {
      const bytes = type.encode(jsonToMessage(type, json)).finish();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (e) {
      const problem = mappingProblem(e);
      if (problem === undefined) throw e;
      throw errors.internal(`unable to encode ${kind} as protobuf: ${problem}`);
    }
  };
  const pieces = [encode({ ...list, items: [] })];
  let rawLength = pieces[0].length;
  // Items per batch follow the time the last batch took: items range from a few bytes to a megabyte.
  let count = 16;
  for (let i = 0; i < list.items.length;) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const started = performance.now();
    const end = Math.min(list.items.length, i + count);
    const batch = encode({ items: list.items.slice(i, end) });
    pieces.push(batch);
    rawLength += batch.length;
    count = Math.max(
      1,
      Math.min(4096, Math.floor(((end - i) * BATCH_MS) / Math.max(0.01, performance.now() - started))),
    );
    i = end;
  }
  const typeMeta: Message = {};
  if (apiVersion) typeMeta.apiVersion = apiVersion;
  if (kind) typeMeta.kind = kind;
  const header = UNKNOWN.encode({ typeMeta }).uint32(RAW_FIELD_KEY).uint32(rawLength).finish();
  return [ENVELOPE_PREFIX, Buffer.from(header.buffer, header.byteOffset, header.byteLength), ...pieces];
}

/** The time one batch of a list's items should take to encode: a step short enough for other requests to interleave. */
const BATCH_MS = 5;

/** Field 2 (raw) of runtime.Unknown, length-delimited. */
const RAW_FIELD_KEY = (2 << 3) | 2;

/**
 * The JSON-shaped object held by an enveloped protobuf body. The envelope's typeMeta decides the message; when it is
 * empty, `expected` (the kind the endpoint serves) does. The result carries the typeMeta's apiVersion and kind when
 * they were given, so that the handler checks them against the path as it does for JSON. Throws StatusError 400 for
 * a bad prefix, a malformed message, a content encoding, or a kind without a protobuf form.
 */
export function decodeProtobufObject(body: Uint8Array, expected?: GroupVersionKind): Record<string, unknown> {
  return decodeEnvelope(body, expected, '');
}

function decodeEnvelope(
  body: Uint8Array,
  expected: GroupVersionKind | undefined,
  path: string,
): Record<string, unknown> {
  if (body.length === 0) throw errors.badRequest('the request body is empty: an object is required');
  if (!isEnvelope(body)) throw badBody(`${path ? `${path}: ` : ''}it does not start with the k8s envelope prefix`);
  try {
    const unknown = UNKNOWN.decode(body.subarray(4)) as unknown as Message;
    const encoding = unknown.contentEncoding;
    if (typeof encoding === 'string' && encoding !== '')
      throw badBody(`content encoding ${JSON.stringify(encoding)} is not supported`);
    const contentType = unknown.contentType;
    if (typeof contentType === 'string' && contentType !== '' && !/protobuf/i.test(contentType)) {
      throw badBody(`content type ${JSON.stringify(contentType)} of the raw object is not supported`);
    }
    const typeMeta = (unknown.typeMeta ?? {}) as Message;
    const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
    const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
    const gvk: GroupVersionKind | undefined = kind
      ? apiVersion
        ? gvkOf(apiVersion, kind)
        : { group: expected?.group ?? '', version: expected?.version ?? '', kind }
      : expected;
    if (!gvk) throw badBody('the envelope names no kind');
    const type = messageType(gvk);
    if (!type)
      throw badBody(
        `no kind "${gvk.kind}" is registered for version "${gvk.group ? `${gvk.group}/` : ''}${gvk.version}" in protobuf`,
      );
    const raw = (unknown.raw ?? new Uint8Array()) as Uint8Array;
    const message = type.decode(raw) as unknown as Message;
    const fields = messageToJson(type, message, path, (nested, at) => decodeEnvelope(nested, undefined, at));
    const out: Record<string, unknown> = {};
    if (apiVersion) out.apiVersion = apiVersion;
    if (kind) out.kind = kind;
    return Object.assign(out, fields);
  } catch (e) {
    if (isStatusError(e)) throw e;
    // Everything in the try block only reads the client's bytes: any failure there (protobufjs throws plain Errors
    // and RangeErrors for bad tags, wire types, lengths and deep nesting) is a malformed body.
    throw badBody(e instanceof Error ? e.message : String(e));
  }
}

/**
 * One frame of a protobuf watch stream, as upstream's stream serializer writes it: a 4-byte big-endian length, then
 * a WatchEvent message WITHOUT envelope (the stream's media type says what it is) whose object is the enveloped
 * object's bytes.
 */
export function encodeProtobufWatchFrame(event: { type: string; object: unknown }): Buffer {
  const body = WATCH_EVENT.encode({ type: event.type, object: { raw: encodeProtobufObject(event.object) } }).finish();
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  frame.set(body, 4);
  return frame;
}

/** Splits a protobuf watch stream into events (for clients and tests); a trailing partial frame is left in `rest`. */
export function decodeProtobufWatchFrames(stream: Buffer): {
  events: { type: string; object: unknown }[];
  rest: Buffer;
} {
  const events: { type: string; object: unknown }[] = [];
  let at = 0;
  while (stream.length - at >= 4) {
    const length = stream.readUInt32BE(at);
    if (stream.length - at - 4 < length) break;
    const message = WATCH_EVENT.decode(stream.subarray(at + 4, at + 4 + length)) as unknown as Message;
    const raw = ((message.object as Message | undefined)?.raw ?? new Uint8Array()) as Uint8Array;
    events.push({ type: String(message.type ?? ''), object: decodeEnvelope(raw, undefined, 'object') });
    at += 4 + length;
  }
  return { events, rest: stream.subarray(at) };
}
