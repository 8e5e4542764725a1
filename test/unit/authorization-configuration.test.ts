// AuthorizationConfiguration parsing and validation: defaults, every field error named by its path in upstream's
// words, all errors at once, strict decoding, accepted versions, match condition compilation; Go duration text.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  AuthorizationConfigError,
  parseAuthorizationConfig,
  validateAuthorizationConfig,
} from '../../policies/config/authorization-configuration.js';
import { formatGoDuration, parseGoDuration } from '../../api/meta/go-duration.js';
import { createDecisionCache } from '../../policies/webhook/decision-cache.js';

let dir: string;
let kubeconfig: string;

function doc(authorizers: unknown[], apiVersion = 'apiserver.config.platform.io/v1'): Record<string, unknown> {
  return { apiVersion, kind: 'AuthorizationConfiguration', authorizers };
}

function webhook(overrides: Record<string, unknown> = {}, name = 'hook'): Record<string, unknown> {
  return {
    type: 'Webhook',
    name,
    webhook: {
      timeout: '3s',
      subjectAccessReviewVersion: 'v1',
      matchConditionSubjectAccessReviewVersion: 'v1',
      failurePolicy: 'Deny',
      connectionInfo: { type: 'PlatformConfigFile', platformConfigFile: kubeconfig },
      ...overrides,
    },
  };
}

function refusal(value: unknown): AuthorizationConfigError {
  try {
    validateAuthorizationConfig(value);
  } catch (e) {
    expect(e).to.be.instanceOf(AuthorizationConfigError);
    return e as AuthorizationConfigError;
  }
  throw new Error('expected the configuration to be refused');
}

describe('AuthorizationConfiguration', () => {
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-authz-config-'));
    kubeconfig = path.join(dir, 'hook.kubeconfig');
    await writeFile(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads YAML and JSON, with the TTL defaults, and keeps the order', () => {
    const yaml = [
      'apiVersion: apiserver.config.platform.io/v1',
      'kind: AuthorizationConfiguration',
      'authorizers:',
      '- type: Webhook',
      '  name: first',
      '  webhook:',
      '    timeout: 3s',
      '    subjectAccessReviewVersion: v1beta1',
      '    matchConditionSubjectAccessReviewVersion: v1',
      '    failurePolicy: NoOpinion',
      '    connectionInfo:',
      '      type: PlatformConfigFile',
      `      platformConfigFile: ${kubeconfig}`,
      '    matchConditions:',
      "    - expression: request.user != 'bob'",
      '- type: AlwaysAllow',
      '  name: rest',
      '',
    ].join('\n');
    const config = parseAuthorizationConfig(yaml);
    expect(config.authorizers.map((a) => [a.type, a.name])).to.deep.equal([
      ['Webhook', 'first'],
      ['AlwaysAllow', 'rest'],
    ]);
    const w = config.authorizers[0].webhook!;
    expect(w).to.include({
      authorizedTtlMs: 300_000,
      unauthorizedTtlMs: 30_000,
      timeoutMs: 3000,
      subjectAccessReviewVersion: 'v1beta1',
      failurePolicy: 'NoOpinion',
    });
    expect(w.matchConditions).to.have.length(1);
    expect(w.matchConditions[0].evaluate({ request: { user: 'bob' } })).to.equal(false);
    expect(
      parseAuthorizationConfig(JSON.stringify(doc([webhook({ authorizedTTL: '1m', unauthorizedTTL: '10s' })])))
        .authorizers[0].webhook,
    ).to.include({ authorizedTtlMs: 60_000, unauthorizedTtlMs: 10_000 });
  });

  it('accepts v1beta1 and v1alpha1 as well, and refuses other versions and kinds', () => {
    for (const v of ['v1beta1', 'v1alpha1'])
      expect(() => validateAuthorizationConfig(doc([webhook()], `apiserver.config.platform.io/${v}`))).not.to.throw();
    expect(refusal(doc([webhook()], 'apiserver.config.platform.io/v2')).message).to.include(
      'no kind "AuthorizationConfiguration" is registered for version "apiserver.config.platform.io/v2"',
    );
    expect(refusal({ ...doc([webhook()]), kind: 'Other' }).message).to.include('no kind "Other"');
  });

  it('refuses unknown fields, naming them', () => {
    const bad = webhook({ timeot: '3s' });
    expect(refusal(doc([bad])).message).to.equal(
      'strict decoding error: unknown field "authorizers[0].webhook.timeot"',
    );
  });

  it('names the timeout field with the Go duration text', () => {
    expect(refusal(doc([webhook({ timeout: '45s' })])).message).to.equal(
      'authorizers[0].webhook.timeout: Invalid value: "45s": must be > 0s and <= 30s',
    );
    expect(refusal(doc([webhook({ timeout: '1m' })])).message).to.include('Invalid value: "1m0s"');
    expect(refusal(doc([webhook({ timeout: undefined })])).message).to.equal(
      'authorizers[0].webhook.timeout: Required value',
    );
    expect(refusal(doc([webhook({ timeout: 'soon' })])).message).to.include(
      'authorizers[0].webhook.timeout: Invalid value: "soon": time: invalid duration "soon"',
    );
  });

  it('reports every required and unsupported value at once', () => {
    const e = refusal(
      doc([
        webhook({
          subjectAccessReviewVersion: 'v2',
          failurePolicy: undefined,
          matchConditionSubjectAccessReviewVersion: 'v1beta1',
          authorizedTTL: '-1s',
          connectionInfo: { type: 'Carrier' },
        }),
      ]),
    );
    expect(e.fieldErrors.map((f) => f.field)).to.have.members([
      'authorizers[0].webhook.authorizedTTL',
      'authorizers[0].webhook.subjectAccessReviewVersion',
      'authorizers[0].webhook.matchConditionSubjectAccessReviewVersion',
      'authorizers[0].webhook.failurePolicy',
      'authorizers[0].webhook.connectionInfo.type',
    ]);
    expect(e.message).to.include(
      'authorizers[0].webhook.subjectAccessReviewVersion: Unsupported value: "v2": supported values: "v1", "v1beta1"',
    );
    expect(e.message).to.include('authorizers[0].webhook.failurePolicy: Required value');
    expect(e.message).to.include('authorizers[0].webhook.authorizedTTL: Invalid value: "-1s": must be > 0s');
    expect(e.message).to.include('authorizers[0].webhook.connectionInfo.type: Unsupported value: "Carrier"');
  });

  it('needs matchConditionSubjectAccessReviewVersion only with match conditions', () => {
    expect(() =>
      validateAuthorizationConfig(doc([webhook({ matchConditionSubjectAccessReviewVersion: undefined })])),
    ).not.to.throw();
    expect(
      refusal(
        doc([
          webhook({ matchConditionSubjectAccessReviewVersion: undefined, matchConditions: [{ expression: 'true' }] }),
        ]),
      ).message,
    ).to.equal(
      'authorizers[0].webhook.matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified',
    );
  });

  it('checks the connection info: the client file must exist as an absolute path; InClusterConfig is refused', () => {
    expect(refusal(doc([webhook({ connectionInfo: { type: 'PlatformConfigFile' } })])).message).to.equal(
      'authorizers[0].webhook.connectionInfo.platformConfigFile: Required value',
    );
    expect(
      refusal(
        doc([webhook({ connectionInfo: { type: 'PlatformConfigFile', platformConfigFile: 'rel/hook.kubeconfig' } })]),
      ).message,
    ).to.include('must be an absolute path');
    expect(
      refusal(
        doc([webhook({ connectionInfo: { type: 'PlatformConfigFile', platformConfigFile: '/nonexistent/hook' } })]),
      ).message,
    ).to.include('error loading file: stat /nonexistent/hook: no such file or directory');
    expect(refusal(doc([webhook({ connectionInfo: { type: 'InClusterConfig' } })])).message).to.include(
      'authorizers[0].webhook.connectionInfo.type: Invalid value: "InClusterConfig"',
    );
  });

  it('compiles match conditions: at most 64, no duplicates, boolean only, valid syntax', () => {
    const many = Array.from({ length: 65 }, (_, i) => ({ expression: `request.user != 'u${i}'` }));
    expect(refusal(doc([webhook({ matchConditions: many })])).message).to.equal(
      'authorizers[0].webhook.matchConditions: Too many: 65: must have at most 64 items',
    );
    expect(
      refusal(doc([webhook({ matchConditions: [{ expression: 'true' }, { expression: 'true' }] })])).message,
    ).to.equal('authorizers[0].webhook.matchConditions[1].expression: Duplicate value: "true"');
    expect(refusal(doc([webhook({ matchConditions: [{ expression: ' ' }] })])).message).to.equal(
      'authorizers[0].webhook.matchConditions[0].expression: Required value',
    );
    expect(refusal(doc([webhook({ matchConditions: [{ expression: "'a string'" }] })])).message).to.match(
      /^authorizers\[0\]\.webhook\.matchConditions\[0\]\.expression: Invalid value: "'a string'": .*bool/,
    );
    expect(refusal(doc([webhook({ matchConditions: [{ expression: 'request.user ==' }] })])).message).to.include(
      'authorizers[0].webhook.matchConditions[0].expression: Invalid value: "request.user ==": compilation failed',
    );
    expect(refusal(doc([webhook({ matchConditions: [{ expression: 'other.user == "x"' }] })])).message).to.include(
      'matchConditions[0].expression: Invalid value',
    );
  });

  it('refuses a match condition whose estimated cost is excessive and keeps ordinary ones', () => {
    const nested = "request.groups.exists(g, request.groups.exists(h, g.matches('^(a|b)+x$')))";
    const second = refusal(
      doc([
        webhook(),
        webhook({ matchConditions: [{ expression: "request.user != 'bob'" }, { expression: nested }] }, 'hook2'),
      ]),
    );
    expect(second.message).to.match(
      /^authorizers\[1\]\.webhook\.matchConditions\[1\]\.expression: Invalid value: ".*": compilation failed: estimated cost \d+ exceeds the limit of 1000000/,
    );
    expect(second.fieldErrors).to.have.length(1);
    // A quadratic pass without any regular expression is refused too.
    expect(
      refusal(
        doc([
          webhook({ matchConditions: [{ expression: 'request.groups.exists(g, request.groups.exists(h, g == h))' }] }),
        ]),
      ).message,
    ).to.include('authorizers[0].webhook.matchConditions[0].expression: Invalid value');

    const ordinary = [
      "request.groups.exists(g, g.matches('^team-[a-z0-9-]+-admins$'))",
      "request.groups.all(g, !g.startsWith('system:'))",
      "request.user.matches('^system:serviceaccount:kube-system:.*$')",
      "'system:masters' in request.groups",
      "has(request.resourceAttributes) && request.resourceAttributes.namespace in ['a', 'b']",
    ];
    const config = validateAuthorizationConfig(
      doc([webhook({ matchConditions: ordinary.map((expression) => ({ expression })) })]),
    );
    const programs = config.authorizers[0].webhook!.matchConditions;
    expect(programs).to.have.length(ordinary.length);
    expect(programs[0].evaluate({ request: { groups: ['x', 'team-blue-admins'] } })).to.equal(true);
    expect(programs[1].evaluate({ request: { groups: ['system:authenticated'] } })).to.equal(false);
  });

  it('halts a match condition over its runtime budget with an evaluation error', () => {
    const config = validateAuthorizationConfig(
      doc([
        webhook({
          matchConditions: [{ expression: "request.groups.exists(g, g.matches('^team-[a-z0-9-]+-admins$'))" }],
        }),
      ]),
    );
    const program = config.authorizers[0].webhook!.matchConditions[0];
    // Far more groups, far longer, than the estimate assumed: the budget (not the estimate) stops it.
    const groups = Array.from({ length: 3000 }, (_, i) => `g${i}-${'x'.repeat(2000)}`);
    expect(() => program.evaluate({ request: { groups } })).to.throw(/cost/i);
  });

  it('checks types and names: required, unique, DNS-1123, one of each type except Webhook', () => {
    expect(refusal(doc([])).message).to.equal(
      'authorizers: Required value: at least one authorization mode must be defined',
    );
    expect(refusal(doc([{ type: 'Magic', name: 'm' }])).message).to.equal(
      'authorizers[0].type: Unsupported value: "Magic": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"',
    );
    expect(
      refusal(
        doc([
          { type: 'RBAC', name: 'a' },
          { type: 'RBAC', name: 'b' },
        ]),
      ).message,
    ).to.equal('authorizers[1].type: Duplicate value: "RBAC"');
    expect(refusal(doc([webhook({}, 'same'), webhook({}, 'same')])).message).to.equal(
      'authorizers[1].name: Duplicate value: "same"',
    );
    expect(refusal(doc([{ type: 'RBAC' }])).message).to.equal('authorizers[0].name: Required value');
    expect(refusal(doc([{ type: 'RBAC', name: 'Not_Valid' }])).message).to.match(
      /^authorizers\[0\]\.name: Invalid value: "Not_Valid": authorizer name is invalid: /,
    );
    expect(refusal(doc([{ type: 'Webhook', name: 'w' }])).message).to.equal(
      'authorizers[0].webhook: Required value: required when type=Webhook',
    );
    expect(refusal(doc([{ type: 'RBAC', name: 'r', webhook: {} }])).message).to.equal(
      'authorizers[0].webhook: Invalid value: "non-null": may only be specified when type=Webhook',
    );
  });

  it('refuses text that is neither YAML nor JSON', () => {
    expect(() => parseAuthorizationConfig('authorizers: [', 'authz.yaml')).to.throw(
      AuthorizationConfigError,
      /error decoding authz.yaml/,
    );
  });
});

describe('Go durations', () => {
  it('parses and prints as time.Duration does', () => {
    expect(parseGoDuration('1m30s')).to.equal(90_000);
    expect(parseGoDuration('-5s')).to.equal(-5000);
    expect(parseGoDuration('250ms')).to.equal(250);
    expect(() => parseGoDuration('5')).to.throw('time: invalid duration "5"');
    expect([0, 250, 45_000, 60_000, 90_500, 5_400_000, -5000].map(formatGoDuration)).to.deep.equal([
      '0s',
      '250ms',
      '45s',
      '1m0s',
      '1m30.5s',
      '1h30m0s',
      '-5s',
    ]);
  });
});

describe('webhook decision cache', () => {
  const allowed = { allowed: true, denied: false, reason: '', evaluationError: '' };
  const denied = { allowed: false, denied: true, reason: '', evaluationError: '' };

  it('keeps allow answers for the authorized TTL and the others for the unauthorized TTL', () => {
    let now = 0;
    const cache = createDecisionCache(300_000, 30_000, 100, () => now);
    cache.set('a', allowed);
    cache.set('d', denied);
    now = 29_999;
    expect(cache.get('d')).to.equal(denied);
    now = 30_000;
    expect(cache.get('d')).to.equal(undefined);
    expect(cache.get('a')).to.equal(allowed);
    now = 300_000;
    expect(cache.get('a')).to.equal(undefined);
  });

  it('stores nothing with a zero TTL and drops the oldest entry when full', () => {
    const cache = createDecisionCache(1000, 0, 2, () => 0);
    cache.set('d', denied);
    expect(cache.get('d')).to.equal(undefined);
    cache.set('1', allowed);
    cache.set('2', allowed);
    cache.set('3', allowed);
    expect([cache.get('1'), cache.get('2'), cache.get('3')]).to.deep.equal([undefined, allowed, allowed]);
  });
});
