// CustomResourceDefinitions with the stock kubectl: a cert-manager-like Certificate definition written as an upstream
// apiextensions.k8s.io/v1 manifest is applied, waited for until established, listed with `kubectl get crds`, applied
// again unchanged, and a broken one is refused with the fields at fault in kubectl's error.
import { expect } from 'chai';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';
import { parseColumns } from '../helpers/kubectl.js';

const CERTIFICATE_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.certs.example.com
  labels:
    app.kubernetes.io/name: certs
spec:
  group: certs.example.com
  names:
    kind: Certificate
    listKind: CertificateList
    plural: certificates
    shortNames: [cert, certs]
    singular: certificate
    categories: [certs-example]
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources:
        status: {}
      additionalPrinterColumns:
        - jsonPath: .status.conditions[?(@.type=="Ready")].status
          name: Ready
          type: string
        - jsonPath: .spec.secretName
          name: Secret
          type: string
        - jsonPath: .spec.issuerRef.name
          name: Issuer
          type: string
          priority: 1
        - jsonPath: .metadata.creationTimestamp
          name: Age
          type: date
      selectableFields:
        - jsonPath: .spec.secretName
      schema:
        openAPIV3Schema:
          description: A Certificate resource should be created to ensure an up to date and signed X.509 certificate is stored in the Kubernetes Secret resource named in spec.secretName.
          type: object
          required: [spec]
          properties:
            apiVersion:
              type: string
            kind:
              type: string
            metadata:
              type: object
            spec:
              type: object
              required: [issuerRef, secretName]
              x-kubernetes-validations:
                - rule: "!has(self.duration) || !has(self.renewBefore) || self.duration != self.renewBefore"
                  message: renewBefore must differ from duration
              properties:
                commonName:
                  type: string
                  maxLength: 64
                dnsNames:
                  type: array
                  items:
                    type: string
                  x-kubernetes-list-type: atomic
                duration:
                  type: string
                renewBefore:
                  type: string
                secretName:
                  type: string
                isCA:
                  type: boolean
                  default: false
                usages:
                  type: array
                  items:
                    type: string
                    enum: [signing, digital signature, server auth, client auth]
                privateKey:
                  type: object
                  properties:
                    algorithm:
                      type: string
                      enum: [RSA, ECDSA, Ed25519]
                    size:
                      type: integer
                    rotationPolicy:
                      type: string
                      default: Always
                issuerRef:
                  type: object
                  required: [name]
                  properties:
                    group:
                      type: string
                    kind:
                      type: string
                    name:
                      type: string
                secretTemplate:
                  type: object
                  properties:
                    annotations:
                      type: object
                      additionalProperties:
                        type: string
                    labels:
                      type: object
                      additionalProperties:
                        type: string
            status:
              type: object
              properties:
                conditions:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [type]
                  items:
                    type: object
                    required: [status, type]
                    properties:
                      lastTransitionTime:
                        type: string
                        format: date-time
                      message:
                        type: string
                      observedGeneration:
                        type: integer
                        format: int64
                      reason:
                        type: string
                      status:
                        type: string
                        enum: ["True", "False", "Unknown"]
                      type:
                        type: string
                notAfter:
                  type: string
                  format: date-time
                revision:
                  type: integer
`;

const BROKEN_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: issuers.certs.example.com
spec:
  group: certs.example.com
  names:
    kind: Issuer
    plural: issuers
  scope: Galaxy
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              properties:
                acme:
                  type: object
                  x-kubernetes-validations:
                    - rule: self.server.startsWith(
`;

describe('kubectl and CustomResourceDefinitions', function () {
  this.timeout(90_000);
  const env = gatehouseWithKubectl();

  it('applies a Certificate definition, waits for it to be established and lists it with kubectl get crds', async () => {
    const file = await env.kubectl.manifest('certificates.yaml', CERTIFICATE_CRD);
    expect(await env.kubectl.ok(['apply', '-f', file])).to.include(
      'customresourcedefinition.apiextensions.k8s.io/certificates.certs.example.com created',
    );
    expect(
      await env.kubectl.ok([
        'wait',
        '--for',
        'condition=established',
        '--timeout=20s',
        'crd/certificates.certs.example.com',
      ]),
      // `crd` resolves to our group first, as every short name of an aliased kind does.
    ).to.include('customresourcedefinition.apiextensions.platform.io/certificates.certs.example.com condition met');

    const rows = parseColumns(await env.kubectl.ok(['get', 'crds']));
    expect(Object.keys(rows[0])).to.deep.equal(['NAME', 'CREATED AT']);
    const row = rows.find((r) => r.NAME === 'certificates.certs.example.com');
    expect(row?.['CREATED AT']).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const accepted = await env.kubectl.ok([
      'get',
      'customresourcedefinition.apiextensions.k8s.io',
      'certificates.certs.example.com',
      '-o',
      'jsonpath={.status.acceptedNames.kind} {.status.storedVersions} {.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.isCA.default}',
    ]);
    expect(accepted).to.equal('Certificate ["v1"] false');

    expect(await env.kubectl.ok(['apply', '-f', file])).to.include('certificates.certs.example.com unchanged');
    expect(await env.kubectl.ok(['apply', '--server-side', '-f', file])).to.include(
      'certificates.certs.example.com serverside-applied',
    );
  });

  it('refuses a misspelt schema keyword, as kubectl asks for strict field validation', async () => {
    const misspelt = CERTIFICATE_CRD.replace(/certificates/g, 'typos')
      .replace('kind: Certificate\n', 'kind: Typo\n')
      .replace('listKind: CertificateList', 'listKind: TypoList')
      .replace('shortNames: [cert, certs]', 'shortNames: [typo]')
      .replace('singular: certificate', 'singular: typo')
      .replace(
        '            spec:\n              type: object\n',
        '            spec:\n              type: object\n              descripton: typo\n',
      );
    const file = await env.kubectl.manifest('typos.yaml', misspelt);
    const r = await env.kubectl.run(['apply', '-f', file]);
    expect(r.code, r.stdout).to.not.equal(0);
    expect(r.stderr).to.include('unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.descripton"');
  });

  it('refuses a broken definition with the fields at fault in the error', async () => {
    const file = await env.kubectl.manifest('issuers.yaml', BROKEN_CRD);
    const r = await env.kubectl.run(['apply', '-f', file]);
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.include('The CustomResourceDefinition "issuers.certs.example.com" is invalid');
    expect(r.stderr).to.include('spec.scope: Unsupported value: "Galaxy"');
    expect(r.stderr).to.include(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
    );
    expect(r.stderr).to.match(
      /properties\[acme\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/,
    );
  });
});
