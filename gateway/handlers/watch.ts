// Watch: everything that can fail cleanly (bad parameters, 410 for a compacted start, 504 for a list that cannot be
// served) fails before the headers go out as an ordinary Status response. Once streaming, events are written in
// revision order and a failure travels as an ERROR event, after which the stream ends.
import { PassThrough } from 'node:stream';
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
import type { HandlerDeps, ResourceRequest } from './request-scope.js';

export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** Upstream's default for watches without timeoutSeconds: a random duration in [min, 2*min) spreads reconnects. */
function defaultTimeoutSeconds(minSeconds: number): number {
  return Math.floor(minSeconds * (1 + Math.random()));
}

type ClientEvent = { type: string; object: unknown };

/** Maps a storage event through the selector: objects entering the selection are ADDED, leaving it DELETED. */
export function selectEvent(ev: StorageEvent, predicate: SelectionPredicate): { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KObject } | null {
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
  const target = negotiateResponse(ctx.get('accept') || undefined, { allowTable: true, streaming: true, serializers: deps.serializers });
  if (!target.serializer.streamMediaType) throw errors.notAcceptable(deps.serializers.filter((s) => s.streamMediaType).map((s) => s.mediaType));
  const include = parseIncludeObject(query.get('includeObject'));
  const render = (object: KObject): unknown => target.as === 'Table'
    ? toTable(store.def, [object], { apiVersion: target.tableApiVersion ?? 'meta.k8s.io/v1', include })
    : object;

  let initial: KObject[] = [];
  let startRevision: bigint;
  const start = params.start;
  try {
    if (start.kind === 'initial-state') {
      const list = await store.storage.getList(store.prefix(info.namespace), { read: start.read, predicate });
      initial = list.items;
      startRevision = list.revision;
    } else if (start.kind === 'from') {
      startRevision = start.revision;
      const compacted = await store.storage.compactedRevision();
      if (startRevision < compacted) throw errors.resourceExpired(`too old resource version: ${startRevision} (${compacted})`);
    } else {
      startRevision = await store.storage.currentRevision();
    }
  } catch (e) {
    throw toStatusError(e, store.groupResource, info.name);
  }

  const abort = new AbortController();
  const timeout = setTimeout(() => abort.abort(), (params.timeoutSeconds ?? defaultTimeoutSeconds(deps.minRequestTimeoutSeconds ?? 1800)) * 1000);
  timeout.unref();
  const onShutdown = (): void => abort.abort();
  deps.shutdownSignal.addEventListener('abort', onShutdown, { once: true });
  const stream = new PassThrough();
  const cleanup = (): void => {
    clearTimeout(timeout);
    deps.shutdownSignal.removeEventListener('abort', onShutdown);
    abort.abort();
  };
  ctx.res.on('close', cleanup);
  stream.on('close', cleanup);

  // The stream bypasses Koa's response handling so the headers go out now: a client waits for them before it
  // makes the writes it then expects to see.
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(200, {
    'Content-Type': target.as === 'Table' ? target.contentType : target.serializer.streamMediaType,
    'Cache-Control': 'no-cache, private',
    'Transfer-Encoding': 'chunked',
  });
  res.flushHeaders();
  stream.pipe(res);
  ctx.req.socket.setTimeout(0);

  const write = async (event: ClientEvent): Promise<void> => {
    if (stream.destroyed || stream.writableEnded) return;
    if (!stream.write(target.serializer.encodeWatchEvent(event))) {
      await new Promise<void>((resolve) => {
        const done = (): void => { stream.off('drain', done); stream.off('close', done); resolve(); };
        stream.on('drain', done);
        stream.on('close', done);
      });
    }
  };

  void (async () => {
    try {
      for (const obj of initial) await write({ type: 'ADDED', object: render(obj) });
      if (start.kind === 'initial-state' && start.bookmarkAfterInitial) {
        await write({ type: 'BOOKMARK', object: bookmark(store, startRevision, true) });
      }
      const events = store.storage.watch(store.prefix(info.namespace), { revision: startRevision, recursive: true, progressNotify: params.allowBookmarks }, abort.signal);
      for await (const ev of events) {
        if (abort.signal.aborted) break;
        if (ev.type === 'BOOKMARK') {
          if (params.allowBookmarks) await write({ type: 'BOOKMARK', object: bookmark(store, ev.revision, false) });
          continue;
        }
        const selected = selectEvent(ev, predicate);
        if (selected) await write({ type: selected.type, object: render(selected.object) });
      }
    } catch (e) {
      if (!abort.signal.aborted) {
        const statusError = isStorageError(e) ? toStatusError(e, store.groupResource, info.name) : e;
        const status = isStatusError(statusError) ? statusError : errors.internal();
        if (!(statusError instanceof StatusError)) console.error('watch failed:', e);
        await write({ type: 'ERROR', object: status.toStatus() }).catch(() => undefined);
      }
    } finally {
      cleanup();
      stream.end();
    }
  })();
}
