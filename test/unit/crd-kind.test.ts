// The CustomResourceDefinition kind's own rules, table by table: defaults, names, group and scope, versions,
// conversion, subresources, printer columns, selectable fields, API approval, updates and status writes. Schema
// rules are in crd-structural.test.ts.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { customResourceDefinition as def } from '../../api/apiextensions/v1/custom-resource-definition.js';
import { servedDefinitionOf } from '../../api/apiextensions/v1/crd-types.js';
import { bootstrapClusterRoles } from '../../policies/rbac/bootstrap-policy.js';
import { crd, fooSchema } from '../helpers/crds.js';

const validator = createKindValidator(def);

/** A definition as the registry sees it on create: defaulted, with the status create gives it. */
function created(body: Record<string, unknown>): KObject {
  const o = structuredClone(body) as unknown as KObject;
  def.defaults!(o);
  def.prepareForCreate!(o);
  return o;
}

const messagesOf = (o: KObject, old?: KObject): string[] =>
  (old ? validator.validateUpdate(o, old) : validator.validate(o)).map(fieldErrorMessage);

const withSpec = (spec: Record<string, unknown>, plural = 'foos', group = 'example.com') =>
  created(crd(plural, group, { spec }));

const version = (extra: Record<string, unknown> = {}) => ({
  name: 'v1',
  served: true,
  storage: true,
  schema: { openAPIV3Schema: fooSchema() },
  ...extra,
});

describe('CustomResourceDefinition', () => {
  describe('defaults', () => {
    it('fills singular, listKind, conversion None, the service port, storedVersions and the cleanup finalizer', () => {
      const o = withSpec({
        conversion: {
          strategy: 'Webhook',
          webhook: { clientConfig: { service: { namespace: 'ns', name: 'conv' } }, conversionReviewVersions: ['v1'] },
        },
      });
      const spec = o.spec as any;
      expect(spec.names).to.deep.equal({ plural: 'foos', kind: 'Foo', singular: 'foo', listKind: 'FooList' });
      expect(spec.conversion.webhook.clientConfig.service.port).to.equal(443);
      expect(o.status).to.deep.equal({ acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1alpha1'] });
      expect(o.metadata.finalizers).to.deep.equal(['customresourcecleanup.apiextensions.k8s.io']);
      expect(messagesOf(o)).to.deep.equal([]);
      const plain = withSpec({});
      expect((plain.spec as any).conversion).to.deep.equal({ strategy: 'None' });
    });
    it('drops schema keywords JSONSchemaProps does not have, at every depth', () => {
      const schema = fooSchema() as any;
      schema.bogus = 1;
      schema.properties.spec.properties.replicas.alsoBogus = true;
      const o = withSpec({ versions: [version({ schema: { openAPIV3Schema: schema } })] });
      const kept = (o.spec as any).versions[0].schema.openAPIV3Schema;
      expect(kept).to.not.have.property('bogus');
      expect(kept.properties.spec.properties.replicas).to.deep.equal({
        type: 'integer',
        minimum: 1,
        maximum: 10,
        default: 1,
      });
    });
  });

  describe('name, group, scope and names', () => {
    const cases: [string, KObject, string[]][] = [
      [
        'a name other than <plural>.<group>',
        (() => {
          const o = withSpec({});
          o.metadata.name = 'foo.example.com';
          return o;
        })(),
        ['metadata.name: Invalid value: "foo.example.com": must be spec.names.plural+"."+spec.group'],
      ],
      [
        'a group without a dot',
        withSpec({}, 'foos', 'example'),
        ['spec.group: Invalid value: "example": should be a domain with at least one dot'],
      ],
      [
        'an unsupported scope',
        withSpec({ scope: 'Global' }),
        ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
      ],
      [
        'upper case plural and a bad kind',
        created(crd('Foos', 'example.com', { kind: 'Foo_Bar' })),
        [
          'metadata.name: Invalid value: "Foos.example.com": a lowercase RFC 1123 subdomain',
          "spec.names.plural: Invalid value: \"Foos\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
          'spec.names.singular: Invalid value: "foo_bar": a DNS-1035 label',
          "spec.names.kind: Invalid value: \"Foo_Bar\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
          "spec.names.listKind: Invalid value: \"Foo_BarList\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ],
      ],
      [
        'kind and listKind alike, a bad short name and category',
        withSpec({
          names: { plural: 'foos', kind: 'Foo', listKind: 'Foo', shortNames: ['F'], categories: ['all', '1x'] },
        }),
        [
          'spec.names.shortNames[0]',
          'spec.names.listKind: Invalid value: "Foo": kind and listKind may not be the same',
          'spec.names.categories[1]',
        ],
      ],
      [
        'preserveUnknownFields true',
        withSpec({ preserveUnknownFields: true }),
        [
          'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
        ],
      ],
    ];
    for (const [what, o, expected] of cases)
      it(`refuses ${what}`, () => {
        const got = messagesOf(o);
        expect(got.length, got.join('\n')).to.equal(expected.length);
        expected.forEach((e, i) => expect(got[i].startsWith(e), `${got[i]}\n!~ ${e}`).to.equal(true));
      });
    it('requires plural and kind', () => {
      const o = withSpec({ names: { plural: '', kind: '' } });
      expect(messagesOf(o)).to.include.members([
        'spec.names.plural: Required value',
        'spec.names.kind: Required value',
      ]);
    });
  });

  describe('versions', () => {
    const cases: [string, unknown[], string[]][] = [
      ['no version', [], ['spec.versions: Required value: must have exactly one version marked as storage version']],
      [
        'two storage versions',
        [version(), version({ name: 'v2' })],
        ['spec.versions: Invalid value: ["v1","v2"]: must have exactly one version marked as storage version'],
      ],
      [
        'a repeated name',
        [version(), version({ storage: false })],
        ['spec.versions: Invalid value: ["v1","v1"]: must contain unique version names'],
      ],
      [
        'no served version',
        [version({ served: false })],
        ['spec.versions: Invalid value: ["v1"]: must have at least one served version'],
      ],
      [
        'a name that is no DNS-1035 label',
        [version({ name: '1beta' })],
        ['spec.versions[0].name: Invalid value: "1beta": a DNS-1035 label'],
      ],
      [
        'a version without a schema',
        [version({ schema: undefined })],
        ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
      ],
      [
        'a deprecation warning on a version that is not deprecated',
        [version({ deprecationWarning: 'old' })],
        ['spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'],
      ],
    ];
    for (const [what, versions, expected] of cases)
      it(`refuses ${what}`, () => {
        const o = withSpec({ versions });
        const got = messagesOf(o).filter((m) => !m.startsWith('status.'));
        expect(got.length, got.join('\n')).to.equal(expected.length);
        expected.forEach((e, i) => expect(got[i].startsWith(e), `${got[i]}\n!~ ${e}`).to.equal(true));
      });
  });

  describe('subresources, printer columns and selectable fields', () => {
    const cases: [string, Record<string, unknown>, string[]][] = [
      [
        'scale paths outside spec and status',
        {
          subresources: {
            status: {},
            scale: { specReplicasPath: '.status.r', statusReplicasPath: 'status.r', labelSelectorPath: '.x' },
          },
        },
        [
          'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.r": should be a json path under .spec',
          'spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: "status.r": must be a simple json path starting with .',
          'spec.versions[0].subresources.scale.labelSelectorPath: Invalid value: ".x": should be a json path under either .spec or .status',
        ],
      ],
      [
        'scale without its paths',
        { subresources: { scale: {} } },
        [
          'spec.versions[0].subresources.scale.specReplicasPath: Required value',
          'spec.versions[0].subresources.scale.statusReplicasPath: Required value',
        ],
      ],
      [
        'a printer column of an unknown type and format, without a jsonPath',
        { additionalPrinterColumns: [{ name: 'X', type: 'float', format: 'hex' }] },
        [
          'spec.versions[0].additionalPrinterColumns[0].type: Unsupported value: "float": supported values: "boolean", "date", "integer", "number", "string"',
          'spec.versions[0].additionalPrinterColumns[0].format: Unsupported value: "hex"',
          'spec.versions[0].additionalPrinterColumns[0].jsonPath: Required value',
        ],
      ],
      [
        'a printer column path not starting with a dot',
        { additionalPrinterColumns: [{ name: 'R', type: 'integer', jsonPath: 'spec.replicas' }] },
        [
          'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
        ],
      ],
      [
        'selectable fields that are duplicated, objects, missing or in metadata',
        {
          selectableFields: [
            { jsonPath: '.spec.replicas' },
            { jsonPath: '.spec.replicas' },
            { jsonPath: '.spec' },
            { jsonPath: '.spec.nothing' },
            { jsonPath: '.metadata.name' },
          ],
        },
        [
          'spec.versions[0].selectableFields[1].jsonPath: Duplicate value: ".spec.replicas"',
          'spec.versions[0].selectableFields[2].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer',
          'spec.versions[0].selectableFields[3].jsonPath: Invalid value: ".spec.nothing": is an invalid path',
          'spec.versions[0].selectableFields[4].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata',
        ],
      ],
      [
        'more than 8 selectable fields',
        { selectableFields: Array.from({ length: 9 }, (_, i) => ({ jsonPath: `.spec.f${i}` })) },
        ['spec.versions[0].selectableFields: Too many: 9: must have at most 8 items'],
      ],
    ];
    for (const [what, extra, expected] of cases)
      it(`refuses ${what}`, () => {
        const o = withSpec({ versions: [version({ name: 'v1alpha1', ...extra })] });
        const got = messagesOf(o).filter(
          (m) => !/selectableFields\[\d\]\.jsonPath: Invalid value: "\.spec\.f\d"/.test(m),
        );
        expect(got.length, got.join('\n')).to.equal(expected.length);
        expected.forEach((e, i) => expect(got[i].startsWith(e), `${got[i]}\n!~ ${e}`).to.equal(true));
      });
    it('accepts scale, status, columns and selectable fields that point into the schema', () => {
      const o = withSpec({
        versions: [
          version({
            name: 'v1alpha1',
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.availableReplicas' },
            },
            additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 }],
            selectableFields: [{ jsonPath: '.spec.deploymentName' }, { jsonPath: '.spec.replicas' }],
          }),
        ],
      });
      expect(messagesOf(o)).to.deep.equal([]);
      const served = servedDefinitionOf(o);
      expect(served.versions[0]).to.include({ name: 'v1alpha1', served: true, storage: true, statusSubresource: true });
      expect(served.versions[0].scale).to.deep.equal({
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.availableReplicas',
        labelSelectorPath: undefined,
      });
      expect(served.versions[0].selectableFields).to.deep.equal(['.spec.deploymentName', '.spec.replicas']);
      expect(served).to.include({ namespaced: true, storageVersion: 'v1alpha1', group: 'example.com' });
    });
  });

  describe('conversion', () => {
    const webhook = (clientConfig: Record<string, unknown>, conversionReviewVersions: unknown[] = ['v1']) => ({
      strategy: 'Webhook',
      webhook: { clientConfig, conversionReviewVersions },
    });
    const cases: [string, unknown, string[]][] = [
      ['an unknown strategy', { strategy: 'Magic' }, ['spec.conversion.strategy: Unsupported value: "Magic"']],
      [
        'Webhook without webhook',
        { strategy: 'Webhook' },
        ['spec.conversion.webhook: Required value: required when strategy is set to Webhook'],
      ],
      [
        'a webhook with strategy None',
        { strategy: 'None', webhook: { conversionReviewVersions: ['v1'] } },
        ['spec.conversion.webhook: Forbidden: should not be set when strategy is not set to Webhook'],
      ],
      [
        'both url and service',
        webhook({ url: 'https://a', service: { namespace: 'n', name: 's' } }),
        ['spec.conversion.webhook.clientConfig: Required value: exactly one of url or service is required'],
      ],
      [
        'an http url with a query',
        webhook({ url: 'http://conv.example.com/x?y=1' }),
        [
          'spec.conversion.webhook.clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme',
          'spec.conversion.webhook.clientConfig.url: Invalid value: "y=1": query parameters are not permitted in the URL',
        ],
      ],
      [
        'a service with a bad path and port',
        webhook({ service: { namespace: 'n', name: 's', path: 'convert', port: 0 } }),
        [
          'spec.conversion.webhook.clientConfig.service.port: Invalid value: 0: port is not valid',
          'spec.conversion.webhook.clientConfig.service.path: Invalid value: "convert": must start with a \'/\'',
        ],
      ],
      [
        'review versions without a known one',
        webhook({ url: 'https://conv.example.com' }, ['v2', 'v2']),
        [
          'spec.conversion.webhook.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
          'spec.conversion.webhook.conversionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
        ],
      ],
    ];
    for (const [what, conversion, expected] of cases)
      it(`refuses ${what}`, () => {
        const got = messagesOf(withSpec({ conversion }));
        expect(got.length, got.join('\n')).to.equal(expected.length);
        expected.forEach((e, i) => expect(got[i].startsWith(e), `${got[i]}\n!~ ${e}`).to.equal(true));
      });
    it('accepts a webhook by url or service', () => {
      expect(messagesOf(withSpec({ conversion: webhook({ url: 'https://conv.example.com/convert' }) }))).to.deep.equal(
        [],
      );
      const bySvc = withSpec({ conversion: webhook({ service: { namespace: 'n', name: 's', path: '/convert' } }) });
      expect(messagesOf(bySvc)).to.deep.equal([]);
      expect(servedDefinitionOf(bySvc).conversion).to.deep.equal({
        strategy: 'Webhook',
        clientConfig: {
          url: undefined,
          caBundle: undefined,
          service: { namespace: 'n', name: 's', path: '/convert', port: 443 },
        },
        reviewVersions: ['v1'],
      });
    });
  });

  describe('API approval in protected groups', () => {
    const inGroup = (annotations?: Record<string, string>) =>
      created(crd('widgets', 'widgets.platform.io', { annotations }));
    it('requires the annotation, with a URL or an "unapproved" reason', () => {
      expect(messagesOf(inGroup())).to.deep.equal([
        'metadata.annotations[api-approved.platform.io]: Required value: protected groups must have approval annotation "api-approved.platform.io" or "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
      ]);
      expect(messagesOf(inGroup({ 'api-approved.kubernetes.io': 'yes please' }))[0]).to.match(
        /^metadata\.annotations\[api-approved\.kubernetes\.io\]: Invalid value: "yes please": protected groups must have/,
      );
      expect(messagesOf(inGroup({ 'api-approved.platform.io': 'https://example.com/review/1' }))).to.deep.equal([]);
      expect(messagesOf(inGroup({ 'api-approved.kubernetes.io': 'unapproved, experimental' }))).to.deep.equal([]);
      expect(messagesOf(created(crd('widgets', 'widgets.example.com')))).to.deep.equal([]);
    });
    it('lets an update through when the approval state did not change', () => {
      const old = inGroup();
      const next = structuredClone(old);
      (next.spec as any).names.shortNames = ['wd'];
      expect(messagesOf(next, old)).to.deep.equal([]);
    });
  });

  it('is named by no default role: only cluster-admin, through its wildcard, may write definitions', () => {
    const naming = bootstrapClusterRoles().filter((role) =>
      (role.rules ?? []).some(
        (r) =>
          (r.apiGroups ?? []).some((g) => g === 'apiextensions.platform.io' || g === 'apiextensions.k8s.io') ||
          (r.resources ?? []).includes('customresourcedefinitions'),
      ),
    );
    expect(naming.map((r) => r.metadata.name)).to.deep.equal([]);
  });

  describe('updates and status', () => {
    it('keeps scope, group and plural immutable', () => {
      const old = withSpec({});
      const next = structuredClone(old);
      (next.spec as any).scope = 'Cluster';
      expect(messagesOf(next, old)).to.deep.equal(['spec.scope: Invalid value: "Cluster": field is immutable']);
    });
    it('adds a new storage version to storedVersions and refuses dropping a stored version from spec.versions', () => {
      const old = withSpec({ versions: [version({ name: 'v1alpha1' })] });
      const next = structuredClone(old);
      (next.spec as any).versions = [version({ name: 'v1alpha1', storage: false }), version({ name: 'v1' })];
      def.prepareForUpdate!(next, old);
      expect((next.status as any).storedVersions).to.deep.equal(['v1alpha1', 'v1']);
      expect(messagesOf(next, old)).to.deep.equal([]);
      const dropped = structuredClone(next);
      (dropped.spec as any).versions = [version({ name: 'v1' })];
      expect(messagesOf(dropped, next)).to.deep.equal([
        'status.storedVersions[0]: Invalid value: "v1alpha1": must appear in spec.versions',
      ]);
    });
    it('refuses a status without the storage version, or with bad accepted names', () => {
      const o = withSpec({});
      o.status = { storedVersions: ['v0'], acceptedNames: { plural: 'Foos', kind: 'Foo' } };
      expect(validator.validateStatusUpdate(o, o).map(fieldErrorMessage)).to.deep.equal([
        "status.acceptedNames.plural: Invalid value: \"Foos\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        'status.storedVersions: Invalid value: ["v0"]: must have the storage version v1alpha1',
        'status.storedVersions[0]: Invalid value: "v0": must appear in spec.versions',
      ]);
    });
    it('marks a definition Terminating when its deletion begins', () => {
      const o = withSpec({});
      def.beginDeletion!(o);
      expect((o.status as any).conditions[0]).to.include({
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionInProgress',
      });
    });
  });
});
