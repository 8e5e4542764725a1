// ABAC policy files (parsing, line-numbered errors, decisions, rules) and the authorization flags (webhook and ABAC
// files required by their modes, --authorization-config excluding the legacy flags, the webhook flag defaults).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { optionsError } from '../helpers/options.js';
import type { Attributes } from '../../policies/authorizer.js';
import { createAbacAuthorizer, parsePolicyFile, PolicyFileError } from '../../policies/abac/abac-authorizer.js';
import { buildAuthorizer } from '../../policies/build-authorizer.js';
import { parseOptions } from '../../gateway/server/options.js';

const policy = (spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

const FILE = [
  '# admins may do anything',
  policy({ user: 'admin', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' }),
  '',
  policy({ user: 'alice', namespace: 'projectCaribou', resource: '*', apiGroup: '*' }),
  policy({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', apiGroup: '', readonly: true }),
  policy({ group: 'system:authenticated', readonly: true, nonResourcePath: '/version' }),
  policy({ group: 'readers', readonly: true, nonResourcePath: '/apis/*' }),
  policy({ user: '*', namespace: '*', resource: 'configmaps', apiGroup: '', readonly: true }),
].join('\n');

function attrs(user: string, groups: string[], o: Partial<Attributes>): Attributes {
  return {
    user: { name: user, groups },
    verb: 'get',
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: 'projectCaribou',
    name: '',
    ...o,
  };
}
const nonResource = (user: string, groups: string[], p: string, verb = 'get') =>
  attrs(user, groups, { isResourceRequest: false, path: p, verb, resource: '', namespace: '', apiVersion: '' });

describe('ABAC', () => {
  const abac = createAbacAuthorizer(parsePolicyFile(FILE, 'policy.jsonl'));
  const decide = async (a: Attributes) => (await abac.authorize(a)).decision;

  it('allows by user, namespace, resource and group, with wildcards', async () => {
    expect(await decide(attrs('admin', [], { namespace: 'any', resource: 'secrets', verb: 'delete' }))).to.equal(
      'Allow',
    );
    expect(await decide(attrs('alice', [], { verb: 'create', apiGroup: 'apps', resource: 'replicasets' }))).to.equal(
      'Allow',
    );
    expect(await decide(attrs('alice', [], { namespace: 'other' }))).to.equal('NoOpinion');
    expect(await decide(attrs('carol', [], { resource: 'configmaps', namespace: 'x' }))).to.equal('Allow');
  });

  it('limits readonly policies to get, list and watch', async () => {
    for (const verb of ['get', 'list', 'watch']) expect(await decide(attrs('bob', [], { verb }))).to.equal('Allow');
    expect(await decide(attrs('bob', [], { verb: 'create' }))).to.equal('NoOpinion');
    expect(await decide(attrs('bob', [], { resource: 'secrets' }))).to.equal('NoOpinion');
  });

  it('matches non-resource paths exactly or by a trailing *', async () => {
    expect(await decide(nonResource('x', ['system:authenticated'], '/version'))).to.equal('Allow');
    expect(await decide(nonResource('x', ['system:authenticated'], '/version', 'post'))).to.equal('NoOpinion');
    expect(await decide(nonResource('x', ['readers'], '/apis/apps/v1'))).to.equal('Allow');
    expect(await decide(nonResource('x', ['readers'], '/api'))).to.equal('NoOpinion');
    expect((await abac.authorize(nonResource('x', [], '/healthz'))).reason).to.equal('No policy matched.');
  });

  it('lists the rules that apply to a user in a namespace', async () => {
    const rules = await abac.rulesFor({ name: 'bob', groups: ['system:authenticated'] }, 'projectCaribou');
    expect(rules).to.deep.equal({
      resourceRules: [
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps'] },
      ],
      nonResourceRules: [{ verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/version'] }],
      incomplete: false,
    });
  });

  it('names the line of a malformed policy', () => {
    const bad = [
      policy({ user: 'a', resource: '*', namespace: '*', apiGroup: '*' }),
      '# fine',
      '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": 7}}',
    ].join('\n');
    expect(() => parsePolicyFile(bad, 'p.jsonl')).to.throw(
      PolicyFileError,
      'error reading policy file p.jsonl, line 3: spec.user must be a string',
    );
    expect(() => parsePolicyFile('\n{not json', 'p.jsonl')).to.throw(PolicyFileError, /line 2: not JSON/);
    expect(() =>
      parsePolicyFile('{"apiVersion":"abac.authorization.kubernetes.io/v2","kind":"Policy","spec":{}}', 'p.jsonl'),
    ).to.throw(PolicyFileError, /line 1: unsupported apiVersion "abac.authorization.kubernetes.io\/v2"/);
  });

  it('reads unversioned (v0) lines as upstream converts them', async () => {
    const v0 = createAbacAuthorizer(
      parsePolicyFile(
        ['{"user":"dave","namespace":"ns","resource":"pods","readonly":true}', '{"group":"*"}'].join('\n'),
        'v0.jsonl',
      ),
    );
    expect((await v0.authorize(attrs('dave', [], { namespace: 'ns', apiGroup: 'any' }))).decision).to.equal('Allow');
    expect((await v0.authorize(attrs('dave', [], { namespace: 'ns', verb: 'create' }))).decision).to.equal('NoOpinion');
    // `*` means every authenticated user, everywhere, including non-resource paths.
    expect((await v0.authorize(nonResource('erin', ['system:authenticated'], '/healthz', 'post'))).decision).to.equal(
      'Allow',
    );
    expect(
      (await v0.authorize(nonResource('system:anonymous', ['system:unauthenticated'], '/healthz'))).decision,
    ).to.equal('NoOpinion');
  });

  it('is built for --authorization-mode=ABAC from the policy file, and a bad file stops the build', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-abac-'));
    try {
      const file = path.join(dir, 'policy.jsonl');
      await writeFile(file, FILE);
      const chain = buildAuthorizer(['ABAC'], { policyFile: file });
      expect((await chain.authorize(attrs('alice', [], {}))).decision).to.equal('Allow');
      await writeFile(file, `${FILE}\n[]\n`);
      expect(() => buildAuthorizer(['ABAC'], { policyFile: file })).to.throw(
        PolicyFileError,
        /line 9: not a JSON object/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('authorization flags', () => {
  const cwd = '/srv/gh';
  const refused = (argv: string[]): string => optionsError(argv, cwd).message;

  it('defaults the webhook flags as kube-apiserver does', () => {
    const o = parseOptions(
      ['--authorization-mode=Webhook,AlwaysDeny', '--authorization-webhook-config-file=hook.yaml'],
      cwd,
    );
    expect(o.authorization).to.deep.equal({
      modes: ['Webhook', 'AlwaysDeny'],
      policyFile: undefined,
      webhook: {
        configFile: '/srv/gh/hook.yaml',
        version: 'v1beta1',
        authorizedTtlMs: 300_000,
        unauthorizedTtlMs: 30_000,
      },
    });
    const v1 = parseOptions(
      [
        '--authorization-mode=Webhook',
        '--authorization-webhook-config-file=/h',
        '--authorization-webhook-version=v1',
        '--authorization-webhook-cache-authorized-ttl=1m',
        '--authorization-webhook-cache-unauthorized-ttl=0s',
      ],
      cwd,
    );
    expect(v1.authorization.webhook).to.include({ version: 'v1', authorizedTtlMs: 60_000, unauthorizedTtlMs: 0 });
  });

  it('refuses --authorization-config together with the mode or any webhook flag', () => {
    const message =
      '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined';
    expect(refused(['--authorization-config=/a.yaml', '--authorization-mode=AlwaysAllow'])).to.equal(message);
    expect(refused(['--authorization-config=/a.yaml', '--authorization-webhook-version=v1'])).to.equal(message);
    expect(refused(['--authorization-config=/a.yaml', '--authorization-webhook-cache-authorized-ttl=1m'])).to.equal(
      message,
    );
    const o = parseOptions(['--authorization-config=a.yaml'], cwd);
    expect(o.authorization).to.deep.equal({ configFile: '/srv/gh/a.yaml', modes: [], policyFile: undefined });
    expect(o.authorizationModes).to.deep.equal([]);
  });

  it('needs the file of mode Webhook and of mode ABAC, and each file its mode', () => {
    expect(refused(['--authorization-mode=Webhook'])).to.equal(
      "authorization-mode Webhook's authorization config file not passed",
    );
    expect(refused(['--authorization-mode=ABAC'])).to.equal(
      "authorization-mode ABAC's authorization policy file not passed",
    );
    expect(refused(['--authorization-webhook-config-file=/h'])).to.equal(
      'cannot specify --authorization-webhook-config-file without mode Webhook',
    );
    expect(refused(['--authorization-policy-file=/p'])).to.equal(
      'cannot specify --authorization-policy-file without mode ABAC',
    );
  });

  it('refuses a bad webhook version or TTL, naming the flag', () => {
    expect(refused(['--authorization-webhook-version=v2'])).to.equal(
      'invalid argument "v2" for "--authorization-webhook-version" flag: must be v1 or v1beta1',
    );
    expect(refused(['--authorization-webhook-cache-unauthorized-ttl=soon'])).to.include(
      '"--authorization-webhook-cache-unauthorized-ttl" flag',
    );
  });
});
