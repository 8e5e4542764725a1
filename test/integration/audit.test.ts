// Audit over real HTTPS into a real log file, read back once the gateway has closed (closing flushes the log, so
// every event of the requests below is in the file). Secrets are audited at Metadata and ConfigMaps at
// RequestResponse: the ConfigMaps' bodies appearing shows that the Secrets' absence is the policy's doing.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
- level: Metadata
  resources:
  - group: ""
    resources: [secrets]
- level: RequestResponse
  omitManagedFields: true
  resources:
  - group: ""
    resources: [configmaps]
- level: Metadata
  omitStages: [RequestReceived]
`;

const SECRETS = '/api/v1/namespaces/default/secrets';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const BOB = 'bob-audit-token';
/** Secret values, base64 and plain: none may appear anywhere in the log. */
const SECRET_VALUES = ['create-value', 'update-value', 'patch-value', 'apply-value'];
const b64 = (s: string) => Buffer.from(s).toString('base64');

interface Event {
  auditID: string;
  stage: string;
  level: string;
  verb: string;
  requestURI: string;
  user: { username?: string; groups?: string[] };
  impersonatedUser?: { username: string };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { code: number; reason?: string };
  requestObject?: any;
  responseObject?: any;
  annotations?: Record<string, string>;
}

describe('audit log', function () {
  let dir: string;
  let gh: TestGatehouse | undefined;
  let text = '';
  let events: Event[] = [];
  const ids: Record<string, string> = {};
  /** The Secret as the update read it. */
  const read: Record<string, string> = {};

  before(async function () {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-audit-'));
    await writeFile(path.join(dir, 'policy.yaml'), POLICY);
    await writeFile(path.join(dir, 'tokens.csv'), `${BOB},bob,bob-uid,"team"\n`);
    gh = await startTestGatehouse([
      '--audit-policy-file',
      path.join(dir, 'policy.yaml'),
      '--audit-log-path',
      path.join(dir, 'logs', 'audit.log'),
      '--authorization-mode=RBAC',
      '--token-auth-file',
      path.join(dir, 'tokens.csv'),
    ]);
    const ok = async (method: string, url: string, opts: Parameters<TestGatehouse['request']>[2] = {}) => {
      const res = await gh!.request(method, url, opts);
      expect(res.status, `${method} ${url}: ${res.body}`).to.be.oneOf([200, 201]);
      return res;
    };
    const secret = (value: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's1', namespace: 'default' },
      data: { key: b64(value) },
    });
    ids.createSecret = (await ok('POST', SECRETS, { body: secret('create-value') })).headers['audit-id'] as string;
    const current = (await ok('GET', `${SECRETS}/s1`)).json();
    read.uid = current.metadata.uid;
    read.resourceVersion = current.metadata.resourceVersion;
    ids.updateSecret = (
      await ok('PUT', `${SECRETS}/s1`, { body: { ...secret('update-value'), metadata: current.metadata } })
    ).headers['audit-id'] as string;
    await ok('PATCH', `${SECRETS}/s1`, {
      body: { data: { key: b64('patch-value') }, stringData: { plain: 'patch-value' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    await ok('PATCH', `${SECRETS}/s1?fieldManager=audit-test`, {
      body: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: s1\nstringData:\n  applied: apply-value\n`,
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    await ok('GET', SECRETS);
    const cm = await ok('POST', CONFIGMAPS, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { shown: 'configmap-value' } },
      headers: { 'Audit-ID': 'client-chosen-id' },
    });
    ids.configmapHeader = cm.headers['audit-id'] as string;
    ids.forbidden = (await gh.request('GET', SECRETS, { token: BOB })).headers['audit-id'] as string;
    ids.unauthenticated = (await gh.request('GET', SECRETS, { token: 'not-a-token' })).headers['audit-id'] as string;
    ids.impersonated = (
      await ok('GET', `${CONFIGMAPS}/c1`, {
        headers: { 'Impersonate-User': 'carol', 'Impersonate-Group': 'system:masters' },
      })
    ).headers['audit-id'] as string;
    await ok('GET', `${CONFIGMAPS}?watch=1&timeoutSeconds=1`);
    await ok('GET', '/healthz');
    const metrics = await ok('GET', '/metrics');
    expect(metrics.body).to.match(/^apiserver_audit_event_total [1-9]/m);
    await gh.close();
    gh = undefined;
    text = await readFile(path.join(dir, 'logs', 'audit.log'), 'utf8');
    events = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Event);
  });

  after(async () => {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const byId = (id: string) => events.filter((e) => e.auditID === id);

  it('gives every answer an Audit-Id, keeping the client one', () => {
    expect(ids.createSecret).to.match(/^[0-9a-f-]{36}$/);
    expect(ids.configmapHeader).to.equal('client-chosen-id');
    expect(ids.unauthenticated).to.match(/^[0-9a-f-]{36}$/);
    expect(byId('client-chosen-id').map((e) => e.stage)).to.deep.equal(['RequestReceived', 'ResponseComplete']);
  });

  it('writes audit.k8s.io/v1 events with the request and who made it', () => {
    const event = byId(ids.createSecret).find((e) => e.stage === 'ResponseComplete')!;
    expect(event).to.include({ apiVersion: 'audit.k8s.io/v1', kind: 'Event', level: 'Metadata', verb: 'create' });
    expect(byId(ids.createSecret).map((e) => e.stage)).to.deep.equal(['RequestReceived', 'ResponseComplete']);
    expect(event.requestURI).to.equal(SECRETS);
    expect(event.user.username).to.equal('system:admin');
    expect(event.sourceIPs).to.include('127.0.0.1');
    expect(event.objectRef).to.deep.equal({ resource: 'secrets', namespace: 'default', name: 's1', apiVersion: 'v1' });
    expect(event.responseStatus).to.deep.equal({ metadata: {}, code: 201 });
    expect(event.annotations?.['authorization.platform.io/decision']).to.equal('allow');
  });

  it("completes objectRef with the uid and resourceVersion the update's body carries, as upstream", () => {
    expect(read.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(read.resourceVersion).to.match(/^\d+$/);
    for (const event of byId(ids.updateSecret).filter((e) => e.stage === 'ResponseComplete'))
      expect(event.objectRef).to.deep.equal({
        resource: 'secrets',
        namespace: 'default',
        name: 's1',
        uid: read.uid,
        apiVersion: 'v1',
        resourceVersion: read.resourceVersion,
      });
    expect(byId(ids.updateSecret)).to.have.length(2);
    // RequestReceived is written before the body is read: only what the URL says.
    expect(byId(ids.updateSecret)[0].objectRef).not.to.have.property('uid');
    // A create's body has neither.
    const created = byId(ids.createSecret).find((e) => e.stage === 'ResponseComplete')!;
    expect(created.objectRef).not.to.have.any.keys('uid', 'resourceVersion');
  });

  it('never writes Secret bodies at Metadata: create, update, patch, apply, list', () => {
    const secretEvents = events.filter(
      (e) => e.objectRef?.resource === 'secrets' && e.user.username === 'system:admin',
    );
    const completed = secretEvents.filter((e) => e.stage === 'ResponseComplete').map((e) => e.verb);
    expect(completed).to.have.members(['create', 'get', 'update', 'patch', 'patch', 'list']);
    for (const event of secretEvents) {
      expect(event.level).to.equal('Metadata');
      expect(event).not.to.have.property('requestObject');
      expect(event).not.to.have.property('responseObject');
    }
    for (const value of SECRET_VALUES) {
      expect(text).not.to.include(value);
      expect(text).not.to.include(b64(value));
    }
  });

  it('writes request and response objects at RequestResponse, without managedFields when told', () => {
    const complete = byId('client-chosen-id').find((e) => e.stage === 'ResponseComplete')!;
    expect(complete.requestObject.data).to.deep.equal({ shown: 'configmap-value' });
    expect(complete.responseObject.metadata.name).to.equal('c1');
    expect(complete.responseObject.metadata.uid).to.be.a('string');
    expect(complete.responseObject.metadata).not.to.have.property('managedFields');
  });

  it('records a refused credential without a user, as upstream', () => {
    const stages = byId(ids.unauthenticated).map((e) => [e.stage, e.user, e.responseStatus?.code]);
    expect(stages).to.deep.equal([
      ['ResponseStarted', {}, 401],
      ['ResponseComplete', {}, 401],
    ]);
  });

  it('records refusals with the authorization decision', () => {
    const event = byId(ids.forbidden).find((e) => e.stage === 'ResponseComplete')!;
    expect(event.user.username).to.equal('bob');
    expect(event.responseStatus).to.include({ code: 403, reason: 'Forbidden' });
    expect(event.annotations?.['authorization.platform.io/decision']).to.equal('forbid');
  });

  it('records the impersonated user beside the authenticated one', () => {
    const event = byId(ids.impersonated).find((e) => e.stage === 'ResponseComplete')!;
    expect(event.user.username).to.equal('system:admin');
    expect(event.impersonatedUser?.username).to.equal('carol');
  });

  it('has a watch start and complete', () => {
    const stages = events.filter((e) => e.verb === 'watch').map((e) => e.stage);
    expect(stages).to.deep.equal(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
  });

  it('leaves out what the policy says None to and the stages a rule omits', () => {
    expect(events.some((e) => e.requestURI.startsWith('/healthz'))).to.equal(false);
    expect(events.filter((e) => e.requestURI === '/metrics').map((e) => e.stage)).to.deep.equal(['ResponseComplete']);
  });
});

describe('audit policy at start', () => {
  it('warns that a backend without a policy records nothing', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-audit-'));
    const gh = await startTestGatehouse(['--audit-log-path', path.join(dir, 'a.log')]);
    try {
      expect((await gh.request('GET', '/api')).headers['audit-id']).to.be.a('string');
      expect(gh.logs.some((l) => l.includes('no audit policy file provided, no events will be recorded'))).to.be.true;
    } finally {
      await gh.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stops the start naming the file and the rule', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-audit-'));
    try {
      const file = path.join(dir, 'bad.yaml');
      await writeFile(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n- level: All\n');
      let error: Error | undefined;
      await startTestGatehouse(['--audit-policy-file', file, '--audit-log-path', path.join(dir, 'a.log')]).then(
        (gh) => gh.close(),
        (e: Error) => {
          error = e;
        },
      );
      expect(error?.message).to.include(file).and.to.include('rules[1].level');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
