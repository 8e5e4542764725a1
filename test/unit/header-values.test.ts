// Stripping headers from a request Node parsed, in every view it keeps (the joined map, the per-line map, the raw
// list), whichever of them were read before the strip.
import { expect } from 'chai';
import http, { type IncomingMessage } from 'node:http';
import http2, { type Http2ServerRequest } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { deleteHeaders, headerValues } from '../../gateway/authn/header-values.js';

type Views = { joined: string[]; distinct: Record<string, string[] | undefined>; raw: string[] };

function views(req: IncomingMessage): Views {
  return {
    joined: Object.keys(req.headers).sort(),
    distinct: Object.fromEntries(Object.entries(req.headersDistinct).sort(([a], [b]) => a.localeCompare(b))),
    raw: req.rawHeaders
      .filter((_, i) => i % 2 === 0)
      .map((h) => h.toLowerCase())
      .sort(),
  };
}

/** A request handler running `inspect` on the request it gets, and what `inspect` made of it (or its failure). */
function inspector<R, T>(inspect: (req: R) => T): { handle(req: R, res: { end(): void }): void; outcome(): T } {
  let result: T | undefined;
  let failure: unknown;
  return {
    handle(req, res) {
      try {
        result = inspect(req);
      } catch (e) {
        failure = e;
      }
      res.end();
    },
    outcome() {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows a caught value as it came
      if (failure) throw failure;
      return result!;
    },
  };
}

/** Sends one request with `headers` (repeated lines as arrays) and returns what `inspect` made of it on the server. */
async function onServer<T>(
  headers: Record<string, string | string[]>,
  inspect: (req: IncomingMessage) => T,
): Promise<T> {
  const seen = inspector(inspect);
  const server = http.createServer((req, res) => seen.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/', headers, agent: false }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return seen.outcome();
}

const isRemote = (name: string): boolean => name.startsWith('x-remote-');
const isAuthorization = (name: string): boolean => name === 'authorization';

const sent = {
  Authorization: 'Bearer secret',
  'X-Remote-User': 'alice',
  'X-Remote-Group': ['a', 'b'],
  'X-Kept': ['1', '2'],
};
function checkClean(v: Views): void {
  expect(v.joined).to.deep.equal(['connection', 'host', 'x-kept']);
  expect(Object.keys(v.distinct)).to.deep.equal(['connection', 'host', 'x-kept']);
  expect(v.distinct['x-kept']).to.deep.equal(['1', '2']);
  expect(v.raw).to.deep.equal(['connection', 'host', 'x-kept', 'x-kept']);
}

describe('header values: deleteHeaders', () => {
  it('strips every view when no per-line view was read before', async () => {
    checkClean(
      await onServer(sent, (req) => {
        deleteHeaders(req, isRemote);
        deleteHeaders(req, isAuthorization);
        return views(req);
      }),
    );
  });

  it('strips every view when the per-line view was read before the first strip', async () => {
    checkClean(
      await onServer(sent, (req) => {
        expect(headerValues(req, 'X-Remote-Group')).to.deep.equal(['a', 'b']);
        deleteHeaders(req, isRemote);
        deleteHeaders(req, isAuthorization);
        return views(req);
      }),
    );
  });

  it('strips every view when the per-line view was read between two strips', async () => {
    checkClean(
      await onServer(sent, (req) => {
        deleteHeaders(req, isRemote);
        expect(headerValues(req, 'X-Remote-User')).to.deep.equal([]);
        expect(headerValues(req, 'x-kept')).to.deep.equal(['1', '2']);
        deleteHeaders(req, isAuthorization);
        return views(req);
      }),
    );
  });

  it('leaves a request without the headers untouched', async () => {
    const v = await onServer({ 'X-Kept': 'k' }, (req) => {
      deleteHeaders(req, isAuthorization);
      return views(req);
    });
    expect(v.joined).to.deep.equal(['connection', 'host', 'x-kept']);
    expect(v.distinct['x-kept']).to.deep.equal(['k']);
  });
});

/** The same over HTTP/2 (h2c, Node's compatibility API, as the gateway serves): no per-line map comes with it. */
async function onHttp2Server<T>(
  headers: Record<string, string | string[]>,
  inspect: (req: Http2ServerRequest) => T,
): Promise<T> {
  const seen = inspector(inspect);
  const server = http2.createServer((req, res) => seen.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  try {
    await new Promise<void>((resolve, reject) => {
      const stream = client.request({ ':path': '/', ...headers });
      stream.on('error', reject);
      stream.resume();
      stream.on('end', resolve);
    });
  } finally {
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return seen.outcome();
}

const asNodeRequest = (req: Http2ServerRequest): IncomingMessage => req as unknown as IncomingMessage;
const rawNames = (req: Http2ServerRequest): string[] =>
  req.rawHeaders
    .filter((_, i) => i % 2 === 0)
    .filter((h) => !h.startsWith(':'))
    .sort();
const sentOverHttp2 = {
  authorization: 'Bearer secret',
  'x-remote-user': 'alice',
  'x-remote-group': ['a', 'b'],
  'x-kept': ['1', '2'],
};

describe('header values: deleteHeaders over HTTP/2', () => {
  it('strips the joined map and the raw list without building a per-line map; one built later lacks the lines', async () => {
    const seen = await onHttp2Server(sentOverHttp2, (req) => {
      deleteHeaders(asNodeRequest(req), isRemote);
      deleteHeaders(asNodeRequest(req), isAuthorization);
      const builtBeforeAsked = Object.hasOwn(req, 'headersDistinct');
      return {
        builtBeforeAsked,
        joined: Object.keys(req.headers)
          .filter((h) => !h.startsWith(':'))
          .sort(),
        raw: rawNames(req),
        user: headerValues(asNodeRequest(req), 'x-remote-user'),
        authorization: headerValues(asNodeRequest(req), 'authorization'),
        kept: headerValues(asNodeRequest(req), 'x-kept'),
      };
    });
    expect(seen).to.deep.equal({
      builtBeforeAsked: false,
      joined: ['x-kept'],
      raw: ['x-kept', 'x-kept'],
      user: [],
      authorization: [],
      kept: ['1', '2'],
    });
  });

  it('strips a per-line map that was read before the strip', async () => {
    const seen = await onHttp2Server(sentOverHttp2, (req) => {
      expect(headerValues(asNodeRequest(req), 'x-remote-group')).to.deep.equal(['a', 'b']);
      deleteHeaders(asNodeRequest(req), isRemote);
      deleteHeaders(asNodeRequest(req), isAuthorization);
      return {
        group: headerValues(asNodeRequest(req), 'x-remote-group'),
        authorization: headerValues(asNodeRequest(req), 'authorization'),
        raw: rawNames(req),
      };
    });
    expect(seen).to.deep.equal({ group: [], authorization: [], raw: ['x-kept', 'x-kept'] });
  });
});
