// Conversion Webhook over real HTTPS, end to end: a definition stored in v1 and served in v2 too, whose conversion
// webhook (started here) moves spec.host to spec.hostname. Objects written in either version are kept in v1 and read
// in either; lists go to the webhook in one review, watch events one by one; reads in the storage version call
// nobody; a webhook that fails or answers wrongly makes the request a 500 in upstream's words.
import { expect } from 'chai';
import { createNamespace, eventually } from '../helpers/api.js';
import { APIEXT_K8S } from '../helpers/crds.js';
import { convertGizmos, GIZMO_GROUP as GROUP, gizmoDefinition } from '../helpers/conversion-webhook.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createKubectl } from '../helpers/kubectl.js';
import { labels, scrape, seriesOf } from '../helpers/metrics-text.js';
import { openWatch } from '../helpers/watch-client.js';
import { startTestWebhook, type TestWebhook } from '../helpers/webhook-server.js';

describe('custom resources: conversion webhooks', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let hook: TestWebhook;
  let ns: string;
  const at = (version: string, name = '') => `/apis/${GROUP}/${version}/namespaces/${ns}/gizmos${name && `/${name}`}`;
  const gizmo = (name: string, version: string, spec: Record<string, unknown>) => ({
    apiVersion: `${GROUP}/${version}`,
    kind: 'Gizmo',
    metadata: { name },
    spec,
  });

  before(async () => {
    hook = await startTestWebhook((review) => convertGizmos(review), { path: '/convert' });
    gh = await startTestGatehouse(['--storage-backend', 'memory']);
    ns = await createNamespace(gh, 'conv');
    const res = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, { body: gizmoDefinition(hook) });
    expect(res.status, res.body).to.equal(201);
    await eventually('gizmos served', async () => (await gh.request('GET', at('v2'))).status === 200, 2000);
  });
  beforeEach(() => {
    hook.behave = (review) => convertGizmos(review);
  });
  after(async () => {
    await gh?.close();
    await hook?.close();
  });

  it('keeps objects in the storage version and reads them through the webhook in the other', async () => {
    const created = await gh.request('POST', at('v1'), { body: gizmo('one', 'v1', { host: 'one.example.com' }) });
    expect(created.status, created.body).to.equal(201);
    const calls = hook.received.length;
    const v2 = await gh.request('GET', at('v2', 'one'));
    expect(v2.status, v2.body).to.equal(200);
    expect(v2.json()).to.deep.include({ apiVersion: `${GROUP}/v2`, spec: { hostname: 'one.example.com' } });
    expect(hook.received).to.have.length(calls + 1);
    const review = hook.received[calls].body;
    expect(review).to.deep.include({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' });
    expect(review.request.desiredAPIVersion).to.equal(`${GROUP}/v2`);
    expect(review.request.objects.map((o: any) => [o.apiVersion, o.spec])).to.deep.equal([
      [`${GROUP}/v1`, { host: 'one.example.com' }],
    ]);
    // The storage version is read as it is kept.
    const v1 = await gh.request('GET', at('v1', 'one'));
    expect(v1.json().spec).to.deep.equal({ host: 'one.example.com' });
    expect(hook.received).to.have.length(calls + 1);
  });

  it('writes through the other version into the storage version', async () => {
    const created = await gh.request('POST', at('v2'), { body: gizmo('two', 'v2', { hostname: 'two.example.com' }) });
    expect(created.status, created.body).to.equal(201);
    expect(created.json()).to.deep.include({ apiVersion: `${GROUP}/v2`, spec: { hostname: 'two.example.com' } });
    expect((await gh.request('GET', at('v1', 'two'))).json().spec).to.deep.equal({ host: 'two.example.com' });

    const current = (await gh.request('GET', at('v2', 'two'))).json();
    const updated = await gh.request('PUT', at('v2', 'two'), {
      body: { ...current, spec: { hostname: 'moved.example.com', size: 3 } },
    });
    expect(updated.status, updated.body).to.equal(200);
    expect(updated.json().spec).to.deep.equal({ hostname: 'moved.example.com', size: 3 });
    const stored = (await gh.request('GET', at('v1', 'two'))).json();
    expect(stored.spec).to.deep.equal({ host: 'moved.example.com', size: 3 });
    expect(stored.metadata.generation).to.equal(2);
  });

  it('applies through the other version, creating and then updating', async () => {
    const apply = (hostname: string) =>
      gh.request('PATCH', `${at('v2', 'applied')}?fieldManager=tester`, {
        body: gizmo('applied', 'v2', { hostname }),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
    const created = await apply('first.example.com');
    expect(created.status, created.body).to.equal(201);
    expect(created.json().spec).to.deep.equal({ hostname: 'first.example.com' });
    const updated = await apply('second.example.com');
    expect(updated.status, updated.body).to.equal(200);
    const stored = (await gh.request('GET', at('v1', 'applied'))).json();
    expect(stored.spec).to.deep.equal({ host: 'second.example.com' });
    expect(stored.metadata.managedFields.map((m: any) => [m.manager, m.apiVersion])).to.deep.include([
      'tester',
      `${GROUP}/v2`,
    ]);
    const deleted = await gh.request('DELETE', at('v2', 'applied'));
    expect(deleted.status, deleted.body).to.equal(200);
  });

  it('converts a list in one review and every watch event', async () => {
    const calls = hook.received.length;
    const list = await gh.request('GET', at('v2'));
    expect(list.status, list.body).to.equal(200);
    const items = list.json().items;
    expect(items.map((i: any) => [i.apiVersion, i.metadata.name, i.spec.hostname])).to.deep.equal([
      [`${GROUP}/v2`, 'one', 'one.example.com'],
      [`${GROUP}/v2`, 'two', 'moved.example.com'],
    ]);
    expect(hook.received).to.have.length(calls + 1);
    expect(hook.received[calls].body.request.objects).to.have.length(2);

    const watch = await openWatch(
      gh.url,
      `${at('v2')}?watch=1&resourceVersion=${list.json().metadata.resourceVersion}`,
      {
        ca: gh.ca,
        token: gh.adminToken,
      },
    );
    try {
      expect(watch.status).to.equal(200);
      const res = await gh.request('POST', at('v1'), { body: gizmo('three', 'v1', { host: 'three.example.com' }) });
      expect(res.status, res.body).to.equal(201);
      const ev = await watch.next(10_000);
      expect(ev.type).to.equal('ADDED');
      expect(ev.object).to.deep.include({ apiVersion: `${GROUP}/v2`, spec: { hostname: 'three.example.com' } });
    } finally {
      watch.close();
    }
  });

  it('answers a failed conversion with a 500 naming the webhook, as upstream', async () => {
    hook.behave = (review) =>
      convertGizmos(review, (_c, response) => (response.result = { status: 'Failure', message: 'no v2 today' }));
    const get = await gh.request('GET', at('v2', 'one'));
    expect(get.status, get.body).to.equal(500);
    const status = get.json();
    expect(status).to.deep.include({
      kind: 'Status',
      status: 'Failure',
      code: 500,
      message: `conversion webhook for ${GROUP}/v1, Kind=Gizmo failed: no v2 today`,
    });
    expect(status).to.not.have.property('reason');
    const list = await gh.request('GET', at('v2'));
    expect(list.status).to.equal(500);
    expect(list.json().message).to.equal(`conversion webhook for ${GROUP}/v1, Kind=GizmoList failed: no v2 today`);
    const create = await gh.request('POST', at('v2'), { body: gizmo('four', 'v2', { hostname: 'x' }) });
    expect(create.status).to.equal(500);
    expect(create.json().message).to.equal(`conversion webhook for ${GROUP}/v2, Kind=Gizmo failed: no v2 today`);
    expect((await gh.request('GET', at('v1', 'four'))).status).to.equal(404);
    // The storage version needs no conversion.
    expect((await gh.request('GET', at('v1', 'one'))).status).to.equal(200);
  });

  it('ends a watch whose event cannot be converted with an ERROR event', async () => {
    const watch = await openWatch(gh.url, `${at('v2')}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dfive`, {
      ca: gh.ca,
      token: gh.adminToken,
    });
    try {
      expect(watch.status).to.equal(200);
      hook.behave = (review) =>
        convertGizmos(review, (_c, response) => (response.result = { status: 'Failure', message: 'not now' }));
      const res = await gh.request('POST', at('v1'), { body: gizmo('five', 'v1', { host: 'five.example.com' }) });
      expect(res.status, res.body).to.equal(201);
      const ev = await watch.next(10_000);
      expect(ev.type).to.equal('ERROR');
      expect(ev.object).to.deep.include({
        kind: 'Status',
        code: 500,
        message: `conversion webhook for ${GROUP}/v1, Kind=Gizmo failed: not now`,
      });
    } finally {
      watch.close();
    }
  });

  it('refuses an answer with the wrong uid, the wrong count or a renamed object', async () => {
    const refusals: [(converted: any[], response: any) => void, string][] = [
      [(_c, r) => (r.uid = 'someone-else'), `failed: expected response.uid=`],
      [(_c, r) => (r.convertedObjects = []), `returned 0 objects, expected 1`],
      [([obj]) => (obj.metadata.name = 'renamed'), `returned invalid object: must have the same name: one != renamed`],
    ];
    for (const [edit, message] of refusals) {
      hook.behave = (review) => convertGizmos(review, edit);
      const res = await gh.request('GET', at('v2', 'one'));
      expect(res.status, res.body).to.equal(500);
      expect(res.json().message).to.contain(`conversion webhook for ${GROUP}/v1, Kind=Gizmo ${message}`);
    }
  });

  it('serves kubectl the version it names, and its error as upstream words it', async () => {
    const kubectl = await createKubectl(gh.kubeconfigPath);
    try {
      const hostname = await kubectl.ok([
        'get',
        `gizmos.v2.${GROUP}`,
        'one',
        '-n',
        ns,
        '-o',
        'jsonpath={.spec.hostname}',
      ]);
      expect(hostname).to.equal('one.example.com');
      hook.behave = (review) =>
        convertGizmos(review, (_c, response) => (response.result = { status: 'Failure', message: 'no v2 today' }));
      const failed = await kubectl.run(['get', `gizmos.v2.${GROUP}`, 'one', '-n', ns]);
      expect(failed.code).to.equal(1);
      expect(failed.stderr.trim()).to.equal(
        `Error from server: conversion webhook for ${GROUP}/v1, Kind=Gizmo failed: no v2 today`,
      );
    } finally {
      await kubectl.cleanup();
    }
  });

  it("times each conversion in upstream's metrics", async () => {
    const text = await scrape(gh);
    const durations = seriesOf(text, 'apiserver_crd_conversion_webhook_duration_seconds_count');
    const crd = `gizmos.${GROUP}`;
    expect(
      durations.get(labels({ crd_name: crd, from_version: 'v1', to_version: 'v2', succeeded: 'true' })),
    ).to.be.above(0);
    expect(
      durations.get(labels({ crd_name: crd, from_version: 'v1', to_version: 'v2', succeeded: 'false' })),
    ).to.be.above(0);
    const calls = seriesOf(text, 'apiserver_conversion_webhook_request_total');
    expect(calls.get(labels({ result: 'success', failure_type: '' }))).to.be.above(0);
    expect(
      calls.get(labels({ result: 'failure', failure_type: 'conversion_webhook_partial_response_failure' })),
    ).to.equal(1);
    expect(
      calls.get(labels({ result: 'failure', failure_type: 'conversion_webhook_invalid_converted_object_failure' })),
    ).to.equal(1);
  });
});
