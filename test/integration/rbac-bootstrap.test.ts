// The default RBAC policy across restarts (embedded storage, same data dir): what was taken from a default role or
// binding comes back, what an operator added stays, and an object annotated autoupdate "false" is left alone.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MERGE } from '../helpers/api.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { RBAC, RBAC_V1 } from '../helpers/rbac.js';

describe('RBAC default policy reconciliation', function () {
  this.timeout(60_000);
  let dataDir: string;
  let gh: TestGatehouse | undefined;
  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-rbac-boot-'));
  });
  after(async () => {
    await gh?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const patch = async (p: string, body: unknown) => {
    const res = await gh!.request('PATCH', p, { headers: MERGE, body });
    expect(res.status, res.body).to.equal(200);
  };
  const get = async (p: string) => (await gh!.request('GET', p)).json();

  it('restores removed rules and subjects at start, keeping additions and opted-out objects', async () => {
    gh = await startTestGatehouse(['--authorization-mode=RBAC'], { dataDir });
    const extra = { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] };
    await patch(`${RBAC_V1}/clusterroles/system:basic-user`, { rules: [extra] });
    await patch(`${RBAC_V1}/clusterrolebindings/system:discovery`, {
      subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'ops' }],
    });
    await patch(`${RBAC_V1}/clusterroles/system:public-info-viewer`, {
      metadata: { annotations: { [`${RBAC}/autoupdate`]: 'false' } },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
    });
    await gh.close();

    gh = await startTestGatehouse(['--authorization-mode=RBAC'], { dataDir });
    const basic = await get(`${RBAC_V1}/clusterroles/system:basic-user`);
    expect(basic.rules[0]).to.deep.equal(extra);
    expect(basic.rules.flatMap((r: { resources: string[] }) => r.resources)).to.include.members([
      'selfsubjectreviews',
      'selfsubjectaccessreviews',
      'selfsubjectrulesreviews',
    ]);
    const discovery = await get(`${RBAC_V1}/clusterrolebindings/system:discovery`);
    expect(discovery.subjects.map((s: { name: string }) => s.name)).to.deep.equal(['ops', 'system:authenticated']);
    const info = await get(`${RBAC_V1}/clusterroles/system:public-info-viewer`);
    expect(info.rules).to.deep.equal([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
    // The restored policy decides at once: an anonymous /version is refused only by the opted-out role's edit.
    expect((await gh.request('GET', '/healthz', { token: null })).status).to.equal(200);
    expect((await gh.request('GET', '/version', { token: null })).status).to.equal(403);
  });
});
