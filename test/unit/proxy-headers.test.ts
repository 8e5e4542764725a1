// The headers the aggregator proxy sends upstream (gateway/aggregator/proxy-headers.ts): client-go's escaping of
// extra keys, the identity headers a client may not forge (configured names included), and hop-by-hop headers.
import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import {
  escapeExtraKey,
  identityHeaderNames,
  stripHopByHop,
  upstreamRequestHeaders,
} from '../../gateway/aggregator/proxy-headers.js';

/** A request as far as the header code reads it: the raw lines and the joined map. */
function request(lines: [string, string][]): IncomingMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of lines) {
    const key = name.toLowerCase();
    headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
  }
  return { rawHeaders: lines.flat(), headers } as unknown as IncomingMessage;
}

describe('aggregator proxy headers', () => {
  it('percent-encodes extra keys as client-go does: bytes of UTF-8, upper-case hex, % itself included', () => {
    expect(escapeExtraKey('scopes')).to.equal('scopes');
    expect(escapeExtraKey('example.org/key')).to.equal('example.org%2Fkey');
    expect(escapeExtraKey('100%')).to.equal('100%25');
    expect(escapeExtraKey('a b')).to.equal('a%20b');
    expect(escapeExtraKey('é')).to.equal('%C3%A9');
    expect(escapeExtraKey("!#$&'*+-.^_`|~")).to.equal("!#$&'*+-.^_`|~");
  });

  it('drops forged identity headers, the configured names too, and sends the established identity', () => {
    const identity = identityHeaderNames({
      usernameHeaders: ['X-Custom-User'],
      groupHeaders: ['X-Custom-Group'],
      extraHeaderPrefixes: ['X-Custom-Extra-'],
    });
    const out = upstreamRequestHeaders(
      request([
        [':path', '/apis/g/v/x'],
        ['Host', 'gatehouse'],
        ['Authorization', 'Bearer secret'],
        ['X-Remote-User', 'mallory'],
        ['X-Remote-Group', 'system:masters'],
        ['X-Remote-Uid', 'forged'],
        ['X-Custom-User', 'mallory'],
        ['X-Custom-Group', 'system:masters'],
        ['X-Custom-Extra-Scopes', 'all'],
        ['Accept', 'application/json'],
        ['X-Group-Line', 'a,b'],
        ['X-Group-Line', 'c'],
      ]),
      { name: 'alice', groups: ['dev', 'with,comma'], extra: { 'example.org/key': ['v1', 'v2'], empty: [] } },
      identity,
      false,
      '10.0.0.1',
    );
    expect(out).to.deep.equal({
      accept: 'application/json',
      'x-group-line': ['a,b', 'c'],
      'x-forwarded-for': '10.0.0.1',
      'X-Remote-User': 'alice',
      'X-Remote-Group': ['dev', 'with,comma'],
      'X-Remote-Extra-example.org%2Fkey': ['v1', 'v2'],
    });
  });

  it('drops hop-by-hop headers and those Connection names, keeping Connection and Upgrade on an upgrade', () => {
    const lines: [string, string][] = [
      ['Connection', 'Upgrade, X-Private'],
      ['Upgrade', 'websocket'],
      ['X-Private', 'no'],
      ['Keep-Alive', 'timeout=5'],
      ['TE', 'trailers'],
      ['Proxy-Authorization', 'Basic x'],
      ['X-Forwarded-For', '192.0.2.1'],
    ];
    const identity = identityHeaderNames();
    const user = { name: 'u', groups: [] };
    const plain = upstreamRequestHeaders(request(lines), user, identity, false, '10.0.0.1');
    expect(plain).to.deep.equal({ 'x-forwarded-for': '192.0.2.1, 10.0.0.1', 'X-Remote-User': 'u' });
    const upgrade = upstreamRequestHeaders(request(lines), user, identity, true);
    expect(upgrade).to.deep.include({ connection: 'Upgrade, X-Private', upgrade: 'websocket' });
    expect(upgrade).to.not.have.property('x-private');

    const answer: Record<string, string> = {
      connection: 'close, x-hop',
      'x-hop': '1',
      'transfer-encoding': 'chunked',
      'content-type': 'application/json',
    };
    stripHopByHop(answer);
    expect(answer).to.deep.equal({ 'content-type': 'application/json' });
  });
});
