// The webhook's client configuration file (kubeconfig format): current context, inline and file-referenced
// certificates (relative to the file), bearer token or token file, and errors that name the file but no secret.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { loadWebhookClientConfig } from '../../policies/webhook/client-config.js';

describe('webhook client configuration', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-webhook-client-'));
    await writeFile(path.join(dir, 'ca.pem'), 'CA PEM');
    await writeFile(path.join(dir, 'client.pem'), 'CERT PEM');
    await writeFile(path.join(dir, 'client.key'), 'KEY PEM');
    await writeFile(path.join(dir, 'token'), 'file-token\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const write = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };

  it('follows the current context and reads file references relative to the file', async () => {
    const file = await write(
      'a.yaml',
      `
apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: {server: "https://other.example:1"}
- name: hook
  cluster:
    server: https://hook.example:8443/authorize
    certificate-authority: ca.pem
users:
- name: me
  user: {client-certificate: client.pem, client-key: client.key, tokenFile: token}
contexts:
- name: main
  context: {cluster: hook, user: me}
current-context: main
`,
    );
    const c = loadWebhookClientConfig(file);
    expect(c.server.href).to.equal('https://hook.example:8443/authorize');
    expect(c).to.include({
      ca: 'CA PEM',
      cert: 'CERT PEM',
      key: 'KEY PEM',
      token: 'file-token',
      insecureSkipTlsVerify: false,
    });
  });

  it('reads inline base64 data and a token, taking the first cluster without a context', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const file = await write(
      'b.json',
      JSON.stringify({
        clusters: [
          { name: 'c', cluster: { server: 'https://127.0.0.1:9', 'certificate-authority-data': b64('INLINE CA') } },
        ],
        users: [
          {
            name: 'u',
            user: { token: 'inline-token', 'client-certificate-data': b64('C'), 'client-key-data': b64('K') },
          },
        ],
      }),
    );
    expect(loadWebhookClientConfig(file)).to.include({ ca: 'INLINE CA', token: 'inline-token', cert: 'C', key: 'K' });
  });

  it('refuses a file without a server, with a certificate but no key, or with a missing reference', async () => {
    expect(() => loadWebhookClientConfig(path.join(dir, 'none.yaml'))).to.throw(
      /unable to read webhook client configuration .*ENOENT/,
    );
    const noServer = await write('c.yaml', 'clusters:\n- name: c\n  cluster: {}\n');
    expect(() => loadWebhookClientConfig(noServer)).to.throw('the cluster has no server');
    const halfPair = await write(
      'd.yaml',
      'clusters:\n- name: c\n  cluster: {server: "https://h"}\nusers:\n- name: u\n  user: {client-certificate: client.pem, token: secret-token-value}\n',
    );
    expect(() => loadWebhookClientConfig(halfPair)).to.throw('client certificate and key must be given together');
    const missing = await write(
      'e.yaml',
      'clusters:\n- name: c\n  cluster: {server: "https://h", certificate-authority: nope.pem}\n',
    );
    expect(() => loadWebhookClientConfig(missing)).to.throw(/unable to read certificate-authority .*nope\.pem: ENOENT/);
    const badContext = await write(
      'f.yaml',
      'clusters:\n- name: c\n  cluster: {server: "https://h"}\ncurrent-context: gone\ncontexts: []\n',
    );
    expect(() => loadWebhookClientConfig(badContext)).to.throw('no contexts defined');
    try {
      loadWebhookClientConfig(halfPair);
    } catch (e) {
      expect((e as Error).message).not.to.include('secret-token-value');
    }
  });
});
