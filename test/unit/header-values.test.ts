// Stripping headers from a request Node parsed, in every view it keeps (the joined map, the per-line map, the raw
// list), whichever of them were read before the strip.
import { expect } from 'chai';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deleteHeaders, headerValues } from '../../gateway/authn/header-values.js';

type Views = { joined: string[]; distinct: Record<string, string[] | undefined>; raw: string[] };

function views(req: IncomingMessage): Views {
  return {
    joined: Object.keys(req.headers).sort(),
    distinct: Object.fromEntries(Object.entries(req.headersDistinct).sort(([a], [b]) => a.localeCompare(b))),
    raw: req.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase()).sort(),
  };
}

/** Sends one request with `headers` (repeated lines as arrays) and returns what `inspect` made of it on the server. */
async function onServer<T>(headers: Record<string, string | string[]>, inspect: (req: IncomingMessage) => T): Promise<T> {
  let result: T | undefined;
  let failure: unknown;
  const server = http.createServer((req, res) => {
    try {
      result = inspect(req);
    } catch (e) {
      failure = e;
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/', headers, agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      }).on('error', reject);
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  if (failure) throw failure;
  return result!;
}

const isRemote = (name: string): boolean => name.startsWith('x-remote-');
const isAuthorization = (name: string): boolean => name === 'authorization';

const sent = { Authorization: 'Bearer secret', 'X-Remote-User': 'alice', 'X-Remote-Group': ['a', 'b'], 'X-Kept': ['1', '2'] };
function checkClean(v: Views): void {
  expect(v.joined).to.deep.equal(['connection', 'host', 'x-kept']);
  expect(Object.keys(v.distinct)).to.deep.equal(['connection', 'host', 'x-kept']);
  expect(v.distinct['x-kept']).to.deep.equal(['1', '2']);
  expect(v.raw).to.deep.equal(['connection', 'host', 'x-kept', 'x-kept']);
}

describe('header values: deleteHeaders', () => {
  it('strips every view when no per-line view was read before', async () => {
    checkClean(await onServer(sent, (req) => {
      deleteHeaders(req, isRemote);
      deleteHeaders(req, isAuthorization);
      return views(req);
    }));
  });

  it('strips every view when the per-line view was read before the first strip', async () => {
    checkClean(await onServer(sent, (req) => {
      expect(headerValues(req, 'X-Remote-Group')).to.deep.equal(['a', 'b']);
      deleteHeaders(req, isRemote);
      deleteHeaders(req, isAuthorization);
      return views(req);
    }));
  });

  it('strips every view when the per-line view was read between two strips', async () => {
    checkClean(await onServer(sent, (req) => {
      deleteHeaders(req, isRemote);
      expect(headerValues(req, 'X-Remote-User')).to.deep.equal([]);
      expect(headerValues(req, 'x-kept')).to.deep.equal(['1', '2']);
      deleteHeaders(req, isAuthorization);
      return views(req);
    }));
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
