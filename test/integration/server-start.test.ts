import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { startGatehouse } from '../../gateway/main.js';
import { OptionsError } from '../../gateway/server/options.js';
import { httpsRequest, startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { rejection } from '../helpers/assertions.js';
import { within } from '../../backends/testing/conformance-harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net
      .createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
  });
}

describe('server start', function () {
  this.timeout(30_000);
  let dir: string;
  const started: TestGatehouse[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-start-'));
  });
  afterEach(async () => {
    while (started.length) await started.pop()!.close();
    await rm(dir, { recursive: true, force: true });
  });
  const start = async (args: string[] = []) => {
    const gh = await startTestGatehouse(args, { dataDir: dir });
    started.push(gh);
    return gh;
  };

  it('generates certificates and an admin kubeconfig that reach the server over verified HTTPS', async () => {
    const gh = await start();
    for (const f of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key']) {
      expect((await stat(path.join(dir, 'pki', f))).isFile(), f).to.equal(true);
    }
    expect((await stat(path.join(dir, 'pki', 'ca.key'))).mode & 0o777).to.equal(0o600);
    expect((await stat(path.join(dir, 'pki', 'apiserver.key'))).mode & 0o777).to.equal(0o600);
    const serving = new X509Certificate(await readFile(path.join(dir, 'pki', 'apiserver.crt')));
    expect(serving.subjectAltName).to.contain('DNS:localhost').and.contain('IP Address:127.0.0.1');
    expect(serving.issuer).to.contain('gatehouse-ca');

    expect(gh.kubeconfigPath).to.equal(path.join(dir, 'admin.kubeconfig'));
    expect((await stat(gh.kubeconfigPath)).mode & 0o777).to.equal(0o600);
    const kc = yaml.load(await readFile(gh.kubeconfigPath, 'utf8')) as any;
    expect(kc['current-context']).to.equal('gatehouse');
    const cluster = kc.clusters[0].cluster;
    expect(cluster.server)
      .to.equal(gh.url)
      .and.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = Buffer.from(cluster['certificate-authority-data'], 'base64').toString();
    expect(ca).to.equal(await readFile(path.join(dir, 'pki', 'ca.crt'), 'utf8'));
    const token = kc.users[0].user.token;
    expect(token)
      .to.equal(gh.adminToken)
      .and.match(/^[0-9a-f]{64}$/);

    const res = await httpsRequest(cluster.server, ca, 'GET', '/readyz?verbose', { token });
    expect(res.status, res.body).to.equal(200);
    expect(res.body)
      .to.contain('[+]ping ok')
      .and.contain('[+]etcd ok')
      .and.contain('[+]shutdown ok')
      .and.contain('[+]poststarthook/start-system-namespaces-controller ok')
      .and.contain('[+]autoregister-completion ok');
    expect(gh.logs.join('\n'))
      .to.contain(`Gatehouse is serving on ${gh.url}`)
      .and.contain(`kubectl --kubeconfig ${gh.kubeconfigPath} get ns`);
  });

  it('refuses a client that does not trust the CA', async () => {
    const gh = await start();
    const other = (await import('node:tls')).rootCertificates.join('\n');
    try {
      await httpsRequest(gh.url, other, 'GET', '/livez');
      expect.fail('the TLS handshake should fail');
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).to.match(/CERT|SIGNATURE|SELF_SIGNED|UNABLE/);
    }
  });

  it('reuses the CA, certificate and admin token on restart, rewriting the port', async () => {
    const first = await start();
    const caBefore = await readFile(path.join(dir, 'pki', 'ca.crt'), 'utf8');
    const certBefore = await readFile(path.join(dir, 'pki', 'apiserver.crt'), 'utf8');
    await started.pop()!.close();
    const second = await start();
    expect(await readFile(path.join(dir, 'pki', 'ca.crt'), 'utf8')).to.equal(caBefore);
    expect(await readFile(path.join(dir, 'pki', 'apiserver.crt'), 'utf8')).to.equal(certBefore);
    expect(second.adminToken).to.equal(first.adminToken);
    const kc = yaml.load(await readFile(second.kubeconfigPath, 'utf8')) as any;
    expect(kc.clusters[0].cluster.server).to.equal(second.url);
    expect((await second.request('GET', '/livez')).status).to.equal(200);
  });

  it('authenticates static tokens and the admin token, and 401s unknown ones', async () => {
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, 'alice-token,alice,1001,"dev"\n');
    const gh = await start(['--token-auth-file', tokens, '--authorization-mode=AlwaysDeny']);
    const admin = await gh.request('GET', '/api/v1/namespaces');
    expect(admin.status, admin.body).to.equal(200);
    const alice = await gh.request('GET', '/api/v1/namespaces', { token: 'alice-token' });
    expect(alice.status).to.equal(403);
    expect(alice.json().message).to.equal(
      'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.',
    );
    const bad = await gh.request('GET', '/api/v1/namespaces', { token: 'wrong' });
    expect(bad.status).to.equal(401);
    expect(bad.json()).to.include({ kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized', code: 401 });
    const anonymous = await gh.request('GET', '/api/v1/namespaces', { token: null });
    expect(anonymous.status).to.equal(403);
    expect(anonymous.json().message).to.contain('User "system:anonymous"');
  });

  it('serves the built-in namespaces to anonymous under AlwaysAllow', async () => {
    const gh = await start();
    const res = await gh.request('GET', '/api/v1/namespaces', { token: null });
    expect(res.status, res.body).to.equal(200);
    expect(res.json().items.map((n: any) => n.metadata.name)).to.include.members([
      'default',
      'platform-system',
      'platform-public',
    ]);
  });

  it('fails /readyz first on close and then stops', async () => {
    const gh = await start(['--shutdown-delay-duration=300ms']);
    const closing = gh.running.close();
    const during = await gh.request('GET', '/readyz?verbose');
    expect(during.status).to.equal(500);
    expect(during.body).to.contain('[-]shutdown failed: reason withheld');
    expect((await gh.request('GET', '/livez')).status).to.equal(200);
    await closing;
    try {
      await gh.request('GET', '/livez');
      expect.fail('the server should be closed');
    } catch (e) {
      // A kept-alive socket from the earlier requests is reset rather than refused.
      expect((e as NodeJS.ErrnoException).code).to.be.oneOf(['ECONNREFUSED', 'ECONNRESET']);
    }
  });

  it('refuses bad flags with an OptionsError naming them', async () => {
    for (const [args, text] of [
      [['--no-such-flag'], 'unknown flag: --no-such-flag'],
      [['--secure-port=abc'], '"abc" for "--secure-port"'],
      [['--feature-gates=Bogus=true'], 'unrecognized feature gate: Bogus'],
      [['--authorization-mode=ABAC'], 'authorization policy file not passed'],
    ] as const) {
      try {
        await startGatehouse(['--data-dir', dir, ...args], { log: () => {}, out: () => {} });
        expect.fail(`${args.join(' ')} should be refused`);
      } catch (e) {
        expect(e, args.join(' ')).to.be.instanceOf(OptionsError);
        expect((e as Error).message).to.contain(text);
      }
    }
  });

  it('refuses a malformed token file at start-up, naming the line', async () => {
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, 'ok,alice,1\nbroken,bob\n');
    try {
      await startGatehouse(['--data-dir', dir, '--secure-port=0', '--token-auth-file', tokens], {
        log: () => {},
        out: () => {},
      });
      expect.fail('should be refused');
    } catch (e) {
      expect((e as Error).message)
        .to.contain('line 2')
        .and.contain('at least 3 columns');
    }
  });

  it('refuses a --data-dir it cannot create, naming the flag, where Node alone would hang (under /proc)', async function () {
    if (os.platform() !== 'linux') this.skip();
    const started = startGatehouse(['--data-dir', '/proc/gatehouse-no-such-dir', '--secure-port=0'], {
      log: () => {},
      out: () => {},
    });
    const e = await rejection(within(started, 5_000, 'start-up to fail'));
    expect(e.message).to.contain('cannot create the --data-dir /proc/gatehouse-no-such-dir').and.contain('ENOENT');
  });

  it('closes the listener it opened when the start fails after listening (the admin kubeconfig cannot be written)', async () => {
    const port = await freePort();
    // A directory where the kubeconfig goes: the rename that writes it fails, after the port is bound.
    await mkdir(path.join(dir, 'admin.kubeconfig'));
    const e = await rejection(
      startGatehouse(['--data-dir', dir, `--secure-port=${port}`, '--bind-address=127.0.0.1'], {
        log: () => {},
        out: () => {},
      }),
    );
    expect(e.message).to.contain('admin.kubeconfig');
    await new Promise<void>((resolve, reject) => {
      const probe = net
        .createServer()
        .once('error', reject)
        .listen(port, '127.0.0.1', () => probe.close(() => resolve()));
    });
  });

  describe('the gatehouse command', () => {
    function run(args: string[], untilLine?: RegExp): Promise<{ code: number | null; stdout: string; stderr: string }> {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [path.join(root, 'bin/gatehouse.js'), ...args], { cwd: dir });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => {
          stdout += d;
          if (untilLine && untilLine.test(stdout)) child.kill('SIGTERM');
        });
        child.stderr.on('data', (d) => {
          stderr += d;
        });
        child.on('error', reject);
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
    }

    it('exits 1 with "Error: ..." on a bad flag', async () => {
      const { code, stderr } = await run(['--secure-port=nope']);
      expect(code).to.equal(1);
      // At a line's start, not the output's: a dist/ older than the sources puts its warning line first.
      expect(stderr).to.match(/^Error: invalid argument "nope" for "--secure-port" flag/m);
    });

    it('prints usage for --help', async () => {
      const { code, stdout } = await run(['--help']);
      expect(code).to.equal(0);
      expect(stdout).to.contain('--secure-port').and.contain('--feature-gates');
    });

    it('starts, prints how to connect, and exits 0 on SIGTERM', async () => {
      const { code, stdout } = await run(['--data-dir', 'state', '--secure-port', '0'], /get ns\n/);
      expect(stdout).to.match(/Gatehouse is serving on https:\/\/127\.0\.0\.1:\d+\n/);
      expect(stdout).to.contain(`kubectl --kubeconfig ${path.join(dir, 'state', 'admin.kubeconfig')} get ns`);
      expect(code).to.equal(0);
    });
  });
});
