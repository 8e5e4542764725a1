// Watch: bad parameters and a list that cannot be served (504) fail before the headers go out, as an ordinary Status
// response. A start from a compacted revision does not: as kube-apiserver, the watch answers 200 and its one event
// is an ERROR carrying the 410 Expired Status, which is where clients (the Python Watch, informers) look for it to
// list again. Once streaming, events are written in revision order and a failure travels as an ERROR event, after
// which the stream ends.
//
// Fan-out cost: storage hands every watcher the same frozen event object (storage.ts), so an event's frame is encoded
// once per (event, event type after selection, encoding settings) and the Buffer is shared by every watcher that
// asks for the same; a thousand watchers of one write cost one JSON.stringify. The cache lives as long as the event
// object does, which for the memory backend is the history window, as kube-apiserver's watch cache keeps the
// serializations of the events in its buffer. Frames go straight to the response, or for shared frames straight to
// the connection as ready-made HTTP chunks (watch-frame-writer.ts): no intermediate stream.
import type { Context } from 'koa';
import { errors, isStatusError, StatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { apiVersionOf } from '../../api/scheme.js';
import { isStorageError, type SelectionPredicate, type StorageEvent } from '../../backends/storage.js';
import { negotiateResponse } from '../negotiation/negotiate.js';
import { parseIncludeObject, toTable } from '../negotiation/table.js';
import { selectionPredicate } from '../registry/predicate.js';
import { toStatusError } from '../registry/storage-errors.js';
import type { ResourceStore } from '../registry/store.js';
import { watchParams } from './resource-version.js';
import { inRequestedGroup } from '../request/group-alias.js';
import type { HandlerDeps, ResourceRequest } from './request-scope.js';
import { isHttp2 } from '../server/connection.js';
import { watchDurationMs } from './watch-timeout.js';
import { realClock } from '../server/clock.js';
import { auditOf } from '../audit/request-audit.js';
import { chunkDataLength, chunkOf, directChunkWriter, drained } from './watch-frame-writer.js';
import { signalWatchInitialized } from '../request/watch-initialization.js';

export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

type ClientEvent = { type: string; object: unknown };

const notRecorded = (): void => undefined;

const frames = new WeakMap<StorageEvent, Map<string, Buffer>>();

/** The encoded frame of `event` under `variant` (type + encoding settings), made once and shared. */
function sharedFrame(event: StorageEvent, variant: string, encode: () => Buffer): Buffer {
  let byVariant = frames.get(event);
  if (!byVariant) {
    // Only frozen events are known never to change under their cached encoding.
    if (!Object.isFrozen(event)) return encode();
    byVariant = new Map();
    frames.set(event, byVariant);
  }
  let frame = byVariant.get(variant);
  if (!frame) {
    frame = encode();
    byVariant.set(variant, frame);
  }
  return frame;
}

// Open watches per shutdown signal, which then carries one listener instead of one per watch (a thousand watches
// would each add theirs, and trip the EventTarget leak warning).
const openWatches = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `stop` when `shutdown` aborts; returns the unregistration. */
function onShutdown(shutdown: AbortSignal, stop: () => void): () => void {
  let stops = openWatches.get(shutdown);
  if (!stops) {
    const registered = new Set<() => void>();
    stops = registered;
    openWatches.set(shutdown, registered);
    shutdown.addEventListener(
      'abort',
      () => {
        for (const each of [...registered]) each();
      },
      { once: true },
    );
  }
  // As with addEventListener, a watch that starts after the shutdown began is not ended by it.
  if (shutdown.aborted) return () => undefined;
  stops.add(stop);
  const set = stops;
  return () => void set.delete(stop);
}

/** Maps a storage event through the selector: objects entering the selection are ADDED, leaving it DELETED. */
export function selectEvent(
  ev: StorageEvent,
  predicate: SelectionPredicate,
): { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KObject } | null {
  const obj = ev.object;
  if (!obj) return null;
  switch (ev.type) {
    case 'ADDED':
      return predicate.matches(obj) ? { type: 'ADDED', object: obj } : null;
    case 'DELETED':
      return predicate.matches(ev.prevObject ?? obj) ? { type: 'DELETED', object: obj } : null;
    case 'MODIFIED': {
      const now = predicate.matches(obj);
      const before = ev.prevObject ? predicate.matches(ev.prevObject) : false;
      if (now && before) return { type: 'MODIFIED', object: obj };
      if (now) return { type: 'ADDED', object: obj };
      if (before) return { type: 'DELETED', object: obj };
      return null;
    }
    default:
      return null;
  }
}

function bookmark(store: ResourceStore, revision: bigint, initialEventsEnd: boolean): KObject {
  const metadata: KObject['metadata'] = { resourceVersion: String(revision) };
  if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
  return { kind: store.def.kind, apiVersion: apiVersionOf(store.def), metadata };
}

export async function handleWatch(ctx: Context, deps: HandlerDeps, req: ResourceRequest): Promise<void> {
  const { info, store, query } = req;
  const params = watchParams(query);
  const predicate = selectionPredicate(store.def, query);
  const target = negotiateResponse(ctx.get('accept') || undefined, {
    allowTable: true,
    streaming: true,
    encodes: { apiVersion: apiVersionOf(store.def), kind: store.def.kind },
    serializers: deps.serializers,
  });
  if (!target.serializer.streamMediaType)
    throw errors.notAcceptable(deps.serializers.filter((s) => s.streamMediaType).map((s) => s.mediaType));
  const include = parseIncludeObject(query.get('includeObject'));
  // At an alias group, events carry the group asked in (gateway/request/group-alias.ts).
  const asked = (object: KObject): KObject => inRequestedGroup(info, store.def, object) as KObject;
  const render = (object: KObject): unknown =>
    target.as === 'Table'
      ? toTable(store.def, [asked(object)], { apiVersion: target.tableApiVersion ?? 'meta.k8s.io/v1', include })
      : asked(object);
  // Everything besides the event that decides the bytes of a frame.
  const settings = `${target.serializer.mediaType}|${target.as === 'Table' ? `Table|${target.tableApiVersion ?? ''}|${include}` : ''}|${info.requestedGroup ?? ''}`;
  // Cache keys per event type after selection, made once per watch rather than per event.
  const variants = new Map(
    ['ADDED', 'MODIFIED', 'DELETED'].map((type) => [
      type,
      { frame: `${type}|${settings}`, chunk: `${type}|${settings}|chunk` },
    ]),
  );
  let initial: KObject[] = [];
  let startRevision: bigint;
  let expired: StatusError | undefined;
  const start = params.start;
  try {
    if (start.kind === 'initial-state') {
      const list = await store.storage.getList(store.prefix(info.namespace), { read: start.read, predicate });
      initial = list.items;
      startRevision = list.revision;
    } else if (start.kind === 'from') {
      startRevision = start.revision;
      const compacted = await store.storage.compactedRevision();
      if (startRevision < compacted)
        expired = errors.resourceExpired(`too old resource version: ${startRevision} (${compacted})`);
    } else {
      startRevision = await store.storage.currentRevision();
    }
  } catch (e) {
    throw toStatusError(e, store.groupResource, info.name);
  }

  const abort = new AbortController();
  const cancelTimeout = (deps.clock ?? realClock).setTimeout(
    () => abort.abort(),
    watchDurationMs(params.timeoutSeconds, deps.minRequestTimeoutSeconds ?? 1800),
  );
  const unregister = onShutdown(deps.shutdownSignal, () => abort.abort());
  const cleanup = (): void => {
    cancelTimeout();
    unregister();
    abort.abort();
  };
  const res = ctx.res;
  res.on('close', cleanup);

  // The stream bypasses Koa's response handling so the headers go out now: a client waits for them before it
  // makes the writes it then expects to see.
  ctx.respond = false;
  const http2Stream = isHttp2(ctx.req) ? ctx.req.stream : undefined;
  const http2 = http2Stream !== undefined;
  // Resolved once here: every event then costs the watch metrics no label lookup. Counted open before the headers
  // go out, so that a client holding them is already a registered watcher.
  const recording = deps.watchMetrics?.opened(store.def);
  // HTTP/2 frames the body itself and forbids the HTTP/1.1 framing header.
  res.writeHead(
    200,
    http2
      ? { 'Content-Type': target.contentType, 'Cache-Control': 'no-cache, private' }
      : { 'Content-Type': target.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' },
  );
  res.flushHeaders();
  auditOf(ctx)?.responseStarted(200);
  const socket = ctx.req.socket;
  // Under HTTP/2 the socket is the whole connection's; its timeout is not this stream's to change.
  if (!http2) socket.setTimeout(0);
  // The compatibility response of HTTP/2 has no `destroyed`: its stream tells whether anything can still be written.
  const closed = http2Stream
    ? () => http2Stream.destroyed || res.writableEnded
    : () => res.destroyed || res.writableEnded;
  // Shared frames of live events go to the connection pre-chunked, a thousand watchers' worth of HTTP-layer work
  // saved per event.
  const direct = http2 || res.socket !== socket ? undefined : directChunkWriter(res);

  // Under HTTP/2 frames go to the stream itself: the compatibility response only forwards each write to it.
  const sink: NodeJS.WritableStream = http2Stream ?? res;
  const sent = recording?.sent ?? notRecorded;
  /** Writes one frame; a promise only when the client is behind and the caller must wait for it. */
  const send = (frame: Buffer): Promise<void> | undefined => {
    if (closed()) return undefined;
    sent(frame.length);
    return sink.write(frame) ? undefined : drained(sink, res);
  };
  const sendShared = (
    event: StorageEvent,
    variant: { frame: string; chunk: string },
    encode: () => Buffer,
  ): Promise<void> | undefined => {
    if (!direct) return send(sharedFrame(event, variant.frame, encode));
    if (closed()) return undefined;
    const chunk = sharedFrame(event, variant.chunk, () => chunkOf(sharedFrame(event, variant.frame, encode)));
    sent(chunkDataLength(chunk));
    return direct(chunk);
  };
  const write = (event: ClientEvent): Promise<void> | undefined => send(target.serializer.encodeWatchEvent(event));

  void (async () => {
    try {
      if (expired) {
        await write({ type: 'ERROR', object: expired.toStatus() });
        return;
      }
      for (const obj of initial) await write({ type: 'ADDED', object: render(obj) });
      if (start.kind === 'initial-state' && start.bookmarkAfterInitial) {
        await write({ type: 'BOOKMARK', object: asked(bookmark(store, startRevision, true)) });
      }
      signalWatchInitialized(ctx);
      const events = store.storage.watch(
        store.prefix(info.namespace),
        { revision: startRevision, recursive: true, progressNotify: params.allowBookmarks },
        abort.signal,
      );
      // A flag instead of the signal's getter, which validates its receiver on every access: a thousand watchers
      // times per event.
      let aborted = abort.signal.aborted;
      abort.signal.addEventListener(
        'abort',
        () => {
          aborted = true;
        },
        { once: true },
      );
      for await (const ev of events) {
        if (aborted) break;
        if (ev.type === 'BOOKMARK') {
          if (params.allowBookmarks)
            await write({ type: 'BOOKMARK', object: asked(bookmark(store, ev.revision, false)) });
          continue;
        }
        const selected = selectEvent(ev, predicate);
        if (!selected) continue;
        const pending = sendShared(ev, variants.get(selected.type)!, () =>
          target.serializer.encodeWatchEvent({ type: selected.type, object: render(selected.object) }),
        );
        if (pending) await pending;
      }
    } catch (e) {
      if (!abort.signal.aborted) {
        const statusError = isStorageError(e) ? toStatusError(e, store.groupResource, info.name) : e;
        const status = isStatusError(statusError) ? statusError : errors.internal();
        if (!(statusError instanceof StatusError)) deps.logger.error({ err: e, URI: ctx.url }, 'watch failed');
        try {
          await write({ type: 'ERROR', object: status.toStatus() });
        } catch {
          // The client is gone or the status does not encode: the stream ends either way.
        }
      }
    } finally {
      cleanup();
      recording?.closed();
      if (!res.writableEnded) res.end();
    }
  })();
}
