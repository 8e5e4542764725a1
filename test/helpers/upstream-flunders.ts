// The one kind the test upstream serves (test/helpers/upstream-apiserver.ts): namespaced `flunders`, stored in memory,
// with list, watch (JSON events, one per line, while the request stays open), create, get, update, merge patch and
// delete, answering Status bodies for its failures as an aggregated API server would.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface Flunder {
  apiVersion: string;
  kind: 'Flunder';
  metadata: { name: string; namespace: string; resourceVersion?: string; uid?: string; [k: string]: unknown };
  [k: string]: unknown;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export class FlunderStore {
  readonly objects = new Map<string, Flunder>();
  private revision = 0;
  private watchers = new Set<{ namespace: string; res: ServerResponse }>();

  constructor(private readonly groupVersion: string) {}

  private status(res: ServerResponse, code: number, reason: string, message: string): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code }));
  }

  private json(res: ServerResponse, code: number, body: unknown): void {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private emit(type: string, obj: Flunder): void {
    for (const w of this.watchers)
      if (w.namespace === '' || w.namespace === obj.metadata.namespace)
        w.res.write(`${JSON.stringify({ type, object: obj })}\n`);
  }

  private stamp(obj: Flunder): Flunder {
    obj.metadata.resourceVersion = String(++this.revision);
    return obj;
  }

  /** Serves `rest` (the path under the group-version, split); answers 404 for anything else. */
  async serve(req: IncomingMessage, res: ServerResponse, rest: string[], query: URLSearchParams): Promise<void> {
    let namespace = '';
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    if (rest[0] !== 'flunders' || rest.length > 2)
      return this.status(res, 404, 'NotFound', 'the server could not find the requested resource');
    const name = rest[1];
    const key = `${namespace}/${name}`;
    const method = req.method ?? 'GET';
    if (name === undefined) {
      if (method === 'GET' && query.get('watch') !== null && query.get('watch') !== 'false') {
        res.writeHead(200, { 'content-type': 'application/json' });
        // The headers go at once: a client knows its watch is open before the first event.
        res.flushHeaders();
        const watcher = { namespace, res };
        this.watchers.add(watcher);
        res.on('close', () => this.watchers.delete(watcher));
        for (const obj of this.objects.values())
          if (namespace === '' || obj.metadata.namespace === namespace)
            res.write(`${JSON.stringify({ type: 'ADDED', object: obj })}\n`);
        return;
      }
      if (method === 'GET') {
        const items = [...this.objects.values()].filter((o) => namespace === '' || o.metadata.namespace === namespace);
        return this.json(res, 200, {
          apiVersion: this.groupVersion,
          kind: 'FlunderList',
          metadata: { resourceVersion: String(this.revision) },
          items,
        });
      }
      if (method === 'POST') {
        const obj = JSON.parse(await readBody(req)) as Flunder;
        obj.metadata.namespace = namespace;
        const k = `${namespace}/${obj.metadata.name}`;
        if (this.objects.has(k))
          return this.status(
            res,
            409,
            'AlreadyExists',
            `flunders.${this.groupVersion.split('/')[0]} "${obj.metadata.name}" already exists`,
          );
        obj.metadata.uid = `uid-${this.revision + 1}`;
        this.objects.set(k, this.stamp(obj));
        this.emit('ADDED', obj);
        return this.json(res, 201, obj);
      }
      return this.status(
        res,
        405,
        'MethodNotAllowed',
        'the server does not allow this method on the requested resource',
      );
    }
    const current = this.objects.get(key);
    const notFound = (): void =>
      this.status(res, 404, 'NotFound', `flunders.${this.groupVersion.split('/')[0]} "${name}" not found`);
    switch (method) {
      case 'GET':
        return current ? this.json(res, 200, current) : notFound();
      case 'PUT': {
        if (!current) return notFound();
        const obj = JSON.parse(await readBody(req)) as Flunder;
        obj.metadata = { ...obj.metadata, namespace, uid: current.metadata.uid };
        this.objects.set(key, this.stamp(obj));
        this.emit('MODIFIED', obj);
        return this.json(res, 200, obj);
      }
      case 'PATCH': {
        if (!current) return notFound();
        const obj = mergePatch(current, JSON.parse(await readBody(req))) as Flunder;
        this.objects.set(key, this.stamp(obj));
        this.emit('MODIFIED', obj);
        return this.json(res, 200, obj);
      }
      case 'DELETE':
        if (!current) return notFound();
        await readBody(req);
        this.objects.delete(key);
        this.emit('DELETED', this.stamp({ ...current }));
        return this.json(res, 200, current);
      default:
        return this.status(
          res,
          405,
          'MethodNotAllowed',
          'the server does not allow this method on the requested resource',
        );
    }
  }

  /** Ends every open watch (the upstream closing). */
  closeWatches(): void {
    for (const w of this.watchers) w.res.end();
    this.watchers.clear();
  }
}
