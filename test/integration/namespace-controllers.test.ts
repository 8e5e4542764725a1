// The controllers that keep one object in every namespace: the `default` ServiceAccount (serviceaccount) and the
// `kube-root-ca.crt` ConfigMap holding the serving CA (root-ca-cert-publisher). Both run by default, put back what
// is deleted, and leave terminating namespaces alone; `--controllers` turns them off.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, MERGE } from '../helpers/api.js';

const saPath = (ns: string) => `/api/v1/namespaces/${ns}/serviceaccounts/default`;
const caPath = (ns: string) => `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`;

async function present(gh: TestGatehouse, path: string, ready: (obj: any) => boolean = () => true): Promise<any> {
  return eventually(path, async () => {
    const res = await gh.request('GET', path);
    return res.status === 200 && ready(res.json()) ? res.json() : undefined;
  });
}

describe('per-namespace controllers', function () {
  describe('with --controllers=* (the default; tests otherwise run without these two)', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--controllers=*']);
    });
    after(async () => gh.close());

    it('gives a new namespace the default ServiceAccount and the root CA ConfigMap with the serving CA', async () => {
      const ns = await createNamespace(gh, 'fresh');
      await present(gh, saPath(ns));
      const cm = await present(gh, caPath(ns));
      expect(cm.data).to.deep.equal({ 'ca.crt': gh.ca });
      expect(cm.metadata.annotations).to.have.property('platform.io/description');
    });

    it('gives the built-in namespaces both objects', async () => {
      for (const ns of ['default', 'platform-system', 'platform-public']) {
        await present(gh, saPath(ns));
        await present(gh, caPath(ns));
      }
    });

    it('creates both again when they are deleted', async () => {
      const ns = await createNamespace(gh, 'deleted');
      const sa = await present(gh, saPath(ns));
      const cm = await present(gh, caPath(ns));
      expect((await gh.request('DELETE', saPath(ns))).status).to.equal(200);
      expect((await gh.request('DELETE', caPath(ns))).status).to.equal(200);
      await present(gh, saPath(ns), (o) => o.metadata.uid !== sa.metadata.uid);
      const again = await present(gh, caPath(ns), (o) => o.metadata.uid !== cm.metadata.uid);
      expect(again.data).to.deep.equal({ 'ca.crt': gh.ca });
    });

    it("restores the CA bundle when the ConfigMap is edited, keeping the owner's labels", async () => {
      const ns = await createNamespace(gh, 'edited');
      await present(gh, caPath(ns));
      const edited = await gh.request('PATCH', caPath(ns), {
        body: { metadata: { labels: { mine: 'yes' } }, data: { 'ca.crt': 'forged', extra: 'x' } },
        headers: MERGE,
      });
      expect(edited.status).to.equal(200);
      const restored = await present(gh, caPath(ns), (o) => o.data['ca.crt'] === gh.ca);
      expect(restored.data).to.deep.equal({ 'ca.crt': gh.ca });
      expect(restored.metadata.labels).to.deep.equal({ mine: 'yes' });
    });

    it('does not refill a terminating namespace', async () => {
      const ns = await createNamespace(gh, 'ending');
      await present(gh, saPath(ns));
      // A finalizer on the ServiceAccount holds the namespace in Terminating while the test looks.
      const held = await gh.request('PATCH', saPath(ns), {
        body: { metadata: { finalizers: ['example.com/hold'] } },
        headers: MERGE,
      });
      expect(held.status).to.equal(200);
      expect((await gh.request('DELETE', `/api/v1/namespaces/${ns}`)).status).to.equal(200);
      await eventually(
        'the root CA map removed by the namespace controller',
        async () => (await gh.request('GET', caPath(ns))).status === 404,
      );
      // The namespace controller has gone through the namespace's content once; nothing came back meanwhile.
      const listed = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
      expect(listed.json().items).to.deep.equal([]);
      expect(
        (await gh.request('PATCH', saPath(ns), { body: { metadata: { finalizers: null } }, headers: MERGE })).status,
      ).to.equal(200);
      await eventually(
        'the namespace gone',
        async () => (await gh.request('GET', `/api/v1/namespaces/${ns}`)).status === 404,
      );
    });
  });

  describe('with --tls-cert-file', () => {
    it('publishes the bundle of the certificate file in use', async () => {
      // A real serving pair: the one a first Gatehouse generated, served by a second with the CA appended.
      const first = await startTestGatehouse();
      const pki = path.join(first.dataDir, 'pki');
      const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-root-ca-'));
      const bundle = `${(await readFile(path.join(pki, 'apiserver.crt'), 'utf8')).trim()}\n${await readFile(path.join(pki, 'ca.crt'), 'utf8')}`;
      await writeFile(path.join(dir, 'tls.crt'), bundle);
      await writeFile(path.join(dir, 'tls.key'), await readFile(path.join(pki, 'apiserver.key'), 'utf8'));
      await first.close();
      const gh = await startTestGatehouse([
        '--controllers=*',
        '--tls-cert-file',
        path.join(dir, 'tls.crt'),
        '--tls-private-key-file',
        path.join(dir, 'tls.key'),
      ]);
      try {
        const ns = await createNamespace(gh, 'provided');
        expect((await present(gh, caPath(ns))).data).to.deep.equal({ 'ca.crt': bundle });
      } finally {
        await gh.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('with --controllers=*,-serviceaccount', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--controllers=*,-serviceaccount']);
    });
    after(async () => gh.close());

    it('publishes the root CA but creates no default ServiceAccount', async () => {
      const ns = await createNamespace(gh, 'off');
      await present(gh, caPath(ns));
      // The publisher has seen the namespace; the ServiceAccount controller would have acted on the same event.
      expect((await gh.request('GET', saPath(ns))).status).to.equal(404);
    });
  });

  describe('with --controllers=-root-ca-cert-publisher', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--controllers=-root-ca-cert-publisher,*']);
    });
    after(async () => gh.close());

    it('creates the default ServiceAccount but publishes no root CA', async () => {
      const ns = await createNamespace(gh, 'off');
      await present(gh, saPath(ns));
      expect((await gh.request('GET', caPath(ns))).status).to.equal(404);
    });
  });
});
