// Server-side apply with the stock kubectl 1.32: `apply --server-side`, a second manager conflicting, and
// `--force-conflicts` taking the fields over, checked in kubectl's output and in the managedFields read back.
import { expect } from 'chai';
import yaml from 'js-yaml';
import { everyType } from '../helpers/every-type.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

describe('kubectl apply', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();
  const ns = 'e2e-ssa';

  before(async () => {
    const res = await env.gh.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    expect(res.status).to.equal(201);
  });

  const configMap = (data: Record<string, string>) =>
    yaml.dump({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: ns }, data });
  const stored = async (): Promise<any> =>
    (await env.gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)).json();
  const applyArgs = async (data: Record<string, string>, ...flags: string[]) => [
    'apply',
    '--server-side',
    ...flags,
    '-f',
    await env.kubectl.manifest(`cm-${Object.keys(data).join('-')}-${flags.length}.yaml`, configMap(data)),
  ];

  it('creates, changes and prunes with kubectl as the Apply manager', async () => {
    expect(await env.kubectl.ok(await applyArgs({ mode: 'fast', retries: '3' }))).to.equal(
      'configmap/settings serverside-applied\n',
    );
    let obj = await stored();
    expect(obj.data).to.deep.equal({ mode: 'fast', retries: '3' });
    const entry = obj.metadata.managedFields.find((e: any) => e.manager === 'kubectl');
    expect(entry).to.include({ operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1' });
    expect(entry.fieldsV1).to.deep.equal({ 'f:data': { 'f:mode': {}, 'f:retries': {} } });

    expect(await env.kubectl.ok(await applyArgs({ mode: 'safe' }))).to.equal('configmap/settings serverside-applied\n');
    obj = await stored();
    expect(obj.data).to.deep.equal({ mode: 'safe' });
  });

  it('refuses a second manager changing an owned field, naming field and manager, until --force-conflicts', async () => {
    const conflict = await env.kubectl.run(await applyArgs({ mode: 'other' }, '--field-manager=ops'));
    expect(conflict.code).to.equal(1);
    expect(conflict.stderr).to.contain('Apply failed with 1 conflict: conflict with "kubectl": .data.mode');
    expect((await stored()).data).to.deep.equal({ mode: 'safe' });

    expect(
      await env.kubectl.ok(await applyArgs({ mode: 'other' }, '--field-manager=ops', '--force-conflicts')),
    ).to.equal('configmap/settings serverside-applied\n');
    const obj = await stored();
    expect(obj.data).to.deep.equal({ mode: 'other' });
    const owners = Object.fromEntries(obj.metadata.managedFields.map((e: any) => [e.manager, e.fieldsV1]));
    expect(owners.ops).to.deep.equal({ 'f:data': { 'f:mode': {} } });
    expect(owners.kubectl).to.equal(undefined);
  });
  /** Each served kind with a label added, for the change-and-remove rounds. */
  const labelled = (obj: any, labels: Record<string, string> | undefined) => ({
    ...obj,
    metadata: { ...obj.metadata, labels: labels ? { ...(obj.metadata.labels ?? {}), ...labels } : obj.metadata.labels },
  });

  for (const mode of ['client-side', 'server-side'] as const) {
    it(`${mode}: creates every kind, adds a label and removes it again`, async () => {
      const space = `e2e-every-${mode}`;
      const objects = everyType(space);
      const flags = mode === 'server-side' ? ['--server-side'] : [];
      const verb = (word: string) => (mode === 'server-side' ? 'serverside-applied' : word);
      const apply = async (obj: unknown, file: string) =>
        env.kubectl.ok(['apply', ...flags, '-f', await env.kubectl.manifest(`${space}-${file}.yaml`, yaml.dump(obj))]);
      for (const [i, o] of objects.entries()) {
        const name = `${o.printed}/${o.obj.metadata.name}`;
        expect(await apply(o.obj, `${i}-a`)).to.equal(`${name} ${verb('created')}\n`);
        expect(await apply(labelled(o.obj, { round: 'two' }), `${i}-b`)).to.equal(`${name} ${verb('configured')}\n`);
        let stored = (await env.gh.request('GET', o.path)).json();
        expect(stored.metadata.labels?.round, `${o.path} after adding the label`).to.equal('two');
        expect(o.check(stored), `${o.path}: ${JSON.stringify(stored)}`).to.equal(true);
        expect(await apply(o.obj, `${i}-c`)).to.equal(`${name} ${verb('configured')}\n`);
        stored = (await env.gh.request('GET', o.path)).json();
        expect(stored.metadata.labels?.round, `${o.path} after removing the label`).to.equal(undefined);
        expect(o.check(stored), `${o.path}: ${JSON.stringify(stored)}`).to.equal(true);
      }
    });
  }
});
