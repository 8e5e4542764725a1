import { expect } from 'chai';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  parseTokenFile,
  loadTokenFile,
  createStaticTokenAuthenticator,
  TokenFileError,
} from '../../gateway/authn/token-file.js';
import { createBearerTokenAuthenticator } from '../../gateway/authn/bearer-token.js';
import { withAnonymousFallback } from '../../gateway/authn/anonymous.js';
import { createAdminTokenAuthenticator, loadOrCreateAdminToken } from '../../gateway/authn/admin-token.js';
import { AuthenticationError, createAuthenticatorUnion } from '../../gateway/authn/authenticator.js';

const req = (authorization?: string) =>
  ({ headers: authorization === undefined ? {} : { authorization } }) as IncomingMessage;

function fileError(text: string): TokenFileError {
  try {
    parseTokenFile(text, 'tokens.csv');
  } catch (e) {
    expect(e).to.be.instanceOf(TokenFileError);
    return e as TokenFileError;
  }
  throw new Error('expected the token file to be refused');
}

describe('static token file', () => {
  it('reads token, user, uid and a quoted comma-separated group column', () => {
    const { tokens } = parseTokenFile('t1,alice,1001,"dev,ops"\nt2,bob,1002\n');
    expect(tokens).to.deep.equal([
      { token: 't1', user: { name: 'alice', uid: '1001', groups: ['dev', 'ops'] } },
      { token: 't2', user: { name: 'bob', uid: '1002', groups: [] } },
    ]);
  });

  it('also takes further columns as group names, as the spec describes', () => {
    const { tokens } = parseTokenFile('t1,alice,1001,dev,ops,dev\n');
    expect(tokens[0].user.groups).to.deep.equal(['dev', 'ops']);
  });

  it('handles CRLF, blank lines, doubled quotes and quoted user names', () => {
    const { tokens } = parseTokenFile('\r\nt1,"Smith, ""J""",u1\r\n\r\nt2,b,u2');
    expect(tokens.map((t) => t.user.name)).to.deep.equal(['Smith, "J"', 'b']);
  });

  it('refuses records with fewer than 3 columns, naming the line', () => {
    const e = fileError('t1,alice,1\n\nt2,bob\n');
    expect(e.message).to.contain('tokens.csv: line 3').and.contain('at least 3 columns');
  });

  it('refuses an empty user name and broken quoting, naming the line', () => {
    expect(fileError('t1,,1').message).to.contain('line 1: empty user name');
    expect(fileError('t1,a,1\nt2,b"c,2').message).to.contain('line 2').and.contain('bare "');
    expect(fileError('t1,a,1\nt2,"b,2').message).to.contain('missing "');
  });

  it('skips an empty token and lets the last duplicate win, with warnings', () => {
    const { tokens, warnings } = parseTokenFile(',nobody,0\nt1,first,1\nt1,second,2\n');
    expect(tokens).to.have.length(1);
    expect(tokens[0].user.name).to.equal('second');
    expect(warnings.join('\n')).to.contain('line 1: empty token').and.contain('line 3: duplicate token');
  });

  it('reports an unreadable file as a start-up error', async () => {
    try {
      await loadTokenFile('/nonexistent/tokens.csv');
      expect.fail('should have thrown');
    } catch (e) {
      expect((e as Error).message).to.contain('cannot read token file /nonexistent/tokens.csv');
    }
  });
});

describe('token authentication', () => {
  const fileSource = createStaticTokenAuthenticator('token-file', parseTokenFile('secret-1,alice,1001,"dev"\n').tokens);
  const admin = createAdminTokenAuthenticator('a'.repeat(64));
  const union = createAuthenticatorUnion([createBearerTokenAuthenticator([admin, fileSource])]);

  it('authenticates a known bearer token and adds system:authenticated', async () => {
    const result = await union.authenticate(req('Bearer secret-1'));
    expect(result?.user).to.deep.equal({ name: 'alice', uid: '1001', groups: ['dev', 'system:authenticated'] });
  });

  it('authenticates the admin token as system:admin in system:masters', async () => {
    const result = await union.authenticate(req(`Bearer ${'a'.repeat(64)}`));
    expect(result?.user.name).to.equal('system:admin');
    expect(result?.user.groups).to.include('system:masters');
  });

  it('rejects a bearer token no source accepts, even with anonymous enabled', async () => {
    const withAnon = withAnonymousFallback(union);
    for (const token of ['Bearer secret-2', 'Bearer secret-', 'Bearer secret-1x']) {
      try {
        await withAnon.authenticate(req(token));
        expect.fail(`${token} should be rejected`);
      } catch (e) {
        expect(e).to.be.instanceOf(AuthenticationError);
      }
    }
  });

  it('is anonymous without credentials only when the fallback is installed', async () => {
    expect(await union.authenticate(req())).to.equal(null);
    const anon = await withAnonymousFallback(union).authenticate(req());
    expect(anon?.user).to.deep.equal({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
  });

  it('lets a later member succeed after an earlier one rejected its credential, and 401s when none does', async () => {
    const rejecting = {
      name: 'rejecting',
      authenticate: async () => {
        throw new AuthenticationError('expired certificate');
      },
    };
    const both = createAuthenticatorUnion([rejecting, createBearerTokenAuthenticator([admin, fileSource])]);
    const ok = await both.authenticate(req('Bearer secret-1'));
    expect(ok?.user.name).to.equal('alice');
    try {
      await withAnonymousFallback(both).authenticate(req());
      expect.fail('a rejected credential must not become anonymous');
    } catch (e) {
      expect((e as Error).message).to.equal('expired certificate');
    }
  });

  it('does not leak state between results', async () => {
    const first = await fileSource.authenticateToken('secret-1');
    first!.user.groups.push('mutated');
    const second = await fileSource.authenticateToken('secret-1');
    expect(second!.user.groups).to.deep.equal(['dev']);
  });
});

describe('admin token', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gh-admin-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is generated once with mode 0600 and reused', async () => {
    const first = await loadOrCreateAdminToken(dir);
    expect(first).to.match(/^[0-9a-f]{64}$/);
    expect((await stat(path.join(dir, 'admin.token'))).mode & 0o777).to.equal(0o600);
    expect(await loadOrCreateAdminToken(dir)).to.equal(first);
  });

  it('is regenerated when the stored file is not a token', async () => {
    await writeFile(path.join(dir, 'admin.token'), 'short\n');
    expect(await loadOrCreateAdminToken(dir)).to.match(/^[0-9a-f]{64}$/);
  });
});
