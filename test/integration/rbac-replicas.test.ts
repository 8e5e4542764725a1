// RBAC with two gateway replicas on one PostgreSQL database: both start at once (racing to write the default
// policy), and a binding written through one replica reaches the other's in-memory index through the storage watch.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { replicasOnPostgres, type Replica } from '../helpers/replicas.js';
import { createNamespace, eventually } from '../helpers/api.js';
import { bindingBody, RBAC_V1, roleBody, tokenOf } from '../helpers/rbac.js';

describe('RBAC across two replicas', function () {
  this.timeout(90_000);
  // Both replicas start at once below, with RBAC and a token file; the cluster starts none of its own.
  const env = replicasOnPostgres({ fast: true, names: [] });
  let tmp: string;
  let a: Replica;
  let b: Replica;

  before(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-rbac-rep-'));
    const tokens = path.join(tmp, 'tokens.csv');
    await writeFile(tokens, `${tokenOf('alice')},alice,alice-uid\n`);
    const args = ['--authorization-mode=RBAC', '--token-auth-file', tokens];
    [a, b] = await Promise.all([env.cluster.start('a', args), env.cluster.start('b', args)]);
  });
  after(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it('both start with the default policy in place', async () => {
    for (const r of [a, b]) {
      const res = await r.request('GET', `${RBAC_V1}/clusterrolebindings/system:public-info-viewer`);
      expect(res.status, res.body).to.equal(200);
      expect(res.json().subjects.map((s: { name: string }) => s.name)).to.deep.equal([
        'system:authenticated',
        'system:unauthenticated',
      ]);
      expect((await r.request('GET', '/version', { token: null })).status).to.equal(200);
    }
  });

  it('decides on one replica by bindings written through the other', async () => {
    const ns = await createNamespace(a, 'rbac-rep');
    const asAlice = { token: tokenOf('alice') };
    expect((await b.request('GET', `/api/v1/namespaces/${ns}/configmaps`, asAlice)).status).to.equal(403);
    expect(
      (
        await a.request('POST', `${RBAC_V1}/namespaces/${ns}/roles`, {
          body: roleBody('cm', [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }]),
        })
      ).status,
    ).to.equal(201);
    expect(
      (
        await a.request('POST', `${RBAC_V1}/namespaces/${ns}/rolebindings`, {
          body: bindingBody('alice-cm', 'Role', 'cm', ['alice']),
        })
      ).status,
    ).to.equal(201);
    await eventually(
      'alice allowed on B',
      async () => (await b.request('GET', `/api/v1/namespaces/${ns}/configmaps`, asAlice)).status === 200,
    );
    expect((await b.request('DELETE', `${RBAC_V1}/namespaces/${ns}/rolebindings/alice-cm`)).status).to.equal(200);
    await eventually(
      'alice refused on A',
      async () => (await a.request('GET', `/api/v1/namespaces/${ns}/configmaps`, asAlice)).status === 403,
    );
  });
});
