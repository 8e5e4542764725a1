// Lists, paging, selectors, resource-version semantics and watch over real HTTPS.
import { expect } from 'chai';
import { ServerResponse } from 'node:http';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { openWatch, type OpenWatch } from '../helpers/watch-client.js';
import { ManualClock, type ManualTimer } from '../helpers/manual-clock.js';

const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});
const MERGE = { 'content-type': 'application/merge-patch+json' };

describe('list and watch', function () {
  let gh: TestGatehouse;
  const opened: OpenWatch[] = [];
  let nsCounter = 0;

  async function namespace(): Promise<string> {
    const name = `lw-${++nsCounter}`;
    expect((await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status).to.equal(201);
    return name;
  }

  async function watch(path: string, headers?: Record<string, string>): Promise<OpenWatch> {
    const w = await openWatch(gh.url, path, { ca: gh.ca, token: gh.adminToken, headers });
    opened.push(w);
    return w;
  }

  before(async () => {
    gh = await startTestGatehouse();
  });
  afterEach(() => {
    for (const w of opened.splice(0)) w.close();
  });
  after(async () => gh.close());

  describe('selectors', () => {
    it('filters by every label selector operator', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await gh.request('POST', path, { body: cm('a', { app: 'web', tier: 'front' }) });
      await gh.request('POST', path, { body: cm('b', { app: 'db' }) });
      await gh.request('POST', path, { body: cm('c', {}) });
      const names = async (selector: string) =>
        (await gh.request('GET', `${path}?labelSelector=${encodeURIComponent(selector)}`))
          .json()
          .items.map((i: { metadata: { name: string } }) => i.metadata.name);
      expect(await names('app=web')).to.deep.equal(['a']);
      expect(await names('app==db')).to.deep.equal(['b']);
      expect(await names('app!=web')).to.deep.equal(['b', 'c']);
      expect(await names('app in (web,db)')).to.deep.equal(['a', 'b']);
      expect(await names('app notin (web)')).to.deep.equal(['b', 'c']);
      expect(await names('tier')).to.deep.equal(['a']);
      expect(await names('!tier')).to.deep.equal(['b', 'c']);
      expect(await names('app=web,tier=back')).to.deep.equal([]);
    });

    it('filters by field selectors and refuses unknown fields and bad syntax with 400', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await gh.request('POST', path, { body: cm('x') });
      await gh.request('POST', path, { body: cm('y') });
      const byName = (await gh.request('GET', `${path}?fieldSelector=metadata.name%3Dy`)).json();
      expect(byName.items.map((i: { metadata: { name: string } }) => i.metadata.name)).to.deep.equal(['y']);
      const across = (
        await gh.request('GET', `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns},metadata.name!%3Dy`)
      ).json();
      expect(across.items.map((i: { metadata: { name: string } }) => i.metadata.name)).to.deep.equal(['x']);
      const unknown = await gh.request('GET', `${path}?fieldSelector=spec.foo%3Dbar`);
      expect(unknown.status).to.equal(400);
      expect(unknown.json().message).to.contain('field label not supported: spec.foo');
      expect((await gh.request('GET', `${path}?labelSelector=${encodeURIComponent('a in (b')}`)).status).to.equal(400);
      const secrets = `/api/v1/namespaces/${ns}/secrets`;
      await gh.request('POST', secrets, { body: { metadata: { name: 's1' }, type: 'Opaque' } });
      await gh.request('POST', secrets, { body: { metadata: { name: 's2' }, type: 'example.com/custom' } });
      const typed = (await gh.request('GET', `${secrets}?fieldSelector=type%3DOpaque`)).json();
      expect(typed.items.map((i: { metadata: { name: string } }) => i.metadata.name)).to.deep.equal(['s1']);
    });

    it('deletes a collection by selector, leaving the rest', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      for (const [n, app] of [
        ['p', 'x'],
        ['q', 'x'],
        ['r', 'y'],
      ])
        await gh.request('POST', path, { body: cm(n, { app }) });
      const res = await gh.request('DELETE', `${path}?labelSelector=app%3Dx`);
      expect(res.status).to.equal(200);
      expect(res.json()).to.include({ kind: 'Status', status: 'Success' });
      const left = (await gh.request('GET', path))
        .json()
        .items.map((i: { metadata: { name: string } }) => i.metadata.name);
      expect(left).to.deep.equal(['r']);
    });
  });

  describe('paging', () => {
    it('pages with limit/continue at one snapshot, with remainingItemCount', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      for (let i = 0; i < 7; i++) await gh.request('POST', path, { body: cm(`item-${i}`) });
      const first = (await gh.request('GET', `${path}?limit=3`)).json();
      expect(first.items).to.have.length(3);
      expect(first.metadata.continue).to.be.a('string').and.not.empty;
      expect(first.metadata.remainingItemCount).to.equal(4);
      // Writes between pages must not show in later pages of the same list.
      await gh.request('DELETE', `${path}/item-5`);
      await gh.request('POST', path, { body: cm('item-9') });
      await gh.request('PATCH', `${path}/item-4`, { body: { data: { changed: 'yes' } }, headers: MERGE });
      const second = (
        await gh.request('GET', `${path}?limit=3&continue=${encodeURIComponent(first.metadata.continue)}`)
      ).json();
      expect(second.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
      const third = (
        await gh.request('GET', `${path}?limit=3&continue=${encodeURIComponent(second.metadata.continue)}`)
      ).json();
      expect(third.metadata.continue ?? '').to.equal('');
      expect(third.metadata).to.not.have.property('remainingItemCount');
      const all = [...first.items, ...second.items, ...third.items];
      expect(all.map((i: { metadata: { name: string } }) => i.metadata.name)).to.deep.equal([
        'item-0',
        'item-1',
        'item-2',
        'item-3',
        'item-4',
        'item-5',
        'item-6',
      ]);
      expect(all[4].data).to.deep.equal({});
    });

    it('omits remainingItemCount when a selector filters the list', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      for (let i = 0; i < 4; i++) await gh.request('POST', path, { body: cm(`s-${i}`, { keep: 'yes' }) });
      const page = (await gh.request('GET', `${path}?limit=2&labelSelector=keep%3Dyes`)).json();
      expect(page.items).to.have.length(2);
      expect(page.metadata.continue).to.be.a('string');
      expect(page.metadata).to.not.have.property('remainingItemCount');
    });

    it('streams a list too large to answer in one piece, complete and valid', async function () {
      this.timeout(30000);
      const big = await startTestGatehouse(['--storage-backend=memory']);
      try {
        const path = '/api/v1/namespaces/default/configmaps';
        const total = 1100;
        for (let i = 0; i < total; i += 50) {
          await Promise.all(
            Array.from({ length: Math.min(50, total - i) }, (_, j) =>
              big.request('POST', path, {
                body: cm(`big-${String(i + j).padStart(4, '0')}`, {}, { v: 'x'.repeat(200) }),
              }),
            ),
          );
        }
        const res = await big.request('GET', path);
        expect(res.status).to.equal(200);
        expect(res.headers['content-length']).to.equal(undefined);
        const list = res.json();
        expect(list.kind).to.equal('ConfigMapList');
        expect(list.items).to.have.length(total);
        expect(list.items[total - 1].metadata.name).to.equal('big-1099');
      } finally {
        await big.close();
      }
    });

    it('refuses malformed continue tokens with 400', async () => {
      const res = await gh.request('GET', '/api/v1/configmaps?limit=1&continue=not-a-token');
      expect(res.status).to.equal(400);
    });
  });

  describe('resource versions', () => {
    it('refuses the combinations the spec table marks invalid with 422 naming ListOptions and the field', async () => {
      const cases: [string, string][] = [
        [
          'resourceVersionMatch=Exact',
          'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        ],
        [
          'resourceVersionMatch=NotOlderThan',
          'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        ],
        [
          'resourceVersion=0&resourceVersionMatch=Exact',
          'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ],
        [
          'resourceVersion=5&resourceVersionMatch=Bogus',
          'resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
        ],
        ['sendInitialEvents=true', 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
      ];
      for (const [q, message] of cases) {
        const res = await gh.request('GET', `/api/v1/configmaps?${q}`);
        expect(res.status, q).to.equal(422);
        expect(res.json(), q).to.include({
          kind: 'Status',
          reason: 'Invalid',
          message: `ListOptions.meta.k8s.io "" is invalid: ${message}`,
        });
        expect(res.json().details, q).to.include({ kind: 'ListOptions', group: 'meta.k8s.io' });
        expect(res.json().details.causes[0], q).to.include({ field: message.split(':')[0] });
      }
      const both = await gh.request('GET', '/api/v1/configmaps?resourceVersionMatch=Exact&continue=abc');
      expect(both.status).to.equal(422);
      expect(both.json().details.causes).to.have.length(2);
      const watchOnly = await gh.request('GET', '/api/v1/configmaps?watch=1&resourceVersionMatch=NotOlderThan');
      expect(watchOnly.status).to.equal(422);
      expect(watchOnly.json().message).to.contain(
        'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
      );
    });

    it('refuses malformed versions and a version beside continue with 400', async () => {
      for (const q of ['limit=1&continue=abc&resourceVersion=5', 'resourceVersion=abc']) {
        const res = await gh.request('GET', `/api/v1/configmaps?${q}`);
        expect(res.status, q).to.equal(400);
        expect(res.json().kind, q).to.equal('Status');
      }
    });

    it('reads an exact older version of a list, and not-older-than the newest', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await gh.request('POST', path, { body: cm('v', {}, { n: '1' }) });
      const before = (await gh.request('GET', path)).json();
      await gh.request('PATCH', `${path}/v`, { body: { data: { n: '2' } }, headers: MERGE });
      const exact = (
        await gh.request('GET', `${path}?resourceVersion=${before.metadata.resourceVersion}&resourceVersionMatch=Exact`)
      ).json();
      expect(exact.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
      expect(exact.items[0].data).to.deep.equal({ n: '1' });
      const paged = (
        await gh.request('GET', `${path}?resourceVersion=${before.metadata.resourceVersion}&limit=5`)
      ).json();
      expect(paged.items[0].data).to.deep.equal({ n: '1' });
      const notOlder = (
        await gh.request(
          'GET',
          `${path}?resourceVersion=${before.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan`,
        )
      ).json();
      expect(notOlder.items[0].data).to.deep.equal({ n: '2' });
      const any = await gh.request('GET', `${path}/v?resourceVersion=0`);
      expect(any.status).to.equal(200);
    });

    it('answers 504 "Too large resource version" for a version from the future', async function () {
      this.timeout(15000);
      const res = await gh.request(
        'GET',
        '/api/v1/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan',
      );
      expect(res.status).to.equal(504);
      expect(res.json().message).to.contain('Too large resource version');
      expect(res.headers['retry-after']).to.match(/^\d+$/);
      const get = await gh.request('GET', '/api/v1/namespaces/default?resourceVersion=999999999');
      expect(get.status).to.equal(504);
    });
  });

  describe('watch', () => {
    it('streams ADDED, MODIFIED and DELETED after a resourceVersion, in order, without synthetic events', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await gh.request('POST', path, { body: cm('old') });
      const list = (await gh.request('GET', path)).json();
      const w = await watch(`${path}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
      expect(w.status).to.equal(200);
      expect(w.headers['content-type']).to.contain('application/json');
      await gh.request('POST', path, { body: cm('new') });
      await gh.request('PATCH', `${path}/new`, { body: { data: { k: 'v' } }, headers: MERGE });
      await gh.request('DELETE', `${path}/new`);
      const events = await w.take(3);
      expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).to.deep.equal([
        'ADDED new',
        'MODIFIED new',
        'DELETED new',
      ]);
      const rvs = events.map((e) => BigInt(e.object.metadata?.resourceVersion ?? '0'));
      expect(rvs[0] < rvs[1] && rvs[1] < rvs[2]).to.equal(true);
    });

    it('starts with synthetic ADDED events when resourceVersion is unset or 0', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await gh.request('POST', path, { body: cm('e1') });
      await gh.request('POST', path, { body: cm('e2') });
      for (const q of ['watch=1', 'watch=1&resourceVersion=0']) {
        const w = await watch(`${path}?${q}`);
        const events = await w.take(2);
        expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).to.deep.equal(['ADDED e1', 'ADDED e2']);
        w.close();
      }
    });

    it('streams initial events then a BOOKMARK carrying the initial-events-end annotation (sendInitialEvents)', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await gh.request('POST', path, { body: cm('i1') });
      const w = await watch(
        `${path}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      );
      const [added, mark] = await w.take(2);
      expect(added.type).to.equal('ADDED');
      expect(mark.type).to.equal('BOOKMARK');
      expect(mark.object.metadata?.annotations).to.deep.equal({ 'k8s.io/initial-events-end': 'true' });
      expect(mark.object.metadata?.resourceVersion).to.match(/^\d+$/);
      await gh.request('POST', path, { body: cm('i2') });
      const next = await w.next();
      expect(`${next.type} ${next.object.metadata?.name}`).to.equal('ADDED i2');
      const refused = await gh.request('GET', `${path}?watch=1&sendInitialEvents=true`);
      expect(refused.status).to.equal(422);
      expect(refused.json().message).to.equal(
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      );
    });

    describe('timeouts and the history window, on a clock the test moves', () => {
      // A server of their own: only these tests' watches arm timers on its clock.
      let clock: ManualClock;
      let timed: TestGatehouse;
      before(async () => {
        clock = new ManualClock();
        timed = await startTestGatehouse(['--min-request-timeout=1', '--history-window=1s'], { clock });
      });
      after(async () => timed.close());

      /** Opens a watch on the clocked server and returns it with the timer it armed. */
      async function timedWatch(path: string): Promise<{ w: OpenWatch; timer: ManualTimer }> {
        const before = new Set(clock.pending());
        const w = await openWatch(timed.url, path, { ca: timed.ca, token: timed.adminToken });
        opened.push(w);
        // The handler arms its timer before the headers go out, and openWatch resolves on the headers.
        const armed = clock.pending().filter((t) => !before.has(t));
        expect(armed, 'timers the watch armed').to.have.length(1);
        return { w, timer: armed[0] };
      }

      it('ends the stream after timeoutSeconds, not before', async () => {
        const { w, timer } = await timedWatch('/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1');
        expect(timer.ms).to.equal(1000);
        clock.advance(999);
        expect(clock.pending()).to.include(timer);
        clock.advance(1);
        expect(clock.pending()).to.not.include(timer);
        await w.ended;
      });

      it('keeps a watch open for a timeoutSeconds beyond what one Node timer holds', async () => {
        const path = '/api/v1/namespaces/default/configmaps';
        // 2^31 ms and far beyond: a Node timer asked for either fires after 1 ms (test/unit/watch-timeout.test.ts
        // holds the long timer to its time); the handler must ask for the whole duration.
        const [short, long] = [
          await timedWatch(`${path}?watch=1&timeoutSeconds=2147484`),
          await timedWatch(`${path}?watch=1&timeoutSeconds=9000000000`),
        ];
        expect(short.timer.ms).to.equal(2_147_484_000);
        expect(long.timer.ms).to.equal(9e12);
        clock.advance(2_147_483_999);
        await timed.request('POST', path, { body: cm('late') });
        for (const { w } of [short, long]) {
          const event = await w.next();
          expect(`${event.type} ${event.object.metadata?.name}`).to.equal('ADDED late');
        }
        clock.advance(1);
        await short.w.ended;
        await timed.request('POST', path, { body: cm('later') });
        const event = await long.w.next();
        expect(`${event.type} ${event.object.metadata?.name}`).to.equal('ADDED later');
        expect(clock.pending()).to.include(long.timer);
      });

      it('ends a watch with timeoutSeconds=0 or unset after a random time in [min, 2·min) of --min-request-timeout', async () => {
        const watches = [];
        for (const query of ['?watch=1&timeoutSeconds=0', '?watch=1', '?watch=1&timeoutSeconds=0', '?watch=1']) {
          watches.push(await timedWatch(`/api/v1/namespaces/default/configmaps${query}`));
        }
        for (const { timer } of watches) expect(timer.ms).to.be.at.least(1000).and.below(2000);
        // Random, not one fixed time: four draws alike would mean the spread of reconnects is gone.
        expect(new Set(watches.map(({ timer }) => timer.ms)).size).to.be.above(1);
        clock.advance(999);
        for (const { timer } of watches) expect(clock.pending()).to.include(timer);
        clock.advance(1001);
        await Promise.all(watches.map(({ w }) => w.ended));
      });

      it('answers a watch from a compacted version with 200 and one ERROR event holding the 410; a list with a 410', async () => {
        const path = '/api/v1/namespaces/default/configmaps';
        const first = (await timed.request('POST', path, { body: cm('a') })).json();
        // Past the 1 s history window: the next write compacts everything before it.
        clock.advance(1200);
        await timed.request('POST', path, { body: cm('b') });
        const old = Number(first.metadata.resourceVersion) - 1;
        const res = await timed.request('GET', `${path}?watch=1&resourceVersion=${old}`, { timeoutMs: 5000 });
        expect(res.status).to.equal(200);
        expect(res.headers['content-type']).to.equal('application/json');
        const events = res.body
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        expect(events).to.have.length(1);
        expect(events[0].type).to.equal('ERROR');
        expect(events[0].object).to.include({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Expired',
          code: 410,
        });
        expect(events[0].object.message).to.match(new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
        const list = await timed.request('GET', `${path}?resourceVersion=${old}&resourceVersionMatch=Exact`);
        expect(list.status).to.equal(410);
        expect(list.json()).to.include({ reason: 'Expired', code: 410 });
        const page = (await timed.request('GET', `${path}?limit=1`)).json();
        // The token's snapshot expires once a later write leaves the history window.
        await timed.request('POST', path, { body: cm('c') });
        const stillServed = await timed.request(
          'GET',
          `${path}?limit=1&continue=${encodeURIComponent(page.metadata.continue)}`,
        );
        expect(stillServed.status).to.equal(200);
        clock.advance(1200);
        await timed.request('POST', path, { body: cm('d') });
        const expired = await timed.request(
          'GET',
          `${path}?limit=1&continue=${encodeURIComponent(page.metadata.continue)}`,
        );
        expect(expired.status).to.equal(410);
      });
    });

    it('ends open watches cleanly when the server shuts down', async () => {
      const other = await startTestGatehouse();
      const w = await openWatch(other.url, '/api/v1/namespaces?watch=1', { ca: other.ca, token: other.adminToken });
      await w.take(3);
      await other.close();
      await w.ended;
    });

    it('watches one object by name, and turns objects leaving a label selection into DELETED', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await gh.request('POST', path, { body: cm('target', { sel: 'in' }) });
      await gh.request('POST', path, { body: cm('other', { sel: 'in' }) });
      const byName = await watch(`${path}?watch=1&fieldSelector=metadata.name%3Dtarget&resourceVersion=0`);
      const first = await byName.next();
      expect(`${first.type} ${first.object.metadata?.name}`).to.equal('ADDED target');
      const bySelector = await watch(`${path}?watch=1&labelSelector=sel%3Din`);
      await bySelector.take(2);
      await gh.request('PATCH', `${path}/other`, { body: { metadata: { labels: { sel: 'out' } } }, headers: MERGE });
      await gh.request('PATCH', `${path}/target`, { body: { data: { x: '1' } }, headers: MERGE });
      const left = await bySelector.next();
      expect(`${left.type} ${left.object.metadata?.name}`).to.equal('DELETED other');
      const modified = await bySelector.next();
      expect(`${modified.type} ${modified.object.metadata?.name}`).to.equal('MODIFIED target');
      const named = await byName.next();
      expect(`${named.type} ${named.object.metadata?.name}`).to.equal('MODIFIED target');
    });

    it('sends live events of an HTTPS watch straight to the connection, after its initial events and bookmark', async () => {
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      await gh.request('POST', path, { body: cm('first') });
      const w = await watch(
        `${path}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      );
      const initial = await w.take(2);
      expect(initial.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`)).to.deep.equal([
        'ADDED first',
        'BOOKMARK ',
      ]);
      // Responses written through the HTTP layer during the live events: only the writers' own (which end, not write).
      // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called through apply and put back
      const original = ServerResponse.prototype.write;
      let layered = 0;
      ServerResponse.prototype.write = function (this: ServerResponse, ...args: Parameters<ServerResponse['write']>) {
        layered++;
        return original.apply(this, args);
      } as ServerResponse['write'];
      try {
        for (const name of ['l1', 'l2', 'l3']) await gh.request('POST', path, { body: cm(name, {}, { k: name }) });
        const live = await w.take(3);
        expect(
          live.map(
            (e) => `${e.type} ${e.object.metadata?.name} ${(e.object as { data?: Record<string, string> }).data?.k}`,
          ),
        ).to.deep.equal(['ADDED l1 l1', 'ADDED l2 l2', 'ADDED l3 l3']);
      } finally {
        ServerResponse.prototype.write = original;
      }
      expect(layered).to.equal(0);
    });

    it('delivers every write exactly once and in order under concurrent writers', async function () {
      this.timeout(30000);
      const ns = await namespace();
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const start = (await gh.request('GET', path)).json().metadata.resourceVersion;
      const watchers = [
        await watch(`${path}?watch=1&resourceVersion=${start}`),
        await watch(`${path}?watch=1&resourceVersion=${start}`),
      ];
      const writers = 4;
      const perWriter = 15;
      const writes: Promise<string>[] = [];
      for (let w = 0; w < writers; w++) {
        writes.push(
          (async () => {
            let last = '';
            await gh.request('POST', path, { body: cm(`w${w}`) });
            for (let i = 0; i < perWriter; i++) {
              last = (
                await gh.request('PATCH', `${path}/w${w}`, { body: { data: { i: String(i) } }, headers: MERGE })
              ).json().metadata.resourceVersion;
            }
            return last;
          })(),
        );
      }
      await Promise.all(writes);
      const total = writers * (perWriter + 1);
      for (const w of watchers) {
        const events = await w.take(total, 10000);
        const rvs = events.map((e) => BigInt(e.object.metadata?.resourceVersion ?? '0'));
        for (let i = 1; i < rvs.length; i++) expect(rvs[i] > rvs[i - 1], `event ${i} in order`).to.equal(true);
        expect(new Set(rvs.map(String)).size).to.equal(total);
        for (let wr = 0; wr < writers; wr++) {
          const mine = events.filter((e) => e.object.metadata?.name === `w${wr}`);
          expect(mine.map((e) => e.type)).to.deep.equal(['ADDED', ...Array(perWriter).fill('MODIFIED')]);
          expect(mine.map((e) => (e.object as { data?: { i?: string } }).data?.i ?? null)).to.deep.equal([
            null,
            ...Array.from({ length: perWriter }, (_, i) => String(i)),
          ]);
        }
      }
    });
  });
});
