// The real kubectl 1.32 against the flowcontrol kinds: `get flowschemas` and `get prioritylevelconfigurations` with
// the columns and cells kube-apiserver's printers give (the bootstrap objects among the rows), the k8s.io group name
// resolving, and a manifest created, applied again and refused with the server's message.
import { expect } from 'chai';
import { uniqueName } from '../helpers/api.js';
import { parseColumns } from '../helpers/kubectl.js';
import { gatehouseWithKubectl, yamlManifest } from '../helpers/kubectl-suite.js';

const AGE = /^\d+s$/;

describe('kubectl and the flowcontrol kinds', function () {
  this.timeout(120_000);
  const env = gatehouseWithKubectl();

  const rows = async (args: string[]) => {
    const out = await env.kubectl.ok(['get', ...args]);
    return {
      header: out
        .split('\n')[0]
        .trim()
        .split(/\s{2,}/),
      rows: parseColumns(out),
      out,
    };
  };

  it("get flowschemas prints upstream's columns and cells", async () => {
    const { header, rows: list, out } = await rows(['flowschemas']);
    expect(header).to.deep.equal([
      'NAME',
      'PRIORITYLEVEL',
      'MATCHINGPRECEDENCE',
      'DISTINGUISHERMETHOD',
      'AGE',
      'MISSINGPL',
    ]);
    const exempt = list.find((r) => r.NAME === 'exempt');
    expect(exempt, out).to.include({
      PRIORITYLEVEL: 'exempt',
      MATCHINGPRECEDENCE: '1',
      DISTINGUISHERMETHOD: '<none>',
      MISSINGPL: 'False',
    });
    expect(exempt!.AGE).to.match(AGE);
    expect(list.find((r) => r.NAME === 'kube-scheduler')).to.include({
      PRIORITYLEVEL: 'workload-high',
      MATCHINGPRECEDENCE: '800',
      DISTINGUISHERMETHOD: 'ByNamespace',
    });
  });

  it('get prioritylevelconfigurations prints <none> where a level does not queue', async () => {
    const { header, rows: list, out } = await rows(['prioritylevelconfigurations.flowcontrol.apiserver.k8s.io']);
    expect(header).to.deep.equal([
      'NAME',
      'TYPE',
      'NOMINALCONCURRENCYSHARES',
      'QUEUES',
      'HANDSIZE',
      'QUEUELENGTHLIMIT',
      'AGE',
    ]);
    const byName = (name: string) => list.find((r) => r.NAME === name);
    expect(byName('exempt'), out).to.include({
      TYPE: 'Exempt',
      NOMINALCONCURRENCYSHARES: '<none>',
      QUEUES: '<none>',
      HANDSIZE: '<none>',
      QUEUELENGTHLIMIT: '<none>',
    });
    expect(byName('catch-all')).to.include({ TYPE: 'Limited', NOMINALCONCURRENCYSHARES: '5', QUEUES: '<none>' });
    expect(byName('leader-election')).to.include({
      NOMINALCONCURRENCYSHARES: '10',
      QUEUES: '16',
      HANDSIZE: '4',
      QUEUELENGTHLIMIT: '50',
    });
  });

  it('explain reads the fields from the OpenAPI documents', async () => {
    const out = await env.kubectl.ok(['explain', 'prioritylevelconfigurations.spec.limited.nominalConcurrencyShares']);
    expect(out).to.include('GROUP:      flowcontrol.apiserver.platform.io');
    expect(out).to.include('defaults to a value of 30');
    expect(await env.kubectl.ok(['explain', 'flowschemas.spec.rules.subjects.serviceAccount'])).to.include(
      'ServiceAccountSubject',
    );
  });

  it('creates and applies a schema and its level from a manifest, and shows the server refusing a bad one', async () => {
    const level = uniqueName('tenant');
    const manifest = yamlManifest(
      {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'PriorityLevelConfiguration',
        metadata: { name: level },
        spec: { type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } },
      },
      {
        apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
        kind: 'FlowSchema',
        metadata: { name: level },
        spec: {
          priorityLevelConfiguration: { name: level },
          matchingPrecedence: 500,
          distinguisherMethod: { type: 'ByUser' },
          rules: [
            {
              subjects: [{ kind: 'Group', group: { name: level } }],
              nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
            },
          ],
        },
      },
    );
    const file = await env.kubectl.manifest('tenant.yaml', manifest);
    await env.kubectl.ok(['apply', '-f', file]);
    expect(await env.kubectl.ok(['apply', '-f', file])).to.include('unchanged');
    const { rows: levels } = await rows(['prioritylevelconfigurations', level]);
    expect(levels[0]).to.include({ NAME: level, TYPE: 'Limited', NOMINALCONCURRENCYSHARES: '0' });

    const badFile = await env.kubectl.manifest(
      'bad.yaml',
      yamlManifest({
        apiVersion: 'flowcontrol.apiserver.platform.io/v1',
        kind: 'PriorityLevelConfiguration',
        metadata: { name: uniqueName('bad') },
        spec: {
          type: 'Limited',
          limited: { limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5 } } },
        },
      }),
    );
    const bad = await env.kubectl.run(['create', '-f', badFile]);
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include(
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)',
    );
  });
});
