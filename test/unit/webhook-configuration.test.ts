// ValidatingWebhookConfiguration and MutatingWebhookConfiguration without a server: upstream's v1 defaults, every
// validation rule with its message (the matchConditions' CEL compile included), the columns, and which kinds
// admission never applies to.
import { expect } from 'chai';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import { validatingWebhookConfiguration as vwc } from '../../api/admissionregistration/v1/validating-webhook-configuration.js';
import { mutatingWebhookConfiguration as mwc } from '../../api/admissionregistration/v1/mutating-webhook-configuration.js';
import { isExemptAdmissionConfigurationKind } from '../../api/admissionregistration/v1/admission-common.js';
import { builtinKinds } from '../../api/register.js';
import { serverKindValidator } from '../../gateway/admission/policy/expression-check.js';

type Hook = Record<string, unknown>;
/** A valid webhook with `over` applied; a field `over` sets to undefined is left out. */
const hook = (over: Hook = {}): Hook =>
  Object.fromEntries(
    Object.entries({
      name: 'check.example.com',
      clientConfig: { url: 'https://hooks.example.com/check' },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      ...over,
    }).filter(([, v]) => v !== undefined),
  );
const configOf = (def: KindDefinition, webhooks: Hook[], name = 'c'): KObject => {
  const o: KObject = {
    apiVersion: 'admissionregistration.platform.io/v1',
    kind: def.kind,
    metadata: { name },
    webhooks: structuredClone(webhooks),
  };
  def.defaults?.(o);
  return o;
};
const errorsOf = (def: KindDefinition, ...webhooks: Hook[]) =>
  serverKindValidator(def).validate(configOf(def, webhooks)).map(fieldErrorMessage);
const service = (over: Hook = {}) => ({ clientConfig: { service: { namespace: 'ns', name: 'svc', ...over } } });
const rule = (over: Hook) => ({
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'], ...over }],
});
const FORM = '; desired format: https://host[/path]';
const DNS_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

// [what, the webhook's fields over the valid one, every message expected]
const RULES: [string, Hook, string[]][] = [
  ['a valid webhook', {}, []],
  ['a service reference', service({ path: '/validate/v1/' }), []],
  ['an empty name', { name: '' }, ['webhooks[0].name: Required value']],
  [
    'a name of two segments',
    { name: 'example.com' },
    [
      'webhooks[0].name: Invalid value: "example.com": should be a domain with at least three segments separated by dots',
    ],
  ],
  [
    'a name that is no subdomain',
    { name: 'Check.example.com' },
    [`webhooks[0].name: Invalid value: "Check.example.com": ${DNS_SUBDOMAIN}`],
  ],
  [
    'both url and service',
    { clientConfig: { url: 'https://a.example.com', service: { namespace: 'ns', name: 'svc' } } },
    ['webhooks[0].clientConfig: Required value: exactly one of url or service is required'],
  ],
  [
    'neither url nor service',
    { clientConfig: {} },
    ['webhooks[0].clientConfig: Required value: exactly one of url or service is required'],
  ],
  [
    'an http url',
    { clientConfig: { url: 'http://hooks.example.com/check' } },
    [`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`],
  ],
  [
    'a url without a host',
    { clientConfig: { url: 'https:///check' } },
    [`webhooks[0].clientConfig.url: Invalid value: "": host must be specified${FORM}`],
  ],
  [
    'a url with user information, a query and a fragment',
    { clientConfig: { url: 'https://u:p@hooks.example.com/check?a=b#frag' } },
    [
      'webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "frag": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "a=b": query parameters are not permitted in the URL',
    ],
  ],
  [
    'a url Go cannot parse',
    { clientConfig: { url: 'https://hooks.example.com:https/check' } },
    [
      `webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://hooks.example.com:https/check": invalid port ":https" after host${FORM}`,
    ],
  ],
  [
    'a url with a bad escape',
    { clientConfig: { url: 'https://hooks.example.com/%zz' } },
    [
      `webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://hooks.example.com/%zz": invalid URL escape "%zz"${FORM}`,
    ],
  ],
  [
    'a url without a scheme',
    { clientConfig: { url: 'hooks.example.com/check' } },
    [
      `webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme${FORM}`,
      `webhooks[0].clientConfig.url: Invalid value: "": host must be specified${FORM}`,
    ],
  ],
  [
    'a host and port without a scheme',
    { clientConfig: { url: 'localhost:8443/check' } },
    [
      `webhooks[0].clientConfig.url: Invalid value: "localhost": 'https' is the only allowed URL scheme${FORM}`,
      `webhooks[0].clientConfig.url: Invalid value: "": host must be specified${FORM}`,
    ],
  ],
  ['an IPv6 host with a port', { clientConfig: { url: 'https://[::1]:8443/check' } }, []],
  [
    'a service without name and namespace',
    { clientConfig: { service: {} } },
    [
      'webhooks[0].clientConfig.service.name: Required value',
      'webhooks[0].clientConfig.service.namespace: Required value',
    ],
  ],
  [
    'a service port out of range',
    service({ port: 65536 }),
    [
      'webhooks[0].clientConfig.service.port: Invalid value: 65536: port is not valid: must be between 1 and 65535, inclusive',
    ],
  ],
  [
    'a relative service path',
    service({ path: 'validate' }),
    ['webhooks[0].clientConfig.service.path: Invalid value: "validate": must start with a \'/\''],
  ],
  [
    'a service path with an empty or invalid segment',
    service({ path: '/a//B' }),
    [
      'webhooks[0].clientConfig.service.path: Invalid value: "/a//B": segment[1] may not be empty',
      `webhooks[0].clientConfig.service.path: Invalid value: "/a//B": segment[2]: ${DNS_SUBDOMAIN}`,
    ],
  ],
  [
    'no sideEffects',
    { sideEffects: undefined },
    ['webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun'],
  ],
  [
    'sideEffects only v1beta1 allowed',
    { sideEffects: 'Some' },
    ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
  ],
  [
    'unknown sideEffects',
    { sideEffects: 'Maybe' },
    [
      'webhooks[0].sideEffects: Unsupported value: "Maybe": supported values: "None", "NoneOnDryRun", "Some", "Unknown"',
      'webhooks[0].sideEffects: Unsupported value: "Maybe": supported values: "None", "NoneOnDryRun"',
    ],
  ],
  [
    'a timeout of 0',
    { timeoutSeconds: 0 },
    ['webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds'],
  ],
  [
    'a timeout of 31',
    { timeoutSeconds: 31 },
    ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds'],
  ],
  [
    'no admissionReviewVersions',
    { admissionReviewVersions: [] },
    ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1'],
  ],
  [
    'only unknown admissionReviewVersions, one repeated',
    { admissionReviewVersions: ['v2', 'v2'] },
    [
      'webhooks[0].admissionReviewVersions[1]: Duplicate value: "v2"',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
    ],
  ],
  [
    'failurePolicy and matchPolicy out of their sets',
    { failurePolicy: 'Maybe', matchPolicy: 'Loose' },
    [
      'webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
      'webhooks[0].matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"',
    ],
  ],
  [
    'a selector with a bad operator',
    { objectSelector: { matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] } },
    [
      'webhooks[0].objectSelector.matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"',
    ],
  ],
  [
    'a rule without operations, groups or versions',
    rule({ operations: [], apiGroups: [], apiVersions: [] }),
    [
      'webhooks[0].rules[0].operations: Required value',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].apiVersions: Required value',
    ],
  ],
  [
    'a rule with * among operations and an unknown one',
    rule({ operations: ['*', 'PATCH'] }),
    [
      'webhooks[0].rules[0].operations: Invalid value: ["*","PATCH"]: if \'*\' is present, must not specify other operations',
      'webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
    ],
  ],
  [
    'a rule with an unknown scope',
    rule({ scope: 'Global' }),
    ['webhooks[0].rules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"'],
  ],
  [
    'resources */* with others',
    rule({ resources: ['*/*', 'pods'] }),
    [
      'webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: if \'*/*\' is present, must not specify other resources',
    ],
  ],
  [
    'resources * with a plain resource',
    rule({ resources: ['*', 'pods'] }),
    [
      'webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if \'*\' is present, must not specify other resources without subresources',
    ],
  ],
  [
    'resources pods/* and */status covering later entries',
    rule({ resources: ['pods/*', 'pods/log', '*/status', 'nodes/status'] }),
    [
      'webhooks[0].rules[0].resources[1]: Invalid value: "pods/log": if \'pods/*\' is present, must not specify pods/log',
      'webhooks[0].rules[0].resources[3]: Invalid value: "nodes/status": if \'*/status\' is present, must not specify nodes/status',
    ],
  ],
  ['resources * with subresources', rule({ resources: ['*', '*/scale', 'pods/status'] }), []],
  [
    'an empty resource and version',
    rule({ resources: [''], apiVersions: [''] }),
    ['webhooks[0].rules[0].apiVersions[0]: Required value', 'webhooks[0].rules[0].resources[0]: Required value'],
  ],
  [
    'matchConditions without expression, with a bad and a repeated name',
    {
      matchConditions: [
        { name: 'bad name', expression: 'true' },
        { name: 'ok', expression: ' ' },
        { name: 'ok', expression: 'true' },
      ],
    },
    [
      "webhooks[0].matchConditions[0].name: Invalid value: \"bad name\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'webhooks[0].matchConditions[1].expression: Required value',
      'webhooks[0].matchConditions[2].name: Duplicate value: "ok"',
    ],
  ],
  [
    'more than 64 matchConditions',
    { matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) },
    ['webhooks[0].matchConditions: Too many: 65: must have at most 64 items'],
  ],
];

describe('webhook configuration kinds', () => {
  for (const def of [vwc, mwc])
    describe(def.kind, () => {
      for (const [what, over, expected] of RULES)
        it(`${what}: ${expected.length === 0 ? 'accepted' : expected.length + ' error(s)'}`, () => {
          expect(errorsOf(def, hook(over))).to.deep.equal(expected);
        });

      it('refuses a repeated webhook name, and checks the metadata name as a DNS subdomain', () => {
        expect(errorsOf(def, hook(), hook({ name: 'other.example.com' }), hook())).to.deep.equal([
          'webhooks[2].name: Duplicate value: "check.example.com"',
        ]);
        const fields = serverKindValidator(def)
          .validate(configOf(def, [hook()], 'Bad_Name'))
          .map((e) => e.field);
        expect(fields).to.deep.equal(['metadata.name']);
      });

      it('compiles matchConditions in the webhook environment, naming the field and the position', () => {
        const conditions = (...expressions: string[]) => ({
          matchConditions: expressions.map((expression, i) => ({ name: `c${i}`, expression })),
        });
        expect(
          errorsOf(
            def,
            hook(
              conditions(
                "object.metadata.name != 'x' && oldObject == null",
                "request.userInfo.username != 'system:admin'",
                "authorizer.group('').resource('pods').check('get').allowed()",
              ),
            ),
          ),
        ).to.deep.equal([]);
        const errs = errorsOf(def, hook(conditions('object.x ==', 'params != null', '1')));
        expect(errs).to.have.length(3);
        expect(errs[0]).to.match(
          /^webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: "object\.x ==": .*1:12/s,
        );
        expect(errs[1]).to.include("undeclared reference to 'params'");
        expect(errs[2]).to.include('must evaluate to one of [bool]');
      });

      it('defaults as upstream v1: Fail, Equivalent, empty selectors, 10 seconds, scope *, service port 443', () => {
        const [defaulted] = configOf(def, [hook(service())]).webhooks as Hook[];
        expect(defaulted).to.deep.include({
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          namespaceSelector: {},
          objectSelector: {},
          timeoutSeconds: 10,
          sideEffects: 'None',
        });
        expect((defaulted.rules as Hook[])[0].scope).to.equal('*');
        expect((defaulted.clientConfig as any).service.port).to.equal(443);
        expect(defaulted.reinvocationPolicy).to.equal(def === mwc ? 'Never' : undefined);
        // What the client says stays; sideEffects and admissionReviewVersions have no v1 default.
        const given = {
          failurePolicy: 'Ignore',
          matchPolicy: 'Exact',
          timeoutSeconds: 3,
          ...rule({ scope: 'Cluster' }),
        };
        const [kept] = configOf(def, [hook({ ...given, sideEffects: undefined, admissionReviewVersions: undefined })])
          .webhooks as Hook[];
        expect(kept).to.deep.include(given);
        expect(kept).to.not.have.any.keys('sideEffects', 'admissionReviewVersions');
      });

      it('prints NAME, WEBHOOKS and AGE', () => {
        expect(def.tableColumns?.map((c) => [c.name, c.type])).to.deep.equal([
          ['Webhooks', 'integer'],
          ['Age', 'string'],
        ]);
        expect(def.tableColumns?.[0].cell(configOf(def, [hook(), hook({ name: 'b.example.com' })]))).to.equal(2);
        expect(def.tableColumns?.[0].cell({ metadata: { name: 'empty' } })).to.equal(0);
      });

      it('is cluster-scoped in admissionregistration, reached through the k8s.io alias, in api-extensions', () => {
        expect(def).to.deep.include({
          group: 'admissionregistration.platform.io',
          version: 'v1',
          namespaced: false,
          groupAliases: ['admissionregistration.k8s.io'],
          categories: ['api-extensions'],
        });
        expect(def.shortNames).to.equal(undefined);
      });
    });

  it('mutating only: reinvocationPolicy Never or IfNeeded', () => {
    expect(errorsOf(mwc, hook({ reinvocationPolicy: 'IfNeeded' }))).to.deep.equal([]);
    expect(errorsOf(mwc, hook({ reinvocationPolicy: 'Always' }))).to.deep.equal([
      'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"',
    ]);
    expect(vwc.schema.properties?.webhooks.items?.properties).to.not.have.property('reinvocationPolicy');
  });
});

describe('admission configuration kinds are exempt from admission', () => {
  it('names the webhook configurations, the policies and their bindings, and no other kind', () => {
    expect(builtinKinds.filter(isExemptAdmissionConfigurationKind).map((k) => k.kind)).to.have.members([
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionPolicyBinding',
    ]);
    expect(isExemptAdmissionConfigurationKind({ group: 'admissionregistration.k8s.io', kind: 'Other' })).to.equal(
      false,
    );
  });
});
