// FlowSchema and PriorityLevelConfiguration rules one by one, with upstream's wording and paths; v1's defaults (an
// explicit 0 of shares stays 0); the bootstrap objects valid as written; and their protobuf form with upstream's
// field numbers, an explicit 0 surviving the trip.
import { expect } from 'chai';
import { flowSchema } from '../../api/flowcontrol/v1/flow-schema.js';
import { nonResourceURLProblem } from '../../api/flowcontrol/v1/policy-rules.js';
import {
  priorityLevelConfiguration,
  requiredEntropyBits,
} from '../../api/flowcontrol/v1/priority-level-configuration.js';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../../api/flowcontrol/v1/bootstrap-configuration.js';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';
import type { KObject } from '../../api/meta/types.js';
import { defaulted, messages, mk } from '../helpers/kind-rules.js';

const everything = {
  subjects: [{ kind: 'Group', group: { name: 'system:authenticated' } }],
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
};
const fs = (spec: Record<string, unknown>, name = 'x') =>
  defaulted(
    flowSchema,
    mk(flowSchema, { spec: { priorityLevelConfiguration: { name: 'global-default' }, ...spec } }, name),
  );
const fsErrors = (spec: Record<string, unknown>, name = 'x') => messages(flowSchema, fs(spec, name));
const withRule = (rule: Record<string, unknown>) => fsErrors({ rules: [{ ...everything, ...rule }] });

const pl = (spec: Record<string, unknown>, name = 'x') =>
  defaulted(priorityLevelConfiguration, mk(priorityLevelConfiguration, { spec }, name));
const plErrors = (spec: Record<string, unknown>, name = 'x') => messages(priorityLevelConfiguration, pl(spec, name));
const queuing = (q: Record<string, unknown>) => ({
  type: 'Limited',
  limited: { limitResponse: { type: 'Queue', queuing: q } },
});

describe('FlowSchema rules', () => {
  it('accepts a schema of rules on users, groups and service accounts', () => {
    expect(
      fsErrors({
        distinguisherMethod: { type: 'ByUser' },
        rules: [
          {
            subjects: [
              { kind: 'User', user: { name: 'alice' } },
              { kind: 'Group', group: { name: '*' } },
              { kind: 'ServiceAccount', serviceAccount: { namespace: 'team-a', name: '*' } },
            ],
            resourceRules: [
              { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], namespaces: ['team-a'] },
            ],
            nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/metrics/*', '/'] }],
          },
        ],
      }),
    ).to.deep.equal([]);
  });

  it('defaults matchingPrecedence to 1000, an explicit 0 included, and bounds it to 1..10000', () => {
    expect(fs({}).spec).to.include({ matchingPrecedence: 1000 });
    expect(fs({ matchingPrecedence: 0 }).spec).to.include({ matchingPrecedence: 1000 });
    expect(fsErrors({ matchingPrecedence: 10001 })).to.deep.equal([
      'spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000',
    ]);
    expect(fsErrors({ matchingPrecedence: -3 })).to.deep.equal([
      'spec.matchingPrecedence: Invalid value: -3: must be a positive value',
    ]);
  });

  it("reserves matchingPrecedence 1 for the schema named 'exempt'", () => {
    expect(fsErrors({ matchingPrecedence: 1 })).to.deep.equal([
      "spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1",
    ]);
  });

  it('requires a priority level reference that is a DNS subdomain', () => {
    expect(messages(flowSchema, mk(flowSchema, { spec: { priorityLevelConfiguration: { name: '' } } }))).to.include(
      'spec.priorityLevelConfiguration.name: Required value: must reference a priority level',
    );
    expect(fsErrors({ priorityLevelConfiguration: { name: 'Bad_Level' } })[0]).to.match(
      /^spec\.priorityLevelConfiguration\.name: Invalid value: "Bad_Level": a lowercase RFC 1123 subdomain/,
    );
  });

  it('supports only ByUser and ByNamespace', () => {
    expect(fsErrors({ distinguisherMethod: { type: 'ByVerb' } })).to.deep.equal([
      'spec.distinguisherMethod.type: Unsupported value: "ByVerb": supported values: "ByNamespace", "ByUser"',
    ]);
  });

  it('wants subjects, and rules of at least one sort', () => {
    expect(fsErrors({ rules: [{ subjects: [] }] })).to.deep.equal([
      'spec.rules[0].subjects: Required value: subjects must contain at least one value',
      'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
    ]);
  });

  it("checks a subject's member against its kind", () => {
    expect(withRule({ subjects: [{ kind: 'User', group: { name: 'g' } }] })).to.deep.equal([
      "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'",
      "spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not 'Group'",
    ]);
    expect(withRule({ subjects: [{ kind: 'Group', group: { name: '' } }] })).to.deep.equal([
      'spec.rules[0].subjects[0].group.name: Required value',
    ]);
    expect(withRule({ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: '', name: 'Bad' } }] }))
      .to.have.length(2)
      .and.to.include(
        'spec.rules[0].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account',
      );
    expect(withRule({ subjects: [{ kind: 'Robot' }] })[0]).to.equal(
      'spec.rules[0].subjects[0].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"',
    );
  });

  it("allows '*' only alone, and only upstream's verbs", () => {
    const rule = (r: Record<string, unknown>) =>
      withRule({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], clusterScope: true, ...r }] });
    expect(rule({ verbs: ['*', 'get'] })).to.deep.equal([
      `spec.rules[0].resourceRules[0].verbs: Invalid value: ["*","get"]: if '*' is present, must not specify other verbs`,
    ]);
    expect(rule({ verbs: ['get', 'escalate'] })[0]).to.match(
      /^spec\.rules\[0\]\.resourceRules\[0\]\.verbs: Unsupported value: \["get","escalate"\]: supported values: "create"/,
    );
    expect(rule({ apiGroups: ['*', 'apps'] })).to.deep.equal([
      `spec.rules[0].resourceRules[0].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other api groups`,
    ]);
    expect(rule({ resources: ['*', 'pods'] })).to.deep.equal([
      `spec.rules[0].resourceRules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources`,
    ]);
    expect(rule({ namespaces: ['*', 'a'] })).to.deep.equal([
      `spec.rules[0].resourceRules[0].namespaces: Invalid value: ["*","a"]: if '*' is present, must not specify other namespaces`,
    ]);
  });

  it('wants namespaces of a rule that is not cluster scoped, each a DNS label', () => {
    const rule = (r: Record<string, unknown>) =>
      withRule({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], ...r }] });
    expect(rule({})).to.deep.equal([
      'spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace',
    ]);
    expect(rule({ namespaces: ['Team'] })[0]).to.match(
      /^spec\.rules\[0\]\.resourceRules\[0\]\.namespaces\[0\]: Invalid value: "Team": each member of this list must be '\*' or a DNS-1123 label; a lowercase RFC 1123 label/,
    );
    expect(withRule({ resourceRules: [{ verbs: ['get'] }] })).to.include.members([
      'spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'spec.rules[0].resourceRules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
  });

  it('reads nonResourceURLs as upstream does', () => {
    expect(nonResourceURLProblem('/')).to.equal(undefined);
    expect(nonResourceURLProblem('/healthz/*')).to.equal(undefined);
    expect(nonResourceURLProblem('healthz')).to.equal('must start with slash');
    expect(nonResourceURLProblem('/a b')).to.equal('must not contain white-space');
    expect(nonResourceURLProblem('/a//b')).to.equal('must not contain double slash');
    expect(nonResourceURLProblem('/hea*')).to.equal('wildcard can only do suffix matching');
    expect(nonResourceURLProblem('/a/*/*')).to.equal('wildcard can only do suffix matching');
    expect(withRule({ nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['*', '/healthz'] }] })).to.deep.equal([
      `spec.rules[0].nonResourceRules[0].nonResourceURLs: Invalid value: ["*","/healthz"]: if '*' is present, must not specify other non-resource URLs`,
    ]);
  });

  it('keeps the mandatory schemas as defined', () => {
    const exempt = structuredClone(MANDATORY_FLOW_SCHEMAS[0]);
    expect(messages(flowSchema, defaulted(flowSchema, exempt))).to.deep.equal([]);
    (exempt.spec as any).rules[0].subjects.push({ kind: 'User', user: { name: 'mallory' } });
    expect(messages(flowSchema, exempt)[0]).to.match(
      /^spec: Invalid value: .*: spec of 'exempt' must equal the fixed value$/,
    );
  });

  it('refuses a condition without a type, or a type twice', () => {
    const o = fs({});
    o.status = { conditions: [{ type: 'Dangling', status: 'True' }, { type: 'Dangling' }, { status: 'False' }] };
    expect(flowSchema.validateStatusUpdate!(o, o).map((e) => `${e.field}: ${e.type}`)).to.deep.equal([
      'status.conditions[1].type: FieldValueDuplicate',
      'status.conditions[2].type: FieldValueRequired',
    ]);
  });
});

describe('PriorityLevelConfiguration rules', () => {
  it('defaults v1 as upstream: absent shares 30, an explicit 0 stays 0, queuing 64/8/50', () => {
    expect(pl(queuing({})).spec).to.deep.equal({
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 30,
        lendablePercent: 0,
        limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
      },
    });
    const jail = pl({ type: 'Limited', limited: { nominalConcurrencyShares: 0, limitResponse: { type: 'Reject' } } });
    expect((jail.spec as any).limited.nominalConcurrencyShares).to.equal(0);
    expect(messages(priorityLevelConfiguration, jail)).to.deep.equal([]);
    expect(pl({ type: 'Exempt', exempt: {} }, 'exempt').spec).to.deep.equal({
      type: 'Exempt',
      exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 },
    });
  });

  it("ties type Exempt to the name 'exempt'", () => {
    expect(plErrors({ type: 'Exempt' })).to.deep.equal([
      `spec.type: Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'`,
    ]);
  });

  it('wants the section of its type, and not the other', () => {
    expect(plErrors({ type: 'Limited' })).to.deep.equal([
      'spec.limited: Required value: must not be empty when type is Limited',
    ]);
    expect(
      plErrors({ type: 'Limited', limited: { limitResponse: { type: 'Reject' } }, exempt: { lendablePercent: 1 } }),
    ).to.deep.equal(['spec.exempt: Forbidden: must be nil if the type is Limited']);
  });

  it('bounds shares and percents', () => {
    expect(
      plErrors({
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: -1,
          lendablePercent: 101,
          borrowingLimitPercent: -5,
          limitResponse: { type: 'Reject' },
        },
      }),
    ).to.deep.equal([
      'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
      'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
      'spec.limited.borrowingLimitPercent: Invalid value: -5: if specified, must be a non-negative integer',
    ]);
    expect(
      plErrors({ type: 'Limited', limited: { borrowingLimitPercent: 300, limitResponse: { type: 'Reject' } } }),
    ).to.deep.equal([]);
  });

  it('matches queuing to the limit response type', () => {
    expect(
      plErrors({ type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: { queues: 1 } } } }),
    ).to.deep.equal([
      'spec.limited.limitResponse.queuing: Forbidden: must be nil if limited.limitResponse.type is not Limited',
    ]);
    expect(plErrors({ type: 'Limited', limited: { limitResponse: { type: 'Queue' } } })).to.deep.equal([
      'spec.limited.limitResponse.queuing: Required value: must not be empty if limited.limitResponse.type is Limited',
    ]);
  });

  it('keeps handSize within queues and the hash within 60 bits', () => {
    expect(plErrors(queuing({ queues: 4, handSize: 5 }))).to.deep.equal([
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)',
    ]);
    expect(requiredEntropyBits(128, 6)).to.equal(42);
    expect(plErrors(queuing({ queues: 1024, handSize: 6 }))).to.deep.equal([]);
    expect(plErrors(queuing({ queues: 1024, handSize: 7 }))).to.deep.equal([
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 7: required entropy bits of deckSize 1024 and handSize 7 should not be greater than 60',
    ]);
    expect(plErrors(queuing({ queues: 10_000_001, queueLengthLimit: -1 }))).to.deep.equal([
      'spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive',
      'spec.limited.limitResponse.queuing.queues: Invalid value: 10000001: must not be greater than 10000000',
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 10000001 and handSize 8 should not be greater than 60',
    ]);
  });

  it("keeps the mandatory levels as defined, but lets the 'exempt' section of exempt change", () => {
    const exempt = structuredClone(MANDATORY_PRIORITY_LEVELS[0]);
    (exempt.spec as any).exempt = { nominalConcurrencyShares: 10, lendablePercent: 50 };
    expect(messages(priorityLevelConfiguration, exempt)).to.deep.equal([]);
    const catchAll = structuredClone(MANDATORY_PRIORITY_LEVELS[1]);
    (catchAll.spec as any).limited.nominalConcurrencyShares = 50;
    expect(messages(priorityLevelConfiguration, catchAll)[0]).to.match(
      /^spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value$/,
    );
  });
});

describe('the bootstrap configuration', () => {
  it('is valid and already defaulted, and every schema names a level of it', () => {
    const levels = [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS];
    const schemas = [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS];
    for (const [def, objects] of [
      [priorityLevelConfiguration, levels],
      [flowSchema, schemas],
    ] as const) {
      for (const o of objects) {
        expect(messages(def, o), o.metadata.name).to.deep.equal([]);
        expect(defaulted(def, structuredClone<KObject>(o)), o.metadata.name).to.deep.equal(o);
      }
    }
    const levelNames = new Set(levels.map((l) => l.metadata.name));
    for (const s of schemas) expect(levelNames.has((s.spec as any).priorityLevelConfiguration.name)).to.equal(true);
  });
});

describe('flowcontrol protobuf', () => {
  it("uses upstream's field numbers and keeps an explicit 0 of the v1 pointers", () => {
    const level = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'jail' },
      spec: {
        type: 'Limited',
        limited: { nominalConcurrencyShares: 0, lendablePercent: 0, limitResponse: { type: 'Reject' } },
      },
    };
    const bytes = encodeProtobufObject(level);
    // LimitedPriorityLevelConfiguration: field 1 (shares) varint 0, then field 2 (limitResponse), then field 3 (0).
    const limited = Buffer.from([0x08, 0x00, 0x12, 0x08, 0x0a, 0x06, ...Buffer.from('Reject'), 0x18, 0x00]);
    expect(bytes.includes(limited), bytes.toString('hex')).to.equal(true);
    expect(decodeProtobufObject(bytes)).to.deep.equal(level);

    const schema = { ...SUGGESTED_FLOW_SCHEMAS[2], apiVersion: 'flowcontrol.apiserver.platform.io/v1' };
    const schemaBytes = encodeProtobufObject(schema);
    // NonResourcePolicyRule's URLs are field 6: tag 0x32.
    expect(schemaBytes.includes(Buffer.from([0x32, 0x08, ...Buffer.from('/healthz')]))).to.equal(true);
    expect(decodeProtobufObject(schemaBytes)).to.deep.equal(schema);
  });
});
