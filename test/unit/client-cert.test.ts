// The x509 authenticator's own rules, without TLS: CA bundle parsing, CN/O mapping, the client-auth usage check,
// and how it reads a socket's verification outcome (faked here; test/integration/client-cert.test.ts has real TLS).
import { expect } from 'chai';
import { optionsError } from '../helpers/options.js';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import {
  allowsClientAuth,
  clientCertTlsOptions,
  createClientCertAuthenticator,
  parseCaBundle,
  peerOf,
  userFromCertificate,
  EKU_ANY,
  type PeerSocket,
} from '../../gateway/authn/client-cert.js';
import { AuthenticationError } from '../../gateway/authn/authenticator.js';
import { parseOptions, type OptionsError } from '../../gateway/server/options.js';
import {
  caBundle,
  issueClientCert,
  makeCA,
  type CertificateAuthority,
  type IssuedCertificate,
} from '../helpers/pki.js';
import { rejection } from '../helpers/assertions.js';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const DAY_MS = 86_400_000;

function requestOn(socket: PeerSocket | object): IncomingMessage {
  return { socket } as unknown as IncomingMessage;
}

function tlsSocket(cert: IssuedCertificate | undefined, authorized: boolean, authorizationError?: string): PeerSocket {
  const peer = cert && new X509Certificate(cert.certPem);
  return { authorized, authorizationError, getPeerX509Certificate: () => peer };
}

describe('client certificates (x509 authenticator)', function () {
  this.timeout(10_000);
  let ca: CertificateAuthority;
  let other: CertificateAuthority;

  before(async () => {
    [ca, other] = await Promise.all([makeCA('unit-ca'), makeCA('unit-other-ca')]);
  });

  describe('parseCaBundle', () => {
    it('returns every certificate of the bundle and skips other PEM blocks', async () => {
      const text = `${caBundle(ca)}${ca.keyPem}\n${caBundle(other)}`;
      const certs = parseCaBundle(text);
      expect(certs).to.have.length(2);
      expect(new X509Certificate(certs[0]).subject).to.equal('CN=unit-ca');
      expect(new X509Certificate(certs[1]).subject).to.equal('CN=unit-other-ca');
    });

    it('refuses text without a certificate', () => {
      expect(() => parseCaBundle('not a pem file\n')).to.throw('data does not contain any PEM certificate');
      expect(() => parseCaBundle(ca.keyPem)).to.throw('data does not contain any PEM certificate');
    });

    it('refuses a CERTIFICATE block that does not parse, naming it', () => {
      const broken = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
      expect(() => parseCaBundle(caBundle(ca) + broken)).to.throw(/PEM block 2 is not a valid certificate/);
    });
  });

  describe('userFromCertificate', () => {
    it('maps CN to the user and each O to a group, in order', async () => {
      const { cert } = await issueClientCert(ca, { cn: 'alice', orgs: ['dev', 'system:masters', 'a, b'] });
      expect(userFromCertificate(cert)).to.deep.equal({ name: 'alice', groups: ['dev', 'system:masters', 'a, b'] });
    });

    it('gives no groups without O', async () => {
      const { cert } = await issueClientCert(ca, { cn: 'bob' });
      expect(userFromCertificate(cert)).to.deep.equal({ name: 'bob', groups: [] });
    });

    it('is no user without a CN (as upstream, the request carries on unauthenticated by it)', async () => {
      const { cert } = await issueClientCert(ca, { orgs: ['system:masters'] });
      expect(userFromCertificate(cert)).to.equal(null);
    });
  });

  describe('allowsClientAuth (extended key usage)', () => {
    it('allows a certificate without the extension', async () => {
      expect(allowsClientAuth((await issueClientCert(ca, { cn: 'a', extendedKeyUsages: null })).cert)).to.equal(true);
    });

    it('allows clientAuth, alone or among others, and any usage', async () => {
      expect(allowsClientAuth((await issueClientCert(ca, { cn: 'a' })).cert)).to.equal(true);
      expect(
        allowsClientAuth(
          (await issueClientCert(ca, { cn: 'a', extendedKeyUsages: [SERVER_AUTH, '1.3.6.1.5.5.7.3.2'] })).cert,
        ),
      ).to.equal(true);
      expect(allowsClientAuth((await issueClientCert(ca, { cn: 'a', extendedKeyUsages: [EKU_ANY] })).cert)).to.equal(
        true,
      );
    });

    it('refuses a certificate whose usages leave client auth out', async () => {
      expect(
        allowsClientAuth((await issueClientCert(ca, { cn: 'a', extendedKeyUsages: [SERVER_AUTH] })).cert),
      ).to.equal(false);
    });
  });

  describe('createClientCertAuthenticator', () => {
    it('is not concerned with plain sockets or TLS connections without a certificate', async () => {
      const authn = createClientCertAuthenticator();
      expect(await authn.authenticate(requestOn({}))).to.equal(null);
      expect(await authn.authenticate(requestOn(tlsSocket(undefined, false, 'UNABLE_TO_GET_ISSUER_CERT')))).to.equal(
        null,
      );
    });

    it('authenticates a verified certificate as CN with O groups', async () => {
      const authn = createClientCertAuthenticator();
      const cert = await issueClientCert(ca, { cn: 'alice', orgs: ['dev'] });
      expect(await authn.authenticate(requestOn(tlsSocket(cert, true)))).to.deep.equal({
        user: { name: 'alice', groups: ['dev'] },
      });
    });

    it('refuses a certificate the TLS layer did not verify, with its reason', async () => {
      const authn = createClientCertAuthenticator();
      const cert = await issueClientCert(other, { cn: 'mallory', orgs: ['system:masters'] });
      const e = await rejection(
        authn.authenticate(requestOn(tlsSocket(cert, false, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'))),
      );
      expect(e).to.be.instanceOf(AuthenticationError);
      expect(e.message).to.match(
        /^verifying certificate SN=\d+, subject="CN=mallory, O=system:masters" failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE$/,
      );
    });

    it('refuses a verified certificate that is not for client auth', async () => {
      const authn = createClientCertAuthenticator();
      const cert = await issueClientCert(ca, { cn: 'server', extendedKeyUsages: [SERVER_AUTH] });
      const e = await rejection(authn.authenticate(requestOn(tlsSocket(cert, true))));
      expect(e).to.be.instanceOf(AuthenticationError);
      expect(e.message).to.contain('x509: certificate specifies an incompatible key usage');
    });

    it('checks the validity window on every request of a connection', async () => {
      let now = Date.now();
      const authn = createClientCertAuthenticator({ now: () => now });
      const cert = await issueClientCert(ca, { cn: 'alice', notAfter: new Date(now + DAY_MS) });
      const socket = tlsSocket(cert, true);
      expect((await authn.authenticate(requestOn(socket)))?.user.name).to.equal('alice');
      now += 2 * DAY_MS;
      const e = await rejection(authn.authenticate(requestOn(socket)));
      expect(e).to.be.instanceOf(AuthenticationError);
      expect(e.message).to.contain('certificate has expired or is not yet valid');
    });

    it('judges again when the connection presents another certificate (renegotiation)', async () => {
      const authn = createClientCertAuthenticator();
      const alice = new X509Certificate((await issueClientCert(ca, { cn: 'alice' })).certPem);
      const bob = new X509Certificate((await issueClientCert(ca, { cn: 'bob' })).certPem);
      let peer = alice;
      const socket: PeerSocket = { authorized: true, getPeerX509Certificate: () => peer };
      expect((await authn.authenticate(requestOn(socket)))?.user.name).to.equal('alice');
      peer = bob;
      expect((await authn.authenticate(requestOn(socket)))?.user.name).to.equal('bob');
    });

    it('hands out a copy of the groups, so later stages cannot change the cached identity', async () => {
      const authn = createClientCertAuthenticator();
      const socket = tlsSocket(await issueClientCert(ca, { cn: 'alice', orgs: ['dev'] }), true);
      (await authn.authenticate(requestOn(socket)))!.user.groups.push('system:masters');
      expect((await authn.authenticate(requestOn(socket)))!.user.groups).to.deep.equal(['dev']);
    });
  });

  describe('peerOf on a real TLS 1.2 connection', () => {
    let server: tls.Server | undefined;
    let client: tls.TLSSocket | undefined;
    after(() => {
      client?.destroy();
      server?.close();
    });

    it('reads the certificate once per handshake, and again after a renegotiation', async () => {
      const serving = await issueClientCert(ca, { cn: 'localhost', extendedKeyUsages: null });
      const alice = await issueClientCert(ca, { cn: 'alice' });
      // What the server saw at each "request" (a line the client sends), as a handler would look at it.
      const seen: { peer: ReturnType<typeof peerOf>; reads: number }[] = [];
      // TLS 1.2: 1.3 has no renegotiation.
      server = tls.createServer(
        { cert: serving.certPem, key: serving.keyPem, ...clientCertTlsOptions([ca.certPem]), maxVersion: 'TLSv1.2' },
        (socket) => {
          let reads = 0;
          const read = socket.getPeerCertificate.bind(socket);
          socket.getPeerCertificate = ((detailed: boolean) => {
            reads++;
            return read(detailed);
          }) as typeof socket.getPeerCertificate;
          socket.on('data', () => {
            seen.push({ peer: peerOf(socket), reads });
            socket.write('ok');
          });
        },
      );
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      const conn = tls.connect({
        port: (server.address() as AddressInfo).port,
        host: '127.0.0.1',
        ca: ca.certPem,
        cert: alice.certPem,
        key: alice.keyPem,
        checkServerIdentity: () => undefined,
      });
      client = conn;
      await new Promise<void>((resolve) => conn.once('secureConnect', resolve));
      const request = (): Promise<void> =>
        new Promise<void>((resolve) => {
          conn.once('data', () => resolve());
          conn.write('x');
        });

      await request();
      await request();
      await new Promise<void>((resolve, reject) => conn.renegotiate({}, (e) => (e ? reject(e) : resolve())));
      await request();

      expect(seen.map((s) => s.reads)).to.deep.equal([1, 1, 2]);
      expect(seen[0].peer?.chain.map((c) => c.subject)).to.deep.equal(['CN=alice', 'CN=unit-ca']);
      expect(seen[1].peer).to.equal(seen[0].peer);
      expect(seen[2].peer).to.not.equal(seen[0].peer);
      expect(seen[2].peer?.leaf.subject).to.equal('CN=alice');
    });
  });

  describe('--client-ca-file', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-client-ca-'));
      await writeFile(path.join(dir, 'ca.crt'), caBundle(ca, other));
      await writeFile(path.join(dir, 'not-pem.txt'), 'hello\n');
    });
    after(() => rm(dir, { recursive: true, force: true }));

    const refusedHere = (argv: string[]): OptionsError => optionsError(argv, dir);

    it('is unset by default and resolved against the working directory when given', () => {
      expect(parseOptions([], dir).clientCaFile).to.equal(undefined);
      expect(parseOptions(['--client-ca-file', 'ca.crt'], dir).clientCaFile).to.equal(path.join(dir, 'ca.crt'));
    });

    it('refuses a missing, non-PEM or empty value, naming the flag', () => {
      expect(refusedHere(['--client-ca-file', 'missing.crt']).message).to.match(
        /^invalid argument ".*missing\.crt" for "--client-ca-file" flag: unable to read the client CA bundle: ENOENT/,
      );
      expect(refusedHere(['--client-ca-file=not-pem.txt']).message).to.match(
        /for "--client-ca-file" flag: data does not contain any PEM certificate$/,
      );
      expect(refusedHere(['--client-ca-file=']).message).to.contain('"--client-ca-file" flag: must not be empty');
    });
  });
});
