// `gatehouse credential`: the ExecCredential it prints for each mode, the apiVersion it answers, and its refusals,
// whose messages never carry the secret.
import { expect } from 'chai';
import { execApiVersion, runCredential, type CredentialIO } from '../../gateway/cli/credential.js';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nsecret-key-material\n-----END PRIVATE KEY-----\n';
const FILES: Record<string, string> = {
  '/t/token': '  s3cr3t-token-value\n',
  '/t/empty': '\n',
  '/t/spaced': 'two words\n',
  '/t/tls.crt': CERT,
  '/t/tls.key': KEY,
};
const NOW = new Date('2026-11-22T03:00:00.250Z');

async function run(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CredentialIO = {
    env,
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    now: () => NOW,
    readFile: async (f) => {
      if (f in FILES) return FILES[f];
      throw Object.assign(new Error(`ENOENT: no such file, open '${f}'`), { code: 'ENOENT' });
    },
  };
  const code = await runCredential(argv, io);
  return { code, out, err };
}

const v1Info = (apiVersion: string) => ({
  KUBERNETES_EXEC_INFO: JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: { interactive: false } }),
});

describe('gatehouse credential', () => {
  it('token from a file: trimmed, v1 by default, no expiry unless asked', async () => {
    const r = await run(['token', '--token-file', '/t/token']);
    expect(r.code, r.err).to.equal(0);
    expect(JSON.parse(r.out)).to.deep.equal({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 's3cr3t-token-value' },
    });
  });

  it('--expiration sets an RFC 3339 expirationTimestamp that far ahead', async () => {
    const r = await run(['token', '--token=abc', '--expiration=1h30m']);
    expect(JSON.parse(r.out).status).to.deep.equal({ token: 'abc', expirationTimestamp: '2026-11-22T04:30:00Z' });
  });

  it('client certificate and key as PEM data', async () => {
    const r = await run(
      ['client-cert', '--cert', '/t/tls.crt', '--key', '/t/tls.key', '--expiration', '10m'],
      v1Info('client.authentication.k8s.io/v1'),
    );
    expect(JSON.parse(r.out)).to.deep.equal({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { clientCertificateData: CERT, clientKeyData: KEY, expirationTimestamp: '2026-11-22T03:10:00Z' },
    });
  });

  it('answers the apiVersion kubectl announces, or the one asked for', async () => {
    expect(
      JSON.parse((await run(['token', '--token=a'], v1Info('client.authentication.k8s.io/v1beta1'))).out).apiVersion,
    ).to.equal('client.authentication.k8s.io/v1beta1');
    expect(
      execApiVersion(undefined, {
        PLATFORM_EXEC_INFO: JSON.stringify({ apiVersion: 'client.authentication.platform.io/v1' }),
      }),
    ).to.equal('client.authentication.platform.io/v1');
    expect(
      JSON.parse(
        (
          await run(
            ['token', '--token=a', '--api-version=client.authentication.platform.io/v1beta1'],
            v1Info('client.authentication.k8s.io/v1'),
          )
        ).out,
      ).apiVersion,
    ).to.equal('client.authentication.platform.io/v1beta1');
  });

  it('refuses bad input with exit 1 and a message that never holds the secret', async () => {
    const cases: [string[], RegExp, NodeJS.ProcessEnv?][] = [
      [[], /credential type is required/],
      [['password'], /unknown credential type "password"/],
      [['token'], /exactly one of --token and --token-file/],
      [['token', '--token=s3cr3t-token-value', '--token-file=/t/token'], /exactly one of --token and --token-file/],
      [['token', '--token-file=/t/missing'], /--token-file: cannot read \/t\/missing: ENOENT/],
      [['token', '--token-file=/t/empty'], /holds no token/],
      [['token', '--token-file=/t/spaced'], /must not contain whitespace/],
      [['token', '--token=s3cr3t-token-value', '--expiration=soon'], /--expiration: time: invalid duration "soon"/],
      [['token', '--token=s3cr3t-token-value', '--expiration=0s'], /greater than 0/],
      [['token', '--token=s3cr3t-token-value', '--cert=/t/tls.crt'], /unknown flag --cert/],
      [
        ['token', '--token=s3cr3t-token-value'],
        /unsupported ExecCredential apiVersion "client.authentication.k8s.io\/v1alpha1"/,
        v1Info('client.authentication.k8s.io/v1alpha1'),
      ],
      [
        ['token', '--token=s3cr3t-token-value'],
        /KUBERNETES_EXEC_INFO is not valid JSON/,
        { KUBERNETES_EXEC_INFO: '{' },
      ],
      [['client-cert', '--cert=/t/tls.crt'], /--cert and --key are both required/],
      [['client-cert', '--cert=/t/tls.key', '--key=/t/tls.key'], /--cert: \/t\/tls.key holds no PEM certificate/],
      [['client-cert', '--cert=/t/tls.crt', '--key=/t/tls.crt'], /--key: \/t\/tls.crt holds no PEM private key/],
    ];
    for (const [argv, message, env] of cases) {
      const r = await run(argv, env);
      expect(r.code, argv.join(' ')).to.equal(1);
      expect(r.out).to.equal('');
      expect(r.err).to.match(message);
      expect(r.err).to.not.contain('s3cr3t-token-value');
      expect(r.err).to.not.contain('secret-key-material');
    }
  });

  it('--help prints the usage', async () => {
    const r = await run(['--help']);
    expect(r.code).to.equal(0);
    expect(r.out).to.contain('gatehouse credential token').and.contain('gatehouse credential client-cert');
  });
});
