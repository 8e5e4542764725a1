// The stock kubectl using `gatehouse credential` as its exec credential plugin (users[].user.exec), for a bearer
// token and for a client certificate, against a real Gatehouse. The plugin runs from the TypeScript sources through
// tsx (`node --import tsx gateway/main.ts credential ...`), so the test does not depend on a built dist/.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import yaml from 'js-yaml';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import { caBundle, issueClientCert, makeCA } from '../helpers/pki.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = path.join(REPO, 'gateway', 'main.ts');
const TOKEN = 'plugin-token-5d1c8e0f2b7a';
// tsx's ESM loader as an absolute URL, so the plugin does not depend on the directory kubectl starts it in.
const TSX = pathToFileURL(createRequire(path.join(REPO, 'package.json')).resolve('tsx')).href;

interface ExecUser {
  apiVersion: string;
  args: string[];
}

/** A kubeconfig whose only user gets its credential from `gatehouse credential <args>`. */
function kubeconfig(gh: TestGatehouse, user: ExecUser): string {
  return yaml.dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'gatehouse',
        cluster: { server: gh.url, 'certificate-authority-data': Buffer.from(gh.ca).toString('base64') },
      },
    ],
    users: [
      {
        name: 'plugin',
        user: {
          exec: {
            apiVersion: user.apiVersion,
            command: process.execPath,
            args: ['--import', TSX, MAIN, 'credential', ...user.args],
            interactiveMode: 'Never',
          },
        },
      },
    ],
    contexts: [{ name: 'plugin', context: { cluster: 'gatehouse', user: 'plugin' } }],
    'current-context': 'plugin',
  });
}

describe('gatehouse credential as kubectl exec plugin', function () {
  this.timeout(120_000);
  let dir: string;
  let gh: TestGatehouse;
  const kubectls: Kubectl[] = [];

  const kubectlFor = async (name: string, user: ExecUser): Promise<Kubectl> => {
    const file = path.join(dir, `${name}.kubeconfig`);
    await writeFile(file, kubeconfig(gh, user), { mode: 0o600 });
    const k = await createKubectl(file);
    kubectls.push(k);
    return k;
  };

  const whoami = async (k: Kubectl) =>
    JSON.parse(await k.ok(['auth', 'whoami', '-o', 'json'], { timeoutMs: 60_000 })).status.userInfo;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-credential-'));
    const ca = await makeCA('plugin-client-ca');
    const client = await issueClientCert(ca, { cn: 'cert-plugin-user', orgs: ['plugin-group'] });
    await Promise.all([
      writeFile(path.join(dir, 'client-ca.crt'), caBundle(ca)),
      writeFile(path.join(dir, 'tokens.csv'), `${TOKEN},token-plugin-user,tp-uid,plugin-group\n`),
      writeFile(path.join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 }),
      writeFile(path.join(dir, 'tls.crt'), client.certPem),
      writeFile(path.join(dir, 'tls.key'), client.keyPem, { mode: 0o600 }),
    ]);
    gh = await startTestGatehouse([
      '--token-auth-file',
      path.join(dir, 'tokens.csv'),
      '--client-ca-file',
      path.join(dir, 'client-ca.crt'),
    ]);
  });

  after(async () => {
    for (const k of kubectls) await k.cleanup();
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('token credential (client.authentication.k8s.io/v1): kubectl get ns and auth whoami', async () => {
    const k = await kubectlFor('token', {
      apiVersion: 'client.authentication.k8s.io/v1',
      args: ['token', '--token-file', path.join(dir, 'token'), '--expiration', '1h'],
    });
    expect(await k.ok(['get', 'ns', '-o', 'name'], { timeoutMs: 60_000 })).to.match(/^namespace\/default$/m);
    expect(await whoami(k)).to.deep.equal({
      username: 'token-plugin-user',
      uid: 'tp-uid',
      groups: ['plugin-group', 'system:authenticated'],
    });
  });

  it('client-certificate credential (client.authentication.k8s.io/v1beta1): kubectl get ns and auth whoami', async () => {
    const k = await kubectlFor('cert', {
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      args: ['client-cert', '--cert', path.join(dir, 'tls.crt'), '--key', path.join(dir, 'tls.key')],
    });
    expect(await k.ok(['get', 'ns', '-o', 'name'], { timeoutMs: 60_000 })).to.match(/^namespace\/default$/m);
    expect(await whoami(k)).to.deep.equal({
      username: 'cert-plugin-user',
      groups: ['plugin-group', 'system:authenticated'],
    });
  });

  it('bin/gatehouse.js dispatches `credential` to the plugin (without starting a server)', async () => {
    const { execFile } = await import('node:child_process');
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [path.join(REPO, 'bin', 'gatehouse.js'), 'credential', 'token', '--token', 'abc'],
        {
          env: {
            ...process.env,
            KUBERNETES_EXEC_INFO: JSON.stringify({
              apiVersion: 'client.authentication.k8s.io/v1beta1',
              kind: 'ExecCredential',
              spec: { interactive: false },
            }),
          },
          timeout: 60_000,
        },
        (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
      );
    });
    expect(JSON.parse(out)).to.deep.equal({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      status: { token: 'abc' },
    });
  });

  it('a plugin that fails makes kubectl fail with its message, not fall back to anonymous', async () => {
    const k = await kubectlFor('broken', {
      apiVersion: 'client.authentication.k8s.io/v1',
      args: ['token', '--token-file', path.join(dir, 'missing-token')],
    });
    const r = await k.run(['auth', 'whoami', '-o', 'json'], { timeoutMs: 60_000 });
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.contain('cannot read');
    expect(r.stdout).to.not.contain('system:anonymous');
  });
});
