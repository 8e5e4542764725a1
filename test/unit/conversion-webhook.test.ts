// The conversion webhook client against a real HTTPS webhook: the review it sends (group by the switch, version by
// conversionReviewVersions), objects already in the version asked for kept back, and every check upstream's webhook
// converter makes of the answer, each failure a 500 without a reason in upstream's words.
import { expect } from 'chai';
import { servedDefinitionOf } from '../../api/apiextensions/v1/crd-types.js';
import type { KObject } from '../../api/meta/types.js';
import { StatusError } from '../../api/meta/errors.js';
import { createConversionWebhooks, type ConversionWebhooks } from '../../gateway/apiextensions/conversion-webhook.js';
import type { AdmissionReviewGroup } from '../../gateway/admission/webhook/admission-review.js';
import { realClock } from '../../gateway/server/clock.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startTestWebhook, type TestWebhook, type WebhookBehaviour } from '../helpers/webhook-server.js';
import { convertGizmos, GIZMO_GROUP, gizmoDefinition } from '../helpers/conversion-webhook.js';

const GROUP = GIZMO_GROUP;
const definition = (hook: TestWebhook, reviewVersions?: string[]) =>
  ({ ...gizmoDefinition(hook, reviewVersions), metadata: { name: `gizmos.${GROUP}`, uid: 'crd-uid' } }) as KObject;

const gizmo = (name: string, apiVersion = `${GROUP}/v1`): KObject => ({
  apiVersion,
  kind: 'Gizmo',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { app: 'a' } },
  spec: { host: `${name}.example.com` },
});

const converting = convertGizmos;

async function failure(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (e) {
    expect(e).to.be.instanceOf(StatusError);
    const status = (e as StatusError).toStatus();
    expect(status.code).to.equal(500);
    expect(status).to.not.have.property('reason');
    return e as StatusError;
  }
  return expect.fail('the conversion succeeded');
}

describe('conversion webhooks', () => {
  let hook: TestWebhook;
  let webhooks: ConversionWebhooks;
  const start = (reviewGroup: AdmissionReviewGroup = 'k8s.io') =>
    createConversionWebhooks({ resolver: () => undefined, clock: realClock, reviewGroup });

  before(async () => {
    hook = await startTestWebhook((review) => converting(review), { path: '/convert' });
  });
  beforeEach(() => {
    hook.received.length = 0;
    hook.behave = (review) => converting(review);
    webhooks = start();
  });
  afterEach(() => webhooks.close());
  after(async () => {
    await hook.close();
  });

  const converter = (reviewVersions?: string[]) =>
    webhooks.converterOf(servedDefinitionOf(definition(hook, reviewVersions)))!;

  it('sends a v1 ConversionReview in apiextensions.k8s.io and reads the converted object', async () => {
    const converted = await converter().one(gizmo('a'), `${GROUP}/v2`);
    expect(converted).to.deep.include({ apiVersion: `${GROUP}/v2`, spec: { hostname: 'a.example.com' } });
    expect(converted.metadata).to.deep.equal(gizmo('a').metadata);
    const [{ body, headers }] = hook.received;
    expect(body).to.deep.include({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' });
    expect(body.request).to.deep.include({ desiredAPIVersion: `${GROUP}/v2`, objects: [gizmo('a')] });
    expect(body.request.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(headers['content-type']).to.equal('application/json');
  });

  it('calls nobody for objects already in the version asked for, and sends a list in one review', async () => {
    const c = converter();
    const same = gizmo('x', `${GROUP}/v2`);
    expect(await c.one(same, `${GROUP}/v2`)).to.equal(same);
    expect(await c.list([same], `${GROUP}/v2`)).to.deep.equal([same]);
    expect(hook.received).to.have.length(0);
    const list = await c.list([gizmo('a'), same, gizmo('b')], `${GROUP}/v2`);
    expect(list.map((o) => [o.metadata.name, o.apiVersion])).to.deep.equal([
      ['a', `${GROUP}/v2`],
      ['x', `${GROUP}/v2`],
      ['b', `${GROUP}/v2`],
    ]);
    expect(list[1]).to.equal(same);
    expect(hook.received).to.have.length(1);
    expect(hook.received[0].body.request.objects.map((o: any) => o.metadata.name)).to.deep.equal(['a', 'b']);
  });

  it('sends the review in apiextensions.platform.io under the platform.io switch, and v1beta1 when listed first', async () => {
    webhooks.close();
    webhooks = start('platform.io');
    await converter().one(gizmo('a'), `${GROUP}/v2`);
    expect(hook.received[0].body.apiVersion).to.equal('apiextensions.platform.io/v1');
    // v1beta1 answers are read without their uid, as upstream reads them.
    hook.behave = (review) => converting(review, (_c, response) => delete response.uid);
    await converter(['v1beta1', 'v1']).one(gizmo('a'), `${GROUP}/v2`);
    expect(hook.received[1].body.apiVersion).to.equal('apiextensions.platform.io/v1beta1');
  });

  it('reads an answer in either group', async () => {
    hook.behave = (review) => {
      const answer = converting(review) as { answer: any };
      answer.answer.apiVersion = 'apiextensions.platform.io/v1';
      return answer;
    };
    expect((await converter().one(gizmo('a'), `${GROUP}/v2`)).spec).to.deep.equal({ hostname: 'a.example.com' });
  });

  it('keeps labels and annotations the webhook changed, and puts back the rest of metadata', async () => {
    hook.behave = (review) =>
      converting(review, ([obj]) => {
        obj.metadata = { ...obj.metadata, labels: { app: 'b' }, annotations: { note: 'x' }, generation: 9 };
      });
    const converted = await converter().one(gizmo('a'), `${GROUP}/v2`);
    expect(converted.metadata).to.deep.equal({
      ...gizmo('a').metadata,
      labels: { app: 'b' },
      annotations: { note: 'x' },
    });
  });

  const spoiled = (edit: (converted: any[], response: any) => void) => (review: any) => converting(review, edit);
  const cases: [string, (review: any) => WebhookBehaviour, string][] = [
    [
      'a failed conversion',
      spoiled((_c, r) => (r.result = { status: 'Failure', message: 'v2 needs a host' })),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo failed: v2 needs a host`,
    ],
    [
      'a failure without a message',
      spoiled((_c, r) => (r.result = { status: 'Failure' })),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo failed: response.result.status was 'Failure', not 'Success'`,
    ],
    [
      'a wrong uid',
      spoiled((_c, r) => (r.uid = 'not-it')),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo failed: expected response.uid=`,
    ],
    [
      'another kind of review',
      () => ({ answer: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: {} } }),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got admission.k8s.io/v1, Kind=AdmissionReview`,
    ],
    [
      'no object',
      spoiled((_c, r) => (r.convertedObjects = [])),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo returned 0 objects, expected 1`,
    ],
    [
      'a changed name',
      spoiled(([obj]) => (obj.metadata.name = 'b')),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo returned invalid object: must have the same name: a != b`,
    ],
    [
      'a changed uid',
      spoiled(([obj]) => (obj.metadata.uid = 'other')),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo returned invalid object: must have the same UID: uid-a != other`,
    ],
    [
      'the wrong version',
      spoiled(([obj]) => (obj.apiVersion = `${GROUP}/v1`)),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo returned invalid object at index 0: invalid groupVersion (expected ${GROUP}/v2, received ${GROUP}/v1)`,
    ],
    [
      'another kind',
      spoiled(([obj]) => (obj.kind = 'Gadget')),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo returned invalid object at index 0: invalid kind (expected Gizmo, received Gadget)`,
    ],
    [
      'an invalid label',
      spoiled(([obj]) => (obj.metadata.labels = { app: 'not valid!' })),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo returned invalid metadata: metadata.labels: Invalid value: "not valid!"`,
    ],
    [
      'an HTTP error',
      () => ({ httpStatus: 500, body: 'boom' }),
      `conversion webhook for ${GROUP}/v1, Kind=Gizmo failed: an error on the server ("boom") has prevented the request from succeeding`,
    ],
  ];
  for (const [what, behave, message] of cases)
    it(`refuses ${what}`, async () => {
      hook.behave = behave;
      const e = await failure(converter().one(gizmo('a'), `${GROUP}/v2`));
      expect(e.message.startsWith(message), e.message).to.equal(true);
    });

  it('reaches a webhook named by a service through the resolver, verifying the service name', async () => {
    const serviceHook = await startTestWebhook((review) => convertGizmos(review), { dnsNames: ['converter.conv.svc'] });
    try {
      const port = Number(new URL(serviceHook.url).port);
      const resolved: unknown[] = [];
      webhooks.close();
      webhooks = createConversionWebhooks({
        resolver: () => ({
          resolve: (service) => (resolved.push(service), new URL(`https://127.0.0.1:${port}`)),
          onChange: () => () => {},
          close() {},
        }),
        clock: realClock,
        reviewGroup: 'k8s.io',
      });
      const crd = definition(serviceHook) as any;
      crd.spec.conversion.webhook.clientConfig = {
        service: { namespace: 'conv', name: 'converter', path: '/convert', port: 8443 },
        caBundle: serviceHook.caBundle,
      };
      const converted = await webhooks.converterOf(servedDefinitionOf(crd))!.one(gizmo('a'), `${GROUP}/v2`);
      expect(converted.spec).to.deep.equal({ hostname: 'a.example.com' });
      expect(resolved).to.deep.equal([{ namespace: 'conv', name: 'converter', port: 8443 }]);
      expect(serviceHook.received).to.have.length(1);
      // The certificate must name the service, whatever address reached it.
      crd.spec.conversion.webhook.clientConfig.service.name = 'impostor';
      const e = await failure(webhooks.converterOf(servedDefinitionOf(crd))!.one(gizmo('a'), `${GROUP}/v2`));
      expect(e.message).to.contain('x509');
      expect(serviceHook.received).to.have.length(1);
    } finally {
      await serviceHook.close();
    }
  });

  it("names a list's objects by their place after them, as upstream", async () => {
    hook.behave = spoiled((converted) => (converted[1].metadata.namespace = 'other'));
    const e = await failure(converter().list([gizmo('a'), gizmo('b')], `${GROUP}/v2`));
    expect(e.message).to.equal(
      `conversion webhook for ${GROUP}/v1, Kind=GizmoList returned invalid converted object at index 2: must have the same namespace: default != other`,
    );
  });

  it("gives up on a webhook that does not answer within upstream's 30 seconds", async () => {
    const clock = new ManualClock();
    webhooks.close();
    webhooks = createConversionWebhooks({ resolver: () => undefined, clock, reviewGroup: 'k8s.io' });
    hook.behave = () => 'hang';
    const pending = failure(converter().one(gizmo('a'), `${GROUP}/v2`));
    const timer = await clock.timer();
    expect(timer.ms).to.equal(30_000);
    clock.advance(30_000);
    const e = await pending;
    expect(e.message).to.match(
      /failed: Post "https:\/\/127\.0\.0\.1:\d+\/convert\?timeout=30s": context deadline exceeded$/,
    );
  });
});
