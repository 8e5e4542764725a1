// The audit Policy as kube-apiserver's checker reads it: first matching rule wins, each selector narrows, and a bad
// policy is refused with the file and the rule's index. Also the event's JSON line and managedFields dropping.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  createPolicyChecker,
  parseAuditPolicy,
  type AuditPolicy,
  type RequestAuditConfig,
} from '../../gateway/audit/policy.js';
import { serializeEvent, withoutManagedFields, type AuditEvent } from '../../gateway/audit/event.js';
import type { Attributes } from '../../policies/authorizer.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const ALICE = { name: 'alice', groups: ['devs', 'system:authenticated'] };

function attrs(over: Partial<Attributes>): Attributes {
  return {
    user: ALICE,
    verb: 'get',
    isResourceRequest: true,
    path: '/api/v1/namespaces/ns/pods/p',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: 'ns',
    name: 'p',
    ...over,
  };
}

function policy(rules: unknown[], extra: Record<string, unknown> = {}): AuditPolicy {
  return parseAuditPolicy(JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules, ...extra }), 'p.yaml');
}

const levelFor = (p: AuditPolicy, a: Partial<Attributes>): string => createPolicyChecker(p)(attrs(a)).level;

describe('audit policy', () => {
  it('takes the first matching rule and defaults to None', () => {
    const p = policy([
      { level: 'None', users: ['system:kube-proxy'] },
      { level: 'RequestResponse', verbs: ['create'] },
      { level: 'Metadata', userGroups: ['devs'] },
    ]);
    expect(levelFor(p, { verb: 'create' })).to.equal('RequestResponse');
    expect(levelFor(p, { verb: 'get' })).to.equal('Metadata');
    expect(levelFor(p, { verb: 'get', user: { name: 'bob', groups: [] } })).to.equal('None');
    expect(levelFor(p, { verb: 'create', user: { name: 'system:kube-proxy', groups: [] } })).to.equal('None');
  });

  it('matches resources, subresources, resource names and namespaces as upstream', () => {
    const p = policy([
      { level: 'Request', resources: [{ group: '', resources: ['pods/log'] }] },
      { level: 'RequestResponse', resources: [{ group: '', resources: ['*/status'] }] },
      { level: 'Metadata', resources: [{ group: 'apps', resources: ['deployments/*'] }] },
      { level: 'Metadata', resources: [{ group: '', resources: ['configmaps'], resourceNames: ['cfg'] }] },
      { level: 'Request', namespaces: ['kube-system'] },
    ]);
    expect(levelFor(p, { subresource: 'log' })).to.equal('Request');
    expect(levelFor(p, { subresource: 'exec' })).to.equal('None');
    expect(levelFor(p, { resource: 'nodes', subresource: 'status', namespace: '' })).to.equal('RequestResponse');
    expect(levelFor(p, { apiGroup: 'apps', resource: 'deployments', subresource: 'scale' })).to.equal('Metadata');
    expect(levelFor(p, { apiGroup: 'apps', resource: 'deployments' })).to.equal('Metadata');
    expect(levelFor(p, { resource: 'configmaps', name: 'cfg' })).to.equal('Metadata');
    expect(levelFor(p, { resource: 'configmaps', name: 'other' })).to.equal('None');
    expect(levelFor(p, { resource: 'configmaps', namespace: 'kube-system' })).to.equal('Request');
  });

  it('reads upstream *.k8s.io groups as the platform groups they alias', () => {
    const p = policy([
      { level: 'Metadata', resources: [{ group: 'authentication.k8s.io', resources: ['tokenreviews'] }] },
    ]);
    expect(levelFor(p, { apiGroup: 'authentication.platform.io', resource: 'tokenreviews' })).to.equal('Metadata');
    expect(levelFor(p, { apiGroup: 'authentication.k8s.io', resource: 'tokenreviews' })).to.equal('Metadata');
  });

  it('matches non-resource URLs exactly or by a * suffix, never resource requests', () => {
    const p = policy([{ level: 'None', nonResourceURLs: ['/healthz*', '/version'] }, { level: 'Metadata' }]);
    const nonResource = (path: string) => ({ isResourceRequest: false, path, resource: '', namespace: '' });
    expect(levelFor(p, nonResource('/healthz/etcd'))).to.equal('None');
    expect(levelFor(p, nonResource('/version'))).to.equal('None');
    expect(levelFor(p, nonResource('/versions'))).to.equal('Metadata');
    expect(levelFor(p, { path: '/healthz' })).to.equal('Metadata');
  });

  it('joins the policy and rule omitStages; a rule omitManagedFields overrides the policy one', () => {
    const p = policy(
      [
        { level: 'Metadata', verbs: ['get'], omitStages: ['ResponseStarted'], omitManagedFields: false },
        { level: 'Metadata' },
      ],
      { omitStages: ['RequestReceived'], omitManagedFields: true },
    );
    const check = createPolicyChecker(p);
    const get: RequestAuditConfig = check(attrs({}));
    expect([...get.omitStages]).to.have.members(['RequestReceived', 'ResponseStarted']);
    expect(get.omitManagedFields).to.equal(false);
    expect(check(attrs({ verb: 'list' })).omitManagedFields).to.equal(true);
  });

  it('accepts audit.platform.io/v1 as well', () => {
    const p = parseAuditPolicy('apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n- level: Request\n', 'p.yaml');
    expect(p.rules[0].level).to.equal('Request');
  });

  it('refuses bad policies naming the file and the rule', () => {
    const refuse = (text: string, message: RegExp) =>
      expect(() => parseAuditPolicy(text, '/etc/p.yaml')).to.throw(message);
    const head = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';
    refuse(
      `${head}rules:\n- level: Metadata\n- level: Everything\n`,
      /\/etc\/p\.yaml: rules\[1\]\.level: Unsupported value: "Everything"/,
    );
    refuse(
      `${head}rules:\n- level: None\n  omitStages: [Sometimes]\n`,
      /rules\[0\]\.omitStages\[0\]: Unsupported value/,
    );
    refuse(
      `${head}rules:\n- level: None\n  nonResourceURLs: ["/x"]\n  namespaces: [a]\n`,
      /rules\[0\].*both regular resources/,
    );
    refuse(`${head}rules:\n- level: None\n  nonResourceURLs: ["x"]\n`, /must start with "\/"/);
    refuse(`${head}rules:\n- level: None\n  resources: [{resourceNames: [a]}]\n`, /requires at least one resource/);
    refuse(`${head}rules: []\n`, /0 rules/);
    refuse('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n', /apiVersion/);
    refuse(`${head}rules:\n- level: None\n users: [a]\n`, /\/etc\/p\.yaml: line 5 column \d+: bad indentation/);
  });
});

describe('example audit policy', () => {
  const text = readFileSync(`${ROOT}deploy/audit-policy.yaml`, 'utf8');
  const check = createPolicyChecker(parseAuditPolicy(text, 'deploy/audit-policy.yaml'));

  it('is the one docs/operations.md shows', () => {
    expect(readFileSync(`${ROOT}docs/operations.md`, 'utf8')).to.include(`\`\`\`yaml\n${text}\`\`\``);
  });

  it('logs what may carry credentials at Metadata only, for every verb', () => {
    const credentials: Partial<Attributes>[] = [
      { resource: 'secrets' },
      { resource: 'configmaps' },
      { resource: 'serviceaccounts', subresource: 'token' },
      { apiGroup: 'authentication.platform.io', resource: 'tokenreviews', namespace: '', name: '' },
    ];
    for (const target of credentials)
      for (const verb of ['create', 'update', 'patch', 'get', 'list', 'watch', 'delete'])
        expect(check(attrs({ ...target, verb })).level, `${verb} ${target.resource}`).to.equal('Metadata');
    expect(check(attrs({ verb: 'create' })).level).to.equal('RequestResponse');
  });
});

describe('audit event', () => {
  it('is one JSON line with the bodies in place', () => {
    const event: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Request',
      auditID: 'id',
      stage: 'ResponseComplete',
      requestURI: '/api',
      verb: 'get',
      user: { username: 'u' },
      requestReceivedTimestamp: '2026-01-01T00:00:00.000000Z',
      stageTimestamp: '2026-01-01T00:00:00.001000Z',
      annotations: { a: 'b' },
    };
    const line = serializeEvent(event, '{"x":1}', '{"y":"a\\nb"}');
    expect(line).not.to.include('\n');
    const parsed = JSON.parse(line);
    expect(parsed).to.include({ auditID: 'id', stage: 'ResponseComplete' });
    expect(parsed.requestObject).to.deep.equal({ x: 1 });
    expect(parsed.responseObject).to.deep.equal({ y: 'a\nb' });
    expect(parsed.annotations).to.deep.equal({ a: 'b' });
  });

  it('drops managedFields from objects and list items without touching the original', () => {
    const obj = { metadata: { name: 'a', managedFields: [{ manager: 'm' }] } };
    const list = { items: [obj] };
    expect(withoutManagedFields(obj)).to.deep.equal({ metadata: { name: 'a' } });
    expect(withoutManagedFields(list)).to.deep.equal({ items: [{ metadata: { name: 'a' } }] });
    expect(obj.metadata.managedFields).to.have.length(1);
  });
});
