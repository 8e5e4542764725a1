import { expect } from 'chai';
import Koa from 'koa';
import { requestInfoFilter } from '../../gateway/request/request-info.js';
import { setUser } from '../../gateway/request/user.js';
import { createPriorityAndFairnessFilter, queueWaitLimitMs } from '../../gateway/filters/priority-and-fairness.js';
import { Dispatcher } from '../../gateway/flowcontrol/dispatcher.js';
import { WatchCount } from '../../gateway/flowcontrol/watch-count.js';
import { debugDump } from '../../gateway/flowcontrol/debug-dump.js';
import type { FlowSchemaObject, PriorityLevelObject } from '../../gateway/flowcontrol/types.js';
import { signalWatchInitialized } from '../../gateway/request/watch-initialization.js';
import http from 'node:http';
import { renderStatusErrors, serveKoa, type TestResponse, type TestServer } from '../helpers/koa-server.js';
import { ManualClock } from '../helpers/manual-clock.js';

const TINY: PriorityLevelObject = {
  metadata: { name: 'tiny', uid: 'tiny-level-uid' },
  spec: {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: 1,
      limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } },
    },
  },
};
const FLOODER: FlowSchemaObject = {
  metadata: { name: 'flooder', uid: 'flooder-schema-uid' },
  spec: {
    priorityLevelConfiguration: { name: 'tiny' },
    matchingPrecedence: 500,
    distinguisherMethod: { type: 'ByUser' },
    rules: [
      {
        subjects: [{ kind: 'User', user: { name: 'flooder' } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
      },
    ],
  },
};

describe('priority and fairness filter', () => {
  let server: TestServer;
  let clock: ManualClock;
  let dispatcher: Dispatcher;
  const holds: (() => void)[] = [];
  let entered: (() => void) | undefined;
  let initialEventsSent: (() => void) | undefined;

  before(async () => {
    clock = new ManualClock(0);
    // 6 seats: tiny gets ceil(6 * 1/6) = 1 of them, catch-all (shares 5) the other 5.
    dispatcher = new Dispatcher({ serverConcurrencyLimit: 6, clock });
    dispatcher.configure([FLOODER], [TINY]);
    const app = new Koa();
    app.use(requestInfoFilter);
    app.use(renderStatusErrors);
    app.use(async (ctx, next) => {
      setUser(ctx, { name: ctx.get('x-user'), groups: ctx.get('x-groups').split(',').filter(Boolean) });
      await next();
    });
    app.use(
      createPriorityAndFairnessFilter({
        dispatcher,
        watches: new WatchCount(),
        objectCount: () => undefined,
        requestTimeoutMs: 4_000,
      }),
    );
    app.use(async (ctx) => {
      // A watch as the real handler answers one: headers now, events later, the initial ones once the test says.
      if (ctx.query.watch !== undefined) {
        ctx.respond = false;
        ctx.res.writeHead(200, { 'Content-Type': 'application/json' });
        ctx.res.write('{"type":"ADDED"}\n');
        initialEventsSent = () => signalWatchInitialized(ctx);
        return;
      }
      if (ctx.query.hold !== undefined) {
        await new Promise<void>((resolve) => {
          holds.push(resolve);
          entered?.();
        });
      }
      ctx.body = { served: true };
    });
    server = await serveKoa(app);
  });
  after(() => server.close());

  const get = (user: string, query = '', groups = 'system:authenticated'): Promise<TestResponse> =>
    server.request('GET', `/api/v1/namespaces/a/configmaps${query}`, { 'x-user': user, 'x-groups': groups });
  const holding = (user: string): { answer: Promise<TestResponse>; inside: Promise<void> } => {
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    return { answer: get(user, '?hold'), inside };
  };

  it('waits a quarter of the request timeout at most, 1 min at most, 15 s without a timeout', () => {
    expect(queueWaitLimitMs(60_000)).to.equal(15_000);
    expect(queueWaitLimitMs(600_000)).to.equal(60_000);
    expect(queueWaitLimitMs(0)).to.equal(15_000);
  });

  it('names the matched FlowSchema and priority level by uid on every answer', async () => {
    const flooder = await get('flooder');
    expect(flooder.status).to.equal(200);
    expect(flooder.headers['x-kubernetes-pf-flowschema-uid']).to.equal('flooder-schema-uid');
    expect(flooder.headers['x-kubernetes-pf-prioritylevel-uid']).to.equal('tiny-level-uid');
    const other = await get('someone');
    const [catchAll] = dispatcher.levelList().filter(([name]) => name === 'catch-all');
    expect(other.headers['x-kubernetes-pf-prioritylevel-uid']).to.equal(catchAll[1].object.metadata.uid);
    expect(other.headers['x-kubernetes-pf-flowschema-uid']).to.be.a('string').and.not.equal('');
    // system:masters is in the exempt schema, whatever else is configured.
    const admin = await get('flooder', '', 'system:masters,system:authenticated');
    expect(admin.headers['x-kubernetes-pf-prioritylevel-uid']).to.equal(
      dispatcher.levelList().find(([name]) => name === 'exempt')?.[1].object.metadata.uid,
    );
  });

  it('queues past the level limit, refuses past the queue length with 429 and a Status', async () => {
    const first = holding('flooder');
    await first.inside;
    // The one seat is taken: the next waits in the one queue, whose limit is one request.
    const queued = get('flooder');
    await until(() => dispatcher.levelList().some(([name, l]) => name === 'tiny' && l.queueSet.waiting === 1));
    const refused = await get('flooder');
    expect(refused.status).to.equal(429);
    // (Retry-After is the status filter's to write: the integration test sees it.)
    expect(refused.headers['x-kubernetes-pf-flowschema-uid']).to.equal('flooder-schema-uid');
    expect(refused.json()).to.deep.include({
      kind: 'Status',
      status: 'Failure',
      reason: 'TooManyRequests',
      message: 'Too many requests, please try again later.',
      code: 429,
    });
    // Another user's requests are in another level, untouched.
    expect((await get('someone')).status).to.equal(200);
    const dump = debugDump(
      dispatcher,
      '/debug/api_priority_and_fairness/dump_requests',
      new URLSearchParams('includeRequestDetails=1'),
    );
    expect(dump, dump).to.match(
      /^tiny, +flooder, +0, +0, +flooder, .*flooder, +list, +\/api\/v1\/namespaces\/a\/configmaps$/m,
    );
    holds.shift()?.();
    expect((await first.answer).status).to.equal(200);
    expect((await queued).status).to.equal(200);
  });

  it("holds a watch's seats only until its initial events are sent", async () => {
    const tiny = () => dispatcher.levelList().find(([name]) => name === 'tiny')?.[1].queueSet;
    const watch = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(`${server.url}/api/v1/namespaces/a/configmaps?watch=1`, { headers: { 'x-user': 'flooder' } }, resolve)
        .on('error', reject);
    });
    await new Promise((resolve) => watch.once('data', resolve));
    expect(tiny()?.executing).to.equal(1);
    initialEventsSent?.();
    expect(tiny()?.executing).to.equal(0);
    // The stream stays open, and the level's one seat serves others.
    expect(watch.destroyed).to.equal(false);
    expect((await get('flooder')).status).to.equal(200);
    watch.destroy();
  });

  it('frees the queue place of a request whose client goes away while it waits', async () => {
    const tiny = () => dispatcher.levelList().find(([name]) => name === 'tiny')?.[1];
    const cancelledBefore = tiny()?.cancelled ?? 0;
    const first = holding('flooder');
    await first.inside;
    const waiting = http.get(`${server.url}/api/v1/namespaces/a/configmaps`, { headers: { 'x-user': 'flooder' } });
    waiting.on('error', () => undefined);
    await until(() => tiny()?.queueSet.waiting === 1);
    waiting.destroy();
    await until(() => tiny()?.queueSet.waiting === 0);
    expect(tiny()?.cancelled).to.equal(cancelledBefore + 1);
    // The place is free again: the next request waits in it and is served once the seat comes back.
    const next = get('flooder');
    await until(() => tiny()?.queueSet.waiting === 1);
    holds.shift()?.();
    expect((await first.answer).status).to.equal(200);
    expect((await next).status).to.equal(200);
  });

  it('answers 429 to a request that waited out its queue time', async () => {
    const first = holding('flooder');
    await first.inside;
    const queued = get('flooder');
    await until(() => dispatcher.levelList().some(([name, l]) => name === 'tiny' && l.queueSet.waiting === 1));
    clock.advance(999);
    expect(dispatcher.levelList().find(([name]) => name === 'tiny')?.[1].queueSet.waiting).to.equal(1);
    clock.advance(1);
    const answer = await queued;
    expect(answer.status).to.equal(429);
    expect(answer.json().reason).to.equal('TooManyRequests');
    holds.shift()?.();
    await first.answer;
    const levels = debugDump(
      dispatcher,
      '/debug/api_priority_and_fairness/dump_priority_levels',
      new URLSearchParams(),
    );
    expect(levels?.split('\n')[0]).to.equal(
      'PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests',
    );
    expect(levels, levels).to.match(/^tiny, +0, +true, +false, +0, +0, +8, +1, +1, +1$/m);
    const queues = debugDump(dispatcher, '/debug/api_priority_and_fairness/dump_queues', new URLSearchParams());
    expect(queues).to.match(/^tiny, +0, +0, +0, +0, +[\d.]+ss, +0, +0, +0\.00000000ss$/m);
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(condition(), 'condition never held').to.equal(true);
}
