// The OIDC configuration surface: the --oidc-* flags (each bad value an OptionsError naming the flag and the value),
// their translation into a JWT authenticator with upstream's username-prefix defaulting, strict decoding of the
// AuthenticationConfiguration file, and its validation with kube-apiserver's field paths and messages, CEL included.
import { expect } from 'chai';
import { optionsError } from '../helpers/options.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseOptions } from '../../gateway/server/options.js';
import { oidcFlagsToConfig } from '../../gateway/authn/oidc/flags.js';
import {
  parseAuthenticationConfig,
  type AuthenticationConfiguration,
  type JwtAuthenticatorConfig,
} from '../../gateway/authn/oidc/config.js';
import {
  compileAuthenticationConfig,
  validateAuthenticationConfig,
} from '../../gateway/authn/oidc/config-validation.js';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';
import { makeCA } from '../helpers/pki.js';

const ISSUER = 'https://idp.example.com';

const refusal = (argv: string[], cwd = '/srv'): string => optionsError(argv, cwd).message;

function jwt(overrides: Partial<JwtAuthenticatorConfig> = {}): JwtAuthenticatorConfig {
  return {
    issuer: { url: ISSUER, audiences: ['gatehouse'] },
    claimValidationRules: [],
    claimMappings: { username: { claim: 'sub', prefix: '' }, groups: {}, uid: {}, extra: [] },
    userValidationRules: [],
    ...overrides,
  };
}

function errorsOf(config: AuthenticationConfiguration): string[] {
  return validateAuthenticationConfig(config).errors.map(fieldErrorMessage);
}

function mappings(m: Partial<JwtAuthenticatorConfig['claimMappings']>): Partial<JwtAuthenticatorConfig> {
  return { claimMappings: { username: { claim: 'sub', prefix: '' }, groups: {}, uid: {}, extra: [], ...m } };
}

describe('OIDC flags', () => {
  let dir: string;
  let caFile: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-oidc-unit-'));
    caFile = path.join(dir, 'ca.pem');
    await writeFile(caFile, (await makeCA('oidc-unit')).certPem);
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('defaults as kube-apiserver: username claim sub, RS256, nothing configured', () => {
    const o = parseOptions([], '/srv');
    expect(o.oidc).to.deep.include({
      flagsSet: false,
      usernameClaim: 'sub',
      signingAlgs: ['RS256'],
      requiredClaims: [],
    });
    expect(o.authenticationConfigFile).to.equal(undefined);
    expect(oidcFlagsToConfig(o.oidc)).to.equal(null);
  });

  it('reads every flag; required claims repeat, split at the first =; paths resolve against cwd', () => {
    const o = parseOptions(
      [
        `--oidc-issuer-url=${ISSUER}`,
        '--oidc-client-id=gh',
        `--oidc-ca-file=${caFile}`,
        '--oidc-username-claim=email',
        '--oidc-username-prefix=u:',
        '--oidc-groups-claim=groups',
        '--oidc-groups-prefix=g:',
        '--oidc-signing-algs=RS256,ES256',
        '--oidc-required-claim=tenant=acme',
        '--oidc-required-claim',
        'expr=a=b,c',
      ],
      '/srv',
    );
    expect(o.oidc).to.deep.include({
      flagsSet: true,
      issuerUrl: ISSUER,
      clientId: 'gh',
      caFile,
      usernameClaim: 'email',
      usernamePrefix: 'u:',
      groupsClaim: 'groups',
      groupsPrefix: 'g:',
      signingAlgs: ['RS256', 'ES256'],
    });
    expect(o.oidc.requiredClaims).to.deep.equal([
      { claim: 'tenant', value: 'acme' },
      { claim: 'expr', value: 'a=b,c' },
    ]);
    expect(parseOptions(['--authentication-config', 'authn.yaml'], '/srv').authenticationConfigFile).to.equal(
      '/srv/authn.yaml',
    );
    const repeated = parseOptions(
      [`--oidc-issuer-url=${ISSUER}`, '--oidc-client-id=gh', '--oidc-signing-algs=RS256', '--oidc-signing-algs=PS512'],
      '/srv',
    );
    expect(repeated.oidc.signingAlgs).to.deep.equal(['RS256', 'PS512']);
  });

  it('refuses bad values naming the flag and the value', () => {
    expect(refusal(['--oidc-issuer-url=http://idp.example.com', '--oidc-client-id=gh'])).to.equal(
      'invalid argument "http://idp.example.com" for "--oidc-issuer-url" flag: URL scheme must be https',
    );
    expect(refusal([`--oidc-issuer-url=${ISSUER}?x=1#f`, '--oidc-client-id=gh'])).to.equal(
      `invalid argument "${ISSUER}?x=1#f" for "--oidc-issuer-url" flag: URL must not contain a query, URL must not contain a fragment`,
    );
    expect(refusal([`--oidc-issuer-url=${ISSUER}`, '--oidc-client-id=gh', '--oidc-signing-algs=RS256,HS256'])).to.match(
      /^invalid argument "RS256,HS256" for "--oidc-signing-algs" flag: oidc: unsupported signing alg: "HS256"/,
    );
    expect(refusal([`--oidc-issuer-url=${ISSUER}`, '--oidc-client-id=gh', '--oidc-required-claim=tenant'])).to.equal(
      'invalid argument "tenant" for "--oidc-required-claim" flag: tenant must be formatted as key=value',
    );
    expect(
      refusal([`--oidc-issuer-url=${ISSUER}`, '--oidc-client-id=gh', `--oidc-ca-file=${path.join(dir, 'none.pem')}`]),
    ).to.match(/^invalid argument ".*none\.pem" for "--oidc-ca-file" flag: /);
    const notPem = path.join(dir, 'not.pem');
    return writeFile(notPem, 'hello').then(() => {
      expect(refusal([`--oidc-issuer-url=${ISSUER}`, '--oidc-client-id=gh', `--oidc-ca-file=${notPem}`])).to.equal(
        `invalid argument "${notPem}" for "--oidc-ca-file" flag: data does not contain any PEM certificate`,
      );
    });
  });

  it('needs issuer and client id together, and refuses --oidc-* beside --authentication-config', () => {
    const together = 'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set';
    expect(refusal([`--oidc-issuer-url=${ISSUER}`])).to.equal(together);
    expect(refusal(['--oidc-client-id=gh'])).to.equal(together);
    expect(refusal(['--oidc-groups-claim=groups'])).to.equal(together);
    expect(refusal(['--authentication-config=a.yaml', '--oidc-username-claim=email'])).to.equal(
      'authentication-config file and oidc-* flags are mutually exclusive',
    );
  });

  it('translates into one JWT authenticator with upstream username-prefix defaulting', () => {
    const config = (...extra: string[]) =>
      oidcFlagsToConfig(parseOptions([`--oidc-issuer-url=${ISSUER}`, '--oidc-client-id=gh', ...extra], '/srv').oidc)!;
    const only = (c: AuthenticationConfiguration) => c.jwt[0];
    expect(only(config()).claimMappings.username).to.deep.equal({ claim: 'sub', prefix: `${ISSUER}#` });
    expect(only(config('--oidc-username-claim=email')).claimMappings.username).to.deep.equal({
      claim: 'email',
      prefix: '',
    });
    expect(only(config('--oidc-username-claim=name', '--oidc-username-prefix=-')).claimMappings.username).to.deep.equal(
      { claim: 'name', prefix: '' },
    );
    expect(only(config('--oidc-username-prefix=corp:')).claimMappings.username).to.deep.equal({
      claim: 'sub',
      prefix: 'corp:',
    });
    expect(only(config()).claimMappings.groups).to.deep.equal({});
    expect(only(config('--oidc-groups-claim=roles')).claimMappings.groups).to.deep.equal({
      claim: 'roles',
      prefix: '',
    });
    const c = only(config('--oidc-required-claim=tenant=acme'));
    expect(c.issuer).to.deep.include({ url: ISSUER, audiences: ['gh'] });
    expect(c.claimValidationRules).to.deep.equal([{ claim: 'tenant', requiredValue: 'acme' }]);
    // The translated configuration is a valid one.
    expect(compileAuthenticationConfig(config('--oidc-groups-claim=roles'))).to.have.length(1);
  });
});

describe('AuthenticationConfiguration decoding', () => {
  const header = 'apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\n';

  it('reads YAML and JSON in every served version', () => {
    const yamlText = `${header}jwt:\n- issuer:\n    url: ${ISSUER}\n    audiences: [a]\n  claimMappings:\n    username:\n      claim: sub\n      prefix: ""\n`;
    const parsed = parseAuthenticationConfig(yamlText);
    expect(parsed.jwt[0].issuer).to.deep.include({ url: ISSUER, audiences: ['a'] });
    expect(parsed.jwt[0].claimMappings.username).to.deep.equal({ claim: 'sub', prefix: '', expression: undefined });
    for (const version of ['v1alpha1', 'v1beta1', 'v1']) {
      const json = JSON.stringify({
        apiVersion: `apiserver.config.platform.io/${version}`,
        kind: 'AuthenticationConfiguration',
        jwt: [],
      });
      expect(parseAuthenticationConfig(json)).to.deep.equal({ jwt: [] });
    }
    // A missing prefix is not the same as an empty one.
    expect(
      parseAuthenticationConfig(`${header}jwt:\n- claimMappings:\n    username:\n      claim: sub\n`).jwt[0]
        .claimMappings.username.prefix,
    ).to.equal(undefined);
  });

  it('refuses an empty file, another kind or version, unknown fields and wrong types, naming them', () => {
    const refuse = (text: string) => {
      try {
        parseAuthenticationConfig(text);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refuse('')).to.equal('empty config data');
    expect(refuse('apiVersion: apiserver.config.platform.io/v2\nkind: AuthenticationConfiguration\n')).to.equal(
      'no kind "AuthenticationConfiguration" is registered for version "apiserver.config.platform.io/v2" in scheme',
    );
    expect(refuse('apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthorizationConfiguration\n')).to.match(
      /no kind "AuthorizationConfiguration"/,
    );
    expect(refuse('apiVersion: apiserver.config.platform.io/v1beta1\n')).to.match(/^Object 'Kind' is missing/);
    expect(refuse(`${header}jwt:\n- issuer:\n    url: ${ISSUER}\n    audience: a\n  claimMapping: {}\n`)).to.equal(
      'strict decoding error: unknown field "jwt[0].issuer.audience", unknown field "jwt[0].claimMapping"',
    );
    expect(refuse(`${header}jwt:\n- issuer:\n    url: 42\n`)).to.equal(
      'json: cannot unmarshal number into Go struct field jwt[0].issuer.url of type string',
    );
    expect(refuse(`${header}jwt:\n- issuer:\n    audiences: a\n`)).to.match(
      /cannot unmarshal string into Go struct field jwt\[0\]\.issuer\.audiences of type \[\]string/,
    );
    expect(refuse(`${header}jwt: [\n`)).to.match(/^error converting YAML to JSON/);
  });
});

describe('AuthenticationConfiguration validation', () => {
  it('accepts zero authenticators and a full valid one, compiling its expressions', () => {
    expect(errorsOf({ jwt: [] })).to.deep.equal([]);
    const [compiled] = compileAuthenticationConfig({
      jwt: [
        jwt({
          issuer: {
            url: ISSUER,
            discoveryURL: `${ISSUER}/discovery`,
            audiences: ['a', 'b'],
            audienceMatchPolicy: 'MatchAny',
          },
          claimValidationRules: [
            { claim: 'hd', requiredValue: 'example.com' },
            { expression: 'claims.email_verified == true', message: 'unverified' },
          ],
          claimMappings: {
            username: { expression: 'claims.email' },
            groups: { expression: 'claims.roles' },
            uid: { claim: 'sub' },
            extra: [{ key: 'example.com/tenant', valueExpression: '[claims.tenant]' }],
          },
          userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'no system users' }],
        }),
      ],
    });
    expect(compiled.requiredClaims).to.deep.equal([{ claim: 'hd', requiredValue: 'example.com' }]);
    expect(compiled.claimValidations.map((v) => v.message)).to.deep.equal(['unverified']);
    expect(compiled.extra.map((e) => e.key)).to.deep.equal(['example.com/tenant']);
    expect(compiled.userValidations).to.have.length(1);
    expect(compiled.uid).to.deep.equal({ claim: 'sub' });
  });

  it('checks issuer URLs: required, https, no credentials, query or fragment; unique; discoveryURL different', () => {
    expect(errorsOf({ jwt: [jwt({ issuer: { url: '', audiences: ['a'] } })] })).to.deep.equal([
      'jwt[0].issuer.url: Required value',
    ]);
    expect(errorsOf({ jwt: [jwt({ issuer: { url: 'http://idp', audiences: ['a'] } })] })).to.deep.equal([
      'jwt[0].issuer.url: Invalid value: "http://idp": URL scheme must be https',
    ]);
    expect(errorsOf({ jwt: [jwt({ issuer: { url: 'https://u:p@idp/?q=1#x', audiences: ['a'] } })] })).to.deep.equal([
      'jwt[0].issuer.url: Invalid value: "https://u:p@idp/?q=1#x": URL must not contain a username or password',
      'jwt[0].issuer.url: Invalid value: "https://u:p@idp/?q=1#x": URL must not contain a query',
      'jwt[0].issuer.url: Invalid value: "https://u:p@idp/?q=1#x": URL must not contain a fragment',
    ]);
    expect(errorsOf({ jwt: [jwt(), jwt()] })).to.deep.equal([`jwt[1].issuer.url: Duplicate value: "${ISSUER}"`]);
    expect(
      errorsOf({ jwt: [jwt({ issuer: { url: ISSUER, discoveryURL: `${ISSUER}/`, audiences: ['a'] } })] }),
    ).to.deep.equal([
      `jwt[0].issuer.discoveryURL: Invalid value: "${ISSUER}/": discoveryURL must be different from URL`,
    ]);
    expect(
      errorsOf({ jwt: [jwt({ issuer: { url: ISSUER, discoveryURL: 'http://d', audiences: ['a'] } })] }),
    ).to.deep.equal(['jwt[0].issuer.discoveryURL: Invalid value: "http://d": URL scheme must be https']);
    const disallowed = validateAuthenticationConfig({ jwt: [jwt()] }, { disallowedIssuers: [ISSUER] }).errors.map(
      fieldErrorMessage,
    );
    expect(disallowed).to.deep.equal([
      `jwt[0].issuer.url: Invalid value: "${ISSUER}": URL must not overlap with disallowed issuers: [${ISSUER}]`,
    ]);
    expect(
      errorsOf({
        jwt: Array.from({ length: 65 }, (_, i) => jwt({ issuer: { url: `${ISSUER}/${i}`, audiences: ['a'] } })),
      }),
    ).to.deep.equal(['jwt: Too many: 65: must have at most 64 items']);
  });

  it('checks audiences, the match policy and the CA bundle (never echoing it)', () => {
    const issuer = (extra: object) => ({ jwt: [jwt({ issuer: { url: ISSUER, audiences: [], ...extra } })] });
    expect(errorsOf(issuer({}))).to.deep.equal([
      'jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required',
    ]);
    expect(errorsOf(issuer({ audiences: ['a', '', 'a'], audienceMatchPolicy: 'MatchAny' }))).to.deep.equal([
      'jwt[0].issuer.audiences[1]: Required value',
      'jwt[0].issuer.audiences[2]: Duplicate value: "a"',
    ]);
    expect(errorsOf(issuer({ audiences: ['a', 'b'] }))).to.deep.equal([
      'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences',
    ]);
    expect(errorsOf(issuer({ audiences: ['a'], audienceMatchPolicy: 'MatchAll' }))).to.deep.equal([
      'jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchAll": audienceMatchPolicy must be empty or MatchAny for single audience',
    ]);
    expect(errorsOf(issuer({ audiences: ['a'], certificateAuthority: 'secret-looking text' }))).to.deep.equal([
      'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates',
    ]);
  });

  it('checks claim validation rules: claim XOR expression, their companions, duplicates, bool results', () => {
    const rules = (...r: JwtAuthenticatorConfig['claimValidationRules']) =>
      errorsOf({ jwt: [jwt({ claimValidationRules: r })] });
    expect(rules({ claim: 'a', expression: 'true' })).to.deep.equal([
      'jwt[0].claimValidationRules[0]: Invalid value: "a": claim and expression can\'t both be set',
    ]);
    expect(rules({})).to.deep.equal([
      'jwt[0].claimValidationRules[0]: Required value: claim or expression is required',
    ]);
    expect(rules({ claim: 'a', message: 'm' })).to.deep.equal([
      'jwt[0].claimValidationRules[0].message: Invalid value: "m": may not be specified when claim is set',
    ]);
    expect(rules({ expression: 'true', requiredValue: 'v' })).to.deep.equal([
      'jwt[0].claimValidationRules[0].requiredValue: Invalid value: "v": may not be specified when expression is set',
    ]);
    expect(rules({ claim: 'a' }, { claim: 'a' })).to.deep.equal([
      'jwt[0].claimValidationRules[1].claim: Duplicate value: "a"',
    ]);
    expect(rules({ expression: 'true' }, { expression: 'true' })).to.deep.equal([
      'jwt[0].claimValidationRules[1].expression: Duplicate value: "true"',
    ]);
    // A dyn result is refused as upstream refuses it; the fix is an explicit comparison.
    expect(rules({ expression: 'claims.admin' })).to.deep.equal([
      'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.admin": must evaluate to bool',
    ]);
    expect(rules({ expression: 'claims.admin == true' })).to.deep.equal([]);
    const [notBool] = rules({ expression: '"yes"' });
    expect(notBool).to.match(/^jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: "\\"yes\\"": .*bool/);
    const [syntax] = rules({ expression: 'claims.a ==' });
    expect(syntax).to.match(
      /^jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: "claims\.a ==": compilation failed/,
    );
    const [undeclared] = rules({ expression: 'user.username == "a"' });
    expect(undeclared).to.match(
      /^jwt\[0\]\.claimValidationRules\[0\]\.expression: Invalid value: .*compilation failed/,
    );
  });

  it('checks username, groups and uid mappings', () => {
    const m = (x: Partial<JwtAuthenticatorConfig['claimMappings']>) => errorsOf({ jwt: [jwt(mappings(x))] });
    expect(m({ username: { claim: 'sub', expression: 'claims.sub' } })).to.deep.equal([
      'jwt[0].claimMappings.username: Invalid value: "": claim and expression can\'t both be set',
    ]);
    expect(m({ username: {} })).to.deep.equal([
      'jwt[0].claimMappings.username: Required value: claim or expression is required',
    ]);
    expect(m({ username: { claim: 'sub' } })).to.deep.equal([
      'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
    ]);
    expect(m({ username: { expression: 'claims.sub', prefix: 'x:' } })).to.deep.equal([
      'jwt[0].claimMappings.username.prefix: Invalid value: "x:": may not be specified when expression is set',
    ]);
    expect(m({ username: { expression: '42' } })[0]).to.match(
      /^jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "42": .*string/,
    );
    expect(m({ groups: { claim: 'groups' } })[0]).to.match(/^jwt\[0\]\.claimMappings\.groups\.prefix: Required value/);
    expect(m({ groups: { expression: '42' } })[0]).to.match(
      /^jwt\[0\]\.claimMappings\.groups\.expression: Invalid value: "42"/,
    );
    expect(m({ groups: { expression: '[claims.a, claims.b]' } })).to.deep.equal([]);
    expect(m({ groups: { expression: '[]' } })).to.deep.equal([]);
    expect(m({ uid: { claim: 'sub', expression: 'claims.sub' } })).to.deep.equal([
      'jwt[0].claimMappings.uid: Invalid value: "": claim and expression can\'t both be set',
    ]);
    expect(m({ uid: { expression: 'true' } })[0]).to.match(
      /^jwt\[0\]\.claimMappings\.uid\.expression: Invalid value: "true"/,
    );
  });

  it('requires claims.email_verified wherever claims.email is the username expression', () => {
    const m = (x: Partial<JwtAuthenticatorConfig>) => errorsOf({ jwt: [jwt(x)] });
    expect(m(mappings({ username: { expression: 'claims.email' } }))).to.deep.equal([
      'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
    ]);
    expect(m(mappings({ username: { expression: 'claims.email_verified ? claims.email : ""' } }))).to.deep.equal([]);
    expect(
      m({
        ...mappings({ username: { expression: 'claims.email' } }),
        claimValidationRules: [{ expression: 'claims.email_verified == true' }],
      }),
    ).to.deep.equal([]);
  });

  it('checks extra mappings: domain-prefixed lowercase keys outside k8s.io, unique, with an expression', () => {
    const extra = (...e: JwtAuthenticatorConfig['claimMappings']['extra']) =>
      errorsOf({ jwt: [jwt(mappings({ extra: e }))] });
    expect(extra({ key: 'tenant', valueExpression: 'claims.t' })).to.deep.equal([
      'jwt[0].claimMappings.extra[0].key: Invalid value: "tenant": must be a domain-prefixed path (such as "acme.io/foo")',
    ]);
    expect(extra({ key: 'Example.com/Tenant', valueExpression: 'claims.t' })).to.include(
      'jwt[0].claimMappings.extra[0].key: Invalid value: "Example.com/Tenant": must be lowercase',
    );
    expect(extra({ key: 'sub.k8s.io/x', valueExpression: 'claims.t' })).to.deep.equal([
      'jwt[0].claimMappings.extra[0].key: Invalid value: "sub.k8s.io/x": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
    ]);
    expect(
      extra(
        { key: 'example.com/a', valueExpression: 'claims.t' },
        { key: 'example.com/a', valueExpression: 'claims.u' },
      ),
    ).to.deep.equal(['jwt[0].claimMappings.extra[1].key: Duplicate value: "example.com/a"']);
    expect(extra({ key: 'example.com/a', valueExpression: '' })).to.deep.equal([
      'jwt[0].claimMappings.extra[0].valueExpression: Required value',
    ]);
    expect(extra({ key: '', valueExpression: 'claims.t' })).to.deep.equal([
      'jwt[0].claimMappings.extra[0].key: Required value',
    ]);
    expect(extra({ key: 'example.com/a', valueExpression: '1.5' })[0]).to.match(
      /^jwt\[0\]\.claimMappings\.extra\[0\]\.valueExpression: Invalid value: "1.5"/,
    );
  });

  it('checks user validation rules: required, unique, bool over `user` only', () => {
    const rules = (...r: JwtAuthenticatorConfig['userValidationRules']) =>
      errorsOf({ jwt: [jwt({ userValidationRules: r })] });
    expect(rules({ expression: '' })).to.deep.equal(['jwt[0].userValidationRules[0].expression: Required value']);
    expect(rules({ expression: 'true' }, { expression: 'true' })).to.deep.equal([
      'jwt[0].userValidationRules[1].expression: Duplicate value: "true"',
    ]);
    expect(rules({ expression: 'claims.sub == "a"' })[0]).to.match(
      /^jwt\[0\]\.userValidationRules\[0\]\.expression: Invalid value: .*compilation failed/,
    );
    expect(rules({ expression: "user.groups.all(g, !g.startsWith('system:'))" })).to.deep.equal([]);
  });

  it('checks anonymous conditions and reports every error of every authenticator at once', () => {
    expect(errorsOf({ jwt: [], anonymous: { enabled: false, conditions: [{ path: '/livez' }] } })).to.deep.equal([
      'anonymous.conditions: Invalid value: [{"path":"/livez"}]: enabled should be set to true when conditions are defined',
    ]);
    expect(() =>
      compileAuthenticationConfig({
        jwt: [jwt({ issuer: { url: 'http://a', audiences: [] } }), jwt(mappings({ username: {} }))],
      }),
    ).to.throw(
      'invalid authentication configuration: [jwt[0].issuer.url: Invalid value: "http://a": URL scheme must be https, ' +
        'jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required, ' +
        'jwt[1].claimMappings.username: Required value: claim or expression is required]',
    );
  });
});
