// kubectl's OpenAPI-driven verbs on a kind the front does not serve: explain reads the second process's OpenAPI v3
// through the front's merged /openapi/v3, apply and diff send their patches through the proxy, and the second
// process does the server-side apply itself (field managers, conflicts).
import { expect } from 'chai';
import { startGatehouseBehindGatehouse, type GatehouseBehindGatehouse } from '../helpers/gatehouse-behind-gatehouse.js';

const cronJob = (ns: string, name: string, schedule: string, image = 'busybox'): string =>
  `apiVersion: batch/v1
kind: CronJob
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  schedule: "${schedule}"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: job
            image: ${image}
`;

describe('Gatehouse behind Gatehouse: kubectl explain, apply and diff of a remote kind', function () {
  this.timeout(120_000);
  let env: GatehouseBehindGatehouse;

  const stored = async (name: string) => {
    const res = await env.onBack('GET', `/apis/batch/v1/namespaces/${env.ns}/cronjobs/${name}`);
    expect(res.status, res.body).to.equal(200);
    return res.json();
  };

  before(async () => {
    env = await startGatehouseBehindGatehouse();
  });

  after(async () => {
    await env?.close();
  });

  it('kubectl explain cronjobs.spec.jobTemplate reads the remote OpenAPI v3 through the front', async () => {
    const out = await env.kubectl.ok(['explain', 'cronjobs.spec.jobTemplate']);
    expect(out).to.match(/GROUP:\s+batch/);
    expect(out).to.match(/KIND:\s+CronJob/);
    expect(out).to.match(/VERSION:\s+v1/);
    // The front serves no batch kind: every line below came from the second process's document.
    expect(out).to.include('FIELD: jobTemplate <Object>');
    expect(out).to.include('Specifies the job that will be created when executing a CronJob.');
    expect(out).to.match(/^ {2}metadata\t<ObjectMeta>$/m);
    expect(out).to.match(/^ {2}spec\t<Object>$/m);
  });

  it('kubectl apply --server-side creates, changes, conflicts with another manager, and forces', async () => {
    const first = await env.kubectl.manifest('ssa-1.yaml', cronJob(env.ns, 'ssa', '0 1 * * *'));
    expect(await env.kubectl.ok(['apply', '--server-side', '-f', first])).to.include(
      'cronjob.batch/ssa serverside-applied',
    );
    const changed = await env.kubectl.manifest('ssa-2.yaml', cronJob(env.ns, 'ssa', '0 2 * * *'));
    await env.kubectl.ok(['apply', '--server-side', '-f', changed]);
    const after = await stored('ssa');
    expect(after.spec.schedule).to.equal('0 2 * * *');
    expect(after.metadata.managedFields.map((m: any) => [m.manager, m.operation])).to.deep.include([
      'kubectl',
      'Apply',
    ]);

    const other = await env.kubectl.manifest('ssa-3.yaml', cronJob(env.ns, 'ssa', '0 3 * * *'));
    const conflict = await env.kubectl.run(['apply', '--server-side', '--field-manager=other', '-f', other]);
    expect(conflict.code, conflict.stderr).to.equal(1);
    expect(conflict.stderr).to.include('Apply failed with 1 conflict: conflict with "kubectl": .spec.schedule');
    expect((await stored('ssa')).spec.schedule).to.equal('0 2 * * *');
    // The same apply patch sent through the front by hand: the second process's 409 comes back as it wrote it.
    const raw = await env.front.request(
      'PATCH',
      `/apis/batch/v1/namespaces/${env.ns}/cronjobs/ssa?fieldManager=other`,
      {
        body: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'ssa' }, spec: { schedule: '0 4 * * *' } },
        headers: { 'content-type': 'application/apply-patch+yaml' },
      },
    );
    expect(raw.status, raw.body).to.equal(409);
    expect(raw.json()).to.deep.include({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect(raw.json().details.causes).to.deep.include({
      reason: 'FieldManagerConflict',
      message: 'conflict with "kubectl"',
      field: '.spec.schedule',
    });

    await env.kubectl.ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', other]);
    const forced = await stored('ssa');
    expect(forced.spec.schedule).to.equal('0 3 * * *');
    const owners = forced.metadata.managedFields.filter((m: any) => JSON.stringify(m.fieldsV1).includes('f:schedule'));
    expect(owners.map((m: any) => m.manager)).to.deep.equal(['other']);
  });

  it('kubectl apply (client-side) creates and changes, and kubectl diff shows the change before it', async () => {
    const first = await env.kubectl.manifest('csa-1.yaml', cronJob(env.ns, 'csa', '0 4 * * *'));
    expect(await env.kubectl.ok(['apply', '-f', first])).to.include('cronjob.batch/csa created');
    const annotations = (await stored('csa')).metadata.annotations;
    expect(annotations).to.have.property('kubectl.kubernetes.io/last-applied-configuration');

    const changed = await env.kubectl.manifest('csa-2.yaml', cronJob(env.ns, 'csa', '0 5 * * *', 'alpine'));
    const diff = await env.kubectl.run(['diff', '-f', changed]);
    // kubectl diff exits 1 when there are differences.
    expect(diff.code, diff.stderr).to.equal(1);
    expect(diff.stdout).to.match(/^-\s+schedule: 0 4 \* \* \*$/m);
    expect(diff.stdout).to.match(/^\+\s+schedule: 0 5 \* \* \*$/m);
    expect(diff.stdout).to.match(/^\+\s+- image: alpine$/m);
    expect((await stored('csa')).spec.schedule).to.equal('0 4 * * *');

    expect(await env.kubectl.ok(['apply', '-f', changed])).to.include('cronjob.batch/csa configured');
    const after = await stored('csa');
    expect(after.spec.schedule).to.equal('0 5 * * *');
    expect(after.spec.jobTemplate.spec.template.spec.containers[0].image).to.equal('alpine');
    const same = await env.kubectl.run(['diff', '-f', changed]);
    expect(same.code, same.stdout + same.stderr).to.equal(0);
  });
});
