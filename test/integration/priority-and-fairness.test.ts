// API Priority and Fairness on a real server: the uid headers on every answer, the stored configuration followed as
// it changes, a level that refuses with 429, the debug dumps behind RBAC (and through the real kubectl), and the
// metrics. A request is held in its seat by a list at a resource version the server has not reached (it waits for
// it, up to 3 s), never by sleeping.
import { expect } from 'chai';
import { startRbacGatehouse, tokenOf, roleBody, bindingBody, RBAC_V1 } from '../helpers/rbac.js';
import type { TestGatehouse, GatehouseResponse } from '../helpers/gatehouse.js';
import { eventually, expectFailure } from '../helpers/api.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import { labels, scrape, seriesOf } from '../helpers/metrics-text.js';
import { userFlowSchema } from '../helpers/apf-flood.js';

const FLOWCONTROL = '/apis/flowcontrol.apiserver.platform.io/v1';
const FS_HEADER = 'x-kubernetes-pf-flowschema-uid';
const PL_HEADER = 'x-kubernetes-pf-prioritylevel-uid';
const DUMP = '/debug/api_priority_and_fairness/dump_priority_levels';

describe('API Priority and Fairness', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let kubectl: Kubectl;
  const alice = tokenOf('alice');
  const bob = tokenOf('bob');

  before(async () => {
    // Two seats in all: the level made below gets one of them.
    gh = await startRbacGatehouse('RBAC', ['--max-requests-inflight=1', '--max-mutating-requests-inflight=1']);
    kubectl = await createKubectl(gh.kubeconfigPath);
    const admin = await gh.request('POST', `${RBAC_V1}/clusterrolebindings`, {
      body: bindingBody('alice-admin', 'ClusterRole', 'cluster-admin', ['alice'], 'ClusterRoleBinding'),
    });
    expect(admin.status, admin.body).to.equal(201);
  });
  after(async () => {
    await kubectl?.cleanup();
    await gh?.close();
  });

  const uidOf = async (path: string): Promise<string> => {
    const res = await gh.request('GET', path);
    expect(res.status, res.body).to.equal(200);
    return res.json().metadata.uid as string;
  };

  it('names the stored FlowSchema and priority level that classified every answer, refusals included', async () => {
    const exempt = {
      fs: await uidOf(`${FLOWCONTROL}/flowschemas/exempt`),
      pl: await uidOf(`${FLOWCONTROL}/prioritylevelconfigurations/exempt`),
    };
    const globalDefault = {
      fs: await uidOf(`${FLOWCONTROL}/flowschemas/global-default`),
      pl: await uidOf(`${FLOWCONTROL}/prioritylevelconfigurations/global-default`),
    };
    // system:masters (the admin) is exempt; bob falls to the suggested global-default, even when RBAC refuses him.
    const admin = await eventually('the stored exempt objects classify', async () => {
      const res = await gh.request('GET', '/api/v1/namespaces');
      return res.headers[FS_HEADER] === exempt.fs && res;
    });
    expect(admin.headers[PL_HEADER]).to.equal(exempt.pl);
    const refused = await gh.request('GET', '/api/v1/namespaces', { token: bob });
    expect(refused.status).to.equal(403);
    expect(refused.headers[FS_HEADER]).to.equal(globalDefault.fs);
    expect(refused.headers[PL_HEADER]).to.equal(globalDefault.pl);
  });

  it("follows a new FlowSchema and level, and refuses past a Reject level's seats with 429, Retry-After and a Status", async () => {
    const level = await gh.request('POST', `${FLOWCONTROL}/prioritylevelconfigurations`, {
      body: {
        metadata: { name: 'tiny' },
        spec: {
          type: 'Limited',
          limited: {
            nominalConcurrencyShares: 1,
            lendablePercent: 0,
            borrowingLimitPercent: 0,
            limitResponse: { type: 'Reject' },
          },
        },
      },
    });
    expect(level.status, level.body).to.equal(201);
    const schema = await gh.request('POST', `${FLOWCONTROL}/flowschemas`, {
      body: userFlowSchema('alice-flood', 'tiny', 'alice'),
    });
    expect(schema.status, schema.body).to.equal(201);
    await eventually('alice is classified by alice-flood', async () => {
      const res = await gh.request('GET', '/api/v1/namespaces/default', { token: alice });
      // RBAC has seen alice's binding too: the held list below must reach its handler.
      return res.status === 200 && res.headers[PL_HEADER] === level.json().metadata.uid;
    });

    // Far ahead, so that no controller's write releases it: it holds its seat for the 3 s the server waits.
    const current = BigInt((await gh.request('GET', '/api/v1/namespaces')).json().metadata.resourceVersion);
    const future = `/api/v1/namespaces?resourceVersion=${current + 1_000_000n}&resourceVersionMatch=NotOlderThan`;
    const held = gh.request('GET', future, { token: alice });
    let refused: GatehouseResponse | undefined;
    for (let i = 0; i < 50 && refused?.status !== 429; i++)
      refused = await gh.request('GET', '/api/v1/namespaces/default', { token: alice });
    const status = expectFailure(refused as GatehouseResponse, 429, 'TooManyRequests');
    expect(status.message).to.equal('Too many requests, please try again later.');
    expect(refused?.headers['retry-after']).to.equal('1');
    expect(refused?.headers[FS_HEADER]).to.equal(schema.json().metadata.uid);
    // Others are in other levels: bob's refusal is RBAC's, not a 429.
    expect((await gh.request('GET', '/api/v1/namespaces/default', { token: bob })).status).to.equal(403);

    expect((await held).status).to.equal(504);
    expect((await gh.request('GET', '/api/v1/namespaces/default', { token: alice })).status).to.equal(200);

    const metrics = await scrape(gh);
    const flow = { flow_schema: 'alice-flood', priority_level: 'tiny' };
    expect(
      seriesOf(metrics, 'apiserver_flowcontrol_rejected_requests_total').get(
        labels({ ...flow, reason: 'concurrency-limit' }),
      ),
    ).to.be.at.least(1);
    expect(seriesOf(metrics, 'apiserver_flowcontrol_dispatched_requests_total').get(labels(flow))).to.be.at.least(2);
    expect(
      seriesOf(metrics, 'apiserver_flowcontrol_nominal_limit_seats').get(labels({ priority_level: 'tiny' })),
    ).to.equal(1);
    expect(seriesOf(metrics, 'apiserver_flowcontrol_current_executing_requests').get(labels(flow))).to.equal(0);
    expect(
      seriesOf(metrics, 'apiserver_flowcontrol_request_wait_duration_seconds_count').get(
        labels({ ...flow, execute: 'true' }),
      ),
    ).to.be.at.least(2);
  });

  it('serves the debug dumps to those allowed to read them', async () => {
    expectFailure(await gh.request('GET', DUMP, { token: bob }), 403, 'Forbidden');
    const levels = await kubectl.ok(['get', '--raw', DUMP]);
    expect(levels.split('\n')[0]).to.equal(
      'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests',
    );
    expect(levels).to.match(/^tiny, +0, +true, +false, +0, +0, +\d+, +[1-9]\d*, +0, +0$/m);
    expect(levels).to.match(/^workload-low, /m);
    const role = await gh.request('POST', `${RBAC_V1}/clusterroles`, {
      body: roleBody(
        'apf-debug',
        [{ verbs: ['get'], nonResourceURLs: ['/debug/api_priority_and_fairness/*'] }],
        'ClusterRole',
      ),
    });
    expect(role.status, role.body).to.equal(201);
    const binding = await gh.request('POST', `${RBAC_V1}/clusterrolebindings`, {
      body: bindingBody('apf-debug', 'ClusterRole', 'apf-debug', ['bob'], 'ClusterRoleBinding'),
    });
    expect(binding.status, binding.body).to.equal(201);
    const queues = await eventually('bob may read the dumps', async () => {
      const res = await gh.request('GET', '/debug/api_priority_and_fairness/dump_queues', { token: bob });
      return res.status === 200 && res;
    });
    expect(queues.headers['content-type']).to.match(/^text\/plain/);
    expect(queues.body).to.match(/^workload-low, +0, +0, +0, +0, /m);
    const requests = await gh.request('GET', '/debug/api_priority_and_fairness/dump_requests', { token: bob });
    expect(requests.body.split('\n')[0]).to.match(
      /^PriorityLevelName, FlowSchemaName, QueueIndex, RequestIndexInQueue,/,
    );
    expect(requests.body).to.match(/^exempt, +<none>/m);
  });
});
