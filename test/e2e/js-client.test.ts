// The JavaScript client (@kubernetes/client-node 1.4, the line that runs on Node 20): its informer lists and watches
// ConfigMaps, resumes after the server ends a watch, relists after a 410 for a compacted resourceVersion, and sees
// every change. A short history window, a short watch timeout and a clock the test moves make the server do both at
// once, without waiting for either.
import { expect } from 'chai';
import * as k8s from '@kubernetes/client-node';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { eventually } from '../helpers/api.js';
import { ManualClock } from '../helpers/manual-clock.js';

describe('@kubernetes/client-node informer', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let informer: (k8s.Informer<k8s.V1ConfigMap> & k8s.ObjectCache<k8s.V1ConfigMap>) | undefined;
  const ns = 'js-client';
  const clock = new ManualClock();

  before(async () => {
    gh = await startTestGatehouse(['--history-window=2s', '--min-request-timeout=1'], { clock });
    for (const name of [ns, `${ns}-noise`]) {
      expect((await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } })).status).to.equal(201);
    }
  });
  after(async () => {
    await informer?.stop();
    await gh?.close();
  });

  const cms = (namespace: string) => `/api/v1/namespaces/${namespace}/configmaps`;

  it('sees every change across a watch timeout and a relist after 410 Gone', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(gh.kubeconfigPath);
    const api = kc.makeApiClient(k8s.CoreV1Api);
    let lists = 0;
    const listWaiters: (() => void)[] = [];
    /** Resolves when the informer lists again. */
    const nextList = () =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the informer did not list again within 15 s')), 15_000);
        listWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    const seen = new Map<string, string | undefined>();
    const deleted = new Set<string>();
    const errors: unknown[] = [];
    informer = k8s.makeInformer(kc, cms(ns), () => {
      lists++;
      for (const resolve of listWaiters.splice(0)) resolve();
      return api.listNamespacedConfigMap({ namespace: ns });
    });
    const record = (cm: k8s.V1ConfigMap) => seen.set(cm.metadata!.name!, cm.data?.v);
    informer.on('add', record);
    informer.on('update', record);
    informer.on('delete', (cm) => deleted.add(cm.metadata!.name!));
    informer.on('error', (e) => errors.push(e));
    await informer.start();

    expect(
      (await gh.request('POST', cms(ns), { body: { metadata: { name: 'a' }, data: { v: '1' } } })).status,
    ).to.equal(201);
    await eventually('the informer to add a', async () => seen.get('a') === '1');

    // A write elsewhere moves the history past the informer's last resourceVersion. Moving the clock past both the
    // history window and the watch timeout ends the informer's watch; its next watch, from that resourceVersion,
    // finds it compacted (compaction is lazy, at the next storage call), answers 410, and the informer must relist.
    expect((await gh.request('POST', cms(`${ns}-noise`), { body: { metadata: { name: 'n-0' } } })).status).to.equal(
      201,
    );
    // The watch's timer is the one within --min-request-timeout's [1 s, 2 s); the request timeout's sweep may be armed too.
    const watchTimers = clock.pending().filter((t) => t.ms >= 1_000 && t.ms < 2_000);
    expect(watchTimers, "the informer's watch timer").to.have.length(1);
    const listsBefore = lists;
    const relisted = nextList();
    clock.advance(2_100);
    expect(clock.pending()).to.not.include(watchTimers[0]);
    await relisted;
    expect(lists).to.equal(listsBefore + 1);

    expect(
      (
        await gh.request('PATCH', `${cms(ns)}/a`, {
          body: { data: { v: '2' } },
          headers: { 'content-type': 'application/merge-patch+json' },
        })
      ).status,
    ).to.equal(200);
    expect(
      (await gh.request('POST', cms(ns), { body: { metadata: { name: 'b' }, data: { v: '3' } } })).status,
    ).to.equal(201);
    expect((await gh.request('DELETE', `${cms(ns)}/a`)).status).to.equal(200);
    await eventually(
      'the informer to see the update, the add and the delete',
      async () => seen.get('a') === '2' && seen.get('b') === '3' && deleted.has('a'),
      15_000,
    );
    expect(informer.list().map((cm) => cm.metadata!.name)).to.deep.equal(['b']);
    // The informer handles 410 by relisting on its own; an error event would mean it stopped.
    expect(errors).to.deep.equal([]);
  });
});
