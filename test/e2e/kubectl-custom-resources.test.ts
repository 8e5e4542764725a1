// Custom objects with the stock kubectl: a definition applied and waited for, then its objects applied, listed by
// plural, short name and category, explained from the OpenAPI document, scaled, and deleted with their definition;
// server-side apply by two managers with its conflict, `get -w` seeing a change, and a quota counting them.
import { expect } from 'chai';
import { gatehouseWithKubectl, yamlManifest } from '../helpers/kubectl-suite.js';
import { parseColumns } from '../helpers/kubectl.js';
import { eventually } from '../helpers/api.js';

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.shop.example.com' },
  spec: {
    group: 'shop.example.com',
    names: { plural: 'widgets', kind: 'Widget', shortNames: ['wdg'], categories: ['shop'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        additionalPrinterColumns: [
          { name: 'Color', type: 'string', jsonPath: '.spec.color' },
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                description: 'What the widget should be.',
                properties: {
                  color: { type: 'string', enum: ['red', 'blue'], description: 'The colour of the widget.' },
                  size: { type: 'integer', minimum: 1 },
                  replicas: { type: 'integer' },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

/** A second kind, its own definition, so that these tests do not depend on the first one's deletion. */
const GADGET_CRD = {
  ...WIDGET_CRD,
  metadata: { name: 'gadgets.shop.example.com' },
  spec: {
    ...WIDGET_CRD.spec,
    names: { plural: 'gadgets', kind: 'Gadget' },
    versions: [{ ...WIDGET_CRD.spec.versions[0], additionalPrinterColumns: undefined, subresources: undefined }],
  },
};

const widget = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'shop.example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
  spec,
});

describe('kubectl and custom objects', function () {
  this.timeout(90_000);
  const env = gatehouseWithKubectl();

  it('applies a definition and its objects, lists them by plural (with their printer columns), short name and category, and explains them', async () => {
    const crdFile = await env.kubectl.manifest('widgets-crd.yaml', yamlManifest(WIDGET_CRD));
    await env.kubectl.ok(['apply', '-f', crdFile]);
    await env.kubectl.ok(['wait', '--for', 'condition=established', '--timeout=20s', 'crd/widgets.shop.example.com']);

    const objects = await env.kubectl.manifest(
      'widgets.yaml',
      yamlManifest(widget('small', { color: 'red', size: 1 }), widget('large', { color: 'blue', size: 9 })),
    );
    expect(await env.kubectl.ok(['apply', '-f', objects])).to.include('widget.shop.example.com/small created');
    expect(await env.kubectl.ok(['apply', '-f', objects])).to.include('widget.shop.example.com/small unchanged');

    for (const what of ['widgets', 'wdg', 'shop']) {
      const rows = parseColumns(await env.kubectl.ok(['get', what, '-n', 'default']));
      expect(
        rows.map((r) => r.NAME),
        what,
      ).to.have.members(['large', 'small']);
    }
    const table = parseColumns(await env.kubectl.ok(['get', 'widgets', '-n', 'default']));
    expect(Object.keys(table[0])).to.deep.equal(['NAME', 'COLOR', 'SIZE', 'AGE']);
    expect(table.map((r) => [r.NAME, r.COLOR, r.SIZE])).to.deep.equal([
      ['large', 'blue', '9'],
      ['small', 'red', '1'],
    ]);
    expect(table[0].AGE).to.match(/^\d+s$/);
    const wide = parseColumns(await env.kubectl.ok(['get', 'widgets', '-n', 'default', '-o', 'wide']));
    expect(Object.keys(wide[0])).to.deep.equal(['NAME', 'COLOR', 'SIZE', 'REPLICAS', 'AGE']);
    expect(await env.kubectl.ok(['get', 'wdg', 'small', '-n', 'default', '-o', 'jsonpath={.spec.color}'])).to.equal(
      'red',
    );

    const explained = await env.kubectl.ok(['explain', 'widgets.spec.color']);
    expect(explained).to.include('The colour of the widget.');

    const bad = await env.kubectl.run([
      'apply',
      '-f',
      await env.kubectl.manifest('bad.yaml', yamlManifest(widget('bad', { color: 'green' }))),
    ]);
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.include('spec.color: Unsupported value: "green"');

    expect(await env.kubectl.ok(['scale', 'widget', 'small', '-n', 'default', '--replicas=3'])).to.include(
      'widget.shop.example.com/small scaled',
    );
    expect(
      await env.kubectl.ok(['get', 'widget', 'small', '-n', 'default', '-o', 'jsonpath={.spec.replicas}']),
    ).to.equal('3');
    const scaledRow = parseColumns(await env.kubectl.ok(['get', 'widgets', 'small', '-n', 'default', '-o', 'wide']));
    expect(scaledRow[0].REPLICAS).to.equal('3');

    // Deleting the definition deletes its objects first: defined again, it has none.
    expect(await env.kubectl.ok(['delete', 'crd', 'widgets.shop.example.com'])).to.include('deleted');
    await env.kubectl.ok(['apply', '-f', crdFile]);
    await env.kubectl.ok(['wait', '--for', 'condition=established', '--timeout=20s', 'crd/widgets.shop.example.com']);
    const empty = await env.kubectl.run(['get', 'widgets', '-n', 'default']);
    expect(empty.code, empty.stderr).to.equal(0);
    expect(empty.stderr).to.include('No resources found in default namespace.');
    await env.kubectl.ok(['delete', 'crd', 'widgets.shop.example.com']);
    const gone = await env.kubectl.run(['get', 'widgets', '-n', 'default']);
    expect(gone.code).to.not.equal(0);
    // kubectl's discovery cache still names the resource; the server no longer serves it.
    expect(gone.stderr).to.include(
      'Unable to list "shop.example.com/v1, Resource=widgets": the server could not find the requested resource',
    );
  });

  describe('with a second definition', () => {
    const ns = 'shop';
    const gadget = (spec: Record<string, unknown>) => ({
      apiVersion: 'shop.example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g', namespace: ns },
      spec,
    });
    before(async () => {
      await env.kubectl.ok(['create', 'namespace', ns]);
      await env.kubectl.ok(['apply', '-f', await env.kubectl.manifest('gadgets-crd.yaml', yamlManifest(GADGET_CRD))]);
      await env.kubectl.ok(['wait', '--for', 'condition=established', '--timeout=20s', 'crd/gadgets.shop.example.com']);
    });

    it('server-side applies with two managers: a conflict naming field and manager, then --force-conflicts', async () => {
      const apply = async (manager: string, spec: Record<string, unknown>, ...flags: string[]) =>
        env.kubectl.run([
          'apply',
          '--server-side',
          `--field-manager=${manager}`,
          ...flags,
          '-f',
          await env.kubectl.manifest(`gadget-${manager}-${flags.length}.yaml`, yamlManifest(gadget(spec))),
        ]);
      const first = await apply('a', { color: 'red', size: 2 });
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stdout).to.equal('gadget.shop.example.com/g serverside-applied\n');

      const conflict = await apply('b', { color: 'blue' });
      expect(conflict.code).to.equal(1);
      expect(conflict.stderr).to.contain('Apply failed with 1 conflict: conflict with "a": .spec.color');
      const read = async () =>
        JSON.parse(await env.kubectl.ok(['get', 'gadget', 'g', '-n', ns, '-o', 'json', '--show-managed-fields']));
      expect((await read()).spec).to.deep.equal({ color: 'red', size: 2 });

      const forced = await apply('b', { color: 'blue' }, '--force-conflicts');
      expect(forced.code, forced.stderr).to.equal(0);
      const obj = await read();
      expect(obj.spec).to.deep.equal({ color: 'blue', size: 2 });
      const owners = Object.fromEntries(obj.metadata.managedFields.map((e: any) => [e.manager, e]));
      expect(owners.b).to.deep.include({ operation: 'Apply', apiVersion: 'shop.example.com/v1' });
      expect(owners.b.fieldsV1).to.deep.equal({ 'f:spec': { 'f:color': {} } });
      expect(owners.a.fieldsV1).to.deep.equal({ 'f:spec': { 'f:size': {} } });
    });

    it('get -w sees a change of an object', async () => {
      const watch = env.kubectl.stream(['get', 'gadgets', '-n', ns, '--watch', '--output-watch-events']);
      try {
        await watch.waitForLine(/^ADDED\s+g\s/);
        const from = watch.lines.length;
        await env.kubectl.ok(['label', 'gadget', 'g', '-n', ns, 'seen=yes']);
        await watch.waitForLine(/^MODIFIED\s+g\s/, { from, timeoutMs: 15_000 });
      } finally {
        await watch.stop();
      }
    });

    it('create quota counts the objects and refuses one past the limit; describe quota shows the usage', async () => {
      const count = 'count/gadgets.shop.example.com';
      expect(await env.kubectl.ok(['create', 'quota', 'gq', `--hard=${count}=2`, '-n', ns])).to.match(
        /resourcequota\/gq created/,
      );
      const described = () => env.kubectl.ok(['describe', 'quota', 'gq', '-n', ns]);
      await eventually('the controller counts the gadget', async () =>
        new RegExp(`${count}\\s+1\\s+2`).test(await described()),
      );
      const more = (name: string) => ({ ...gadget({ color: 'red' }), metadata: { name, namespace: ns } });
      await env.kubectl.ok(['create', '-f', await env.kubectl.manifest('g2.yaml', yamlManifest(more('g2')))]);
      const refused = await env.kubectl.run([
        'create',
        '-f',
        await env.kubectl.manifest('g3.yaml', yamlManifest(more('g3'))),
      ]);
      expect(refused.code).to.not.equal(0);
      expect(refused.stderr).to.include(
        `gadgets.shop.example.com "g3" is forbidden: exceeded quota: gq, requested: ${count}=1, used: ${count}=2, limited: ${count}=2`,
      );
      expect(await described()).to.match(new RegExp(`${count}\\s+2\\s+2`));
    });
  });
});
