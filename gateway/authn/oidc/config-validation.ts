// Validation of an AuthenticationConfiguration as kube-apiserver 1.32 does it, field path by field path, compiling every
// CEL expression on the way so that a configuration that loads can never fail to compile later. The result is a list
// of field errors (all of them, as upstream reports them) and, when there are none, the compiled authenticators.
//
// Expression environments (as upstream): claim validation rules and claim mappings see `claims` (map<string, dyn>),
// user validation rules see `user` ({username, uid, groups, extra}). Result types: validation rules must be bool
// (a dyn result is refused, as upstream refuses it: write `claims.admin == true`, not `claims.admin`); mappings are
// checked when their type is known at compile time (username and uid string; groups and extra string or list) and
// again on every evaluation, because expressions over `claims` are mostly dyn.
import { compileCel, type CelProgram } from '../../../policies/cel/index.js';
import { fieldErrors, fieldErrorMessage, FieldPath, type FieldError } from '../../../api/meta/field-errors.js';
import { dns1123Subdomain, regexError } from '../../../api/meta/validation.js';
import { parseCaBundle } from '../client-cert.js';
import type { AuthenticationConfiguration, JwtAuthenticatorConfig, PrefixedClaimOrExpression } from './config.js';

export const MAX_JWT_AUTHENTICATORS = 64;
/** cel-go's per-call limit that kube-apiserver gives every expression. */
const RUNTIME_COST_BUDGET = 1_000_000;

const CLAIMS_VARIABLES = { claims: 'map<string, dyn>' };
const USER_VARIABLES = { user: 'map<string, dyn>' };
const STRING_RESULT = ['string'];
const STRING_OR_LIST_RESULT = ['string', 'list<string>', 'list<dyn>', 'list', 'null_type'];

export type ClaimOrProgram = { claim: string; prefix: string } | { program: CelProgram };

export interface CompiledJwtAuthenticator {
  config: JwtAuthenticatorConfig;
  /** PEM certificates to trust for discovery and JWKS fetches; undefined: the system roots. */
  caPems?: string[];
  requiredClaims: { claim: string; requiredValue: string }[];
  claimValidations: { program: CelProgram; message: string }[];
  username: ClaimOrProgram;
  groups?: ClaimOrProgram;
  uid?: { claim: string } | { program: CelProgram };
  extra: { key: string; program: CelProgram }[];
  userValidations: { program: CelProgram; message: string }[];
}

export class AuthenticationConfigInvalidError extends Error {
  constructor(readonly errors: FieldError[]) {
    super(`invalid authentication configuration: ${aggregate(errors)}`);
    this.name = 'AuthenticationConfigInvalidError';
  }
}

/** utilerrors.NewAggregate(...).Error(): one error as is, several in brackets. */
function aggregate(errors: FieldError[]): string {
  const messages = errors.map(fieldErrorMessage);
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

/** Whether a checked result type can yield what `resultTypes` asks for: `dyn` can, and any list can hold strings. */
function compatible(type: string, resultTypes: string[]): boolean {
  return resultTypes.includes(type) || (resultTypes.includes('list') && /^list\b/.test(type));
}

function compile(
  errors: FieldError[],
  at: FieldPath,
  expression: string,
  variables: Record<string, string>,
  resultTypes: string[],
): CelProgram | undefined {
  // Mapped values are checked by claims.ts with upstream's messages; rules yield bool and are checked here.
  const options = {
    variables,
    resultTypes,
    runtimeCostBudget: RUNTIME_COST_BUDGET,
    checkResultAtRuntime: resultTypes.length === 1 && resultTypes[0] === 'bool',
  };
  try {
    return compileCel(expression, options);
  } catch (e) {
    // The library spells element types its own way (list, list<dyn>, list<T>...): a list of any element type is fine
    // for a mapping and is checked element by element at evaluation.
    let failure = e;
    const got = /must evaluate to .*got (\S+)$/.exec((e as Error).message)?.[1];
    if (got !== undefined && compatible(got, resultTypes)) {
      try {
        return compileCel(expression, { ...options, resultTypes: [...resultTypes, got] });
      } catch (again) {
        failure = again;
      }
    }
    errors.push(fieldErrors.invalid(at, expression, (failure as Error).message));
    return undefined;
  }
}

function compileBool(
  errors: FieldError[],
  at: FieldPath,
  expression: string,
  variables: Record<string, string>,
): CelProgram | undefined {
  const program = compile(errors, at, expression, variables, ['bool']);
  if (program && program.resultType !== 'bool') {
    errors.push(fieldErrors.invalid(at, expression, 'must evaluate to bool'));
    return undefined;
  }
  return program;
}

/** Problems of an issuer or discovery URL as upstream's validateURL words them ([] when fine). Go's url.Parse is
 * lenient: a string without a scheme parses, and then fails the https rule. */
export function urlProblems(raw: string): string[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [/^[A-Za-z][A-Za-z0-9+.-]*:/.test(raw) ? `parse "${raw}": invalid URL` : 'URL scheme must be https'];
  }
  const problems: string[] = [];
  if (u.protocol !== 'https:') problems.push('URL scheme must be https');
  if (u.username !== '' || u.password !== '') problems.push('URL must not contain a username or password');
  if (u.search !== '') problems.push('URL must not contain a query');
  if (u.hash !== '') problems.push('URL must not contain a fragment');
  return problems;
}

function validateUrl(errors: FieldError[], at: FieldPath, raw: string): void {
  for (const problem of urlProblems(raw)) errors.push(fieldErrors.invalid(at, raw, problem));
}

function validateIssuer(errors: FieldError[], jwt: JwtAuthenticatorConfig, at: FieldPath): string[] | undefined {
  const { url, discoveryURL, audiences, audienceMatchPolicy, certificateAuthority } = jwt.issuer;
  if (url === '') errors.push(fieldErrors.required(at.child('url')));
  else validateUrl(errors, at.child('url'), url);

  if (discoveryURL) {
    if (url !== '' && url.replace(/\/+$/, '') === discoveryURL.replace(/\/+$/, '')) {
      errors.push(
        fieldErrors.invalid(at.child('discoveryURL'), discoveryURL, 'discoveryURL must be different from URL'),
      );
    }
    validateUrl(errors, at.child('discoveryURL'), discoveryURL);
  }

  const audPath = at.child('audiences');
  if (audiences.length === 0) {
    errors.push(fieldErrors.required(audPath, `at least one ${audPath.toString()} is required`));
  } else {
    const seen = new Set<string>();
    audiences.forEach((audience, i) => {
      if (audience === '') errors.push(fieldErrors.required(audPath.index(i)));
      if (seen.has(audience)) errors.push(fieldErrors.duplicate(audPath.index(i), audience));
      seen.add(audience);
    });
    const policy = audienceMatchPolicy ?? '';
    if (audiences.length > 1 && policy !== 'MatchAny') {
      errors.push(
        fieldErrors.invalid(
          at.child('audienceMatchPolicy'),
          policy,
          'audienceMatchPolicy must be MatchAny for multiple audiences',
        ),
      );
    }
    if (audiences.length === 1 && policy !== '' && policy !== 'MatchAny') {
      errors.push(
        fieldErrors.invalid(
          at.child('audienceMatchPolicy'),
          policy,
          'audienceMatchPolicy must be empty or MatchAny for single audience',
        ),
      );
    }
  }

  if (!certificateAuthority) return undefined;
  try {
    return parseCaBundle(certificateAuthority);
  } catch {
    // The bundle itself is never echoed, as upstream.
    errors.push(
      fieldErrors.invalid(
        at.child('certificateAuthority'),
        '<omitted>',
        'data does not contain any valid RSA or ECDSA certificates',
      ),
    );
    return undefined;
  }
}

function validatePrefixed(
  errors: FieldError[],
  mapping: PrefixedClaimOrExpression,
  at: FieldPath,
  required: boolean,
  resultTypes: string[],
): ClaimOrProgram | undefined {
  const { claim = '', expression = '', prefix } = mapping;
  if (claim !== '' && expression !== '') {
    errors.push(fieldErrors.invalid(at, '', "claim and expression can't both be set"));
  } else if (claim === '' && expression === '') {
    if (required) errors.push(fieldErrors.required(at, 'claim or expression is required'));
  } else if (expression !== '') {
    if (prefix !== undefined)
      errors.push(fieldErrors.invalid(at.child('prefix'), prefix, 'may not be specified when expression is set'));
    const program = compile(errors, at.child('expression'), expression, CLAIMS_VARIABLES, resultTypes);
    return program && { program };
  } else {
    if (prefix === undefined) {
      errors.push(
        fieldErrors.required(
          at.child('prefix'),
          'prefix is required when claim is set. It can be set to an empty string to disable prefixing',
        ),
      );
      return undefined;
    }
    return { claim, prefix };
  }
  return undefined;
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH_RE = new RegExp(`^${HTTP_PATH_FMT}$`);

/** apimachinery's IsDomainPrefixedPath: `example.org/foo`. */
function validateDomainPrefixedPath(errors: FieldError[], at: FieldPath, key: string): void {
  if (key === '') {
    errors.push(fieldErrors.required(at));
    return;
  }
  const slash = key.indexOf('/');
  const host = slash < 0 ? '' : key.slice(0, slash);
  const rest = slash < 0 ? '' : key.slice(slash + 1);
  if (host === '' || rest === '') {
    errors.push(fieldErrors.invalid(at, key, 'must be a domain-prefixed path (such as "acme.io/foo")'));
    return;
  }
  for (const msg of dns1123Subdomain(host)) errors.push(fieldErrors.invalid(at, host, msg));
  if (!HTTP_PATH_RE.test(rest)) errors.push(fieldErrors.invalid(at, rest, regexError('Invalid path', HTTP_PATH_FMT)));
}

function isKubernetesDomain(key: string): boolean {
  const slash = key.indexOf('/');
  const domain = slash < 0 ? '' : key.slice(0, slash);
  return ['kubernetes.io', 'k8s.io'].some((d) => domain === d || domain.endsWith(`.${d}`));
}

// Upstream inspects the AST for a field selection `claims.email` / `claims.email_verified`; a textual match is close
// enough (it can only over-report the selection inside a string literal, which asks for email_verified needlessly).
const USES_EMAIL = /\bclaims\s*\.\s*\??\s*email\b/;
const USES_EMAIL_VERIFIED = /\bclaims\s*\.\s*\??\s*email_verified\b/;

function validateJwt(
  jwt: JwtAuthenticatorConfig,
  at: FieldPath,
  errors: FieldError[],
): CompiledJwtAuthenticator | undefined {
  const before = errors.length;
  const caPems = validateIssuer(errors, jwt, at.child('issuer'));

  const requiredClaims: CompiledJwtAuthenticator['requiredClaims'] = [];
  const claimValidations: CompiledJwtAuthenticator['claimValidations'] = [];
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  let usesEmailVerified = false;
  jwt.claimValidationRules.forEach((rule, i) => {
    const p = at.child('claimValidationRules').index(i);
    const { claim = '', expression = '', requiredValue = '', message = '' } = rule;
    if (claim !== '' && expression !== '') {
      errors.push(fieldErrors.invalid(p, claim, "claim and expression can't both be set"));
    } else if (claim === '' && expression === '') {
      errors.push(fieldErrors.required(p, 'claim or expression is required'));
    } else if (claim !== '') {
      if (message !== '')
        errors.push(fieldErrors.invalid(p.child('message'), message, 'may not be specified when claim is set'));
      if (seenClaims.has(claim)) errors.push(fieldErrors.duplicate(p.child('claim'), claim));
      seenClaims.add(claim);
      requiredClaims.push({ claim, requiredValue });
    } else {
      if (requiredValue !== '')
        errors.push(
          fieldErrors.invalid(p.child('requiredValue'), requiredValue, 'may not be specified when expression is set'),
        );
      if (seenExpressions.has(expression)) {
        errors.push(fieldErrors.duplicate(p.child('expression'), expression));
        return;
      }
      seenExpressions.add(expression);
      const program = compileBool(errors, p.child('expression'), expression, CLAIMS_VARIABLES);
      if (program) claimValidations.push({ program, message });
      usesEmailVerified ||= USES_EMAIL_VERIFIED.test(expression);
    }
  });

  const m = at.child('claimMappings');
  const { username: usernameMapping, groups: groupsMapping, uid: uidMapping, extra: extraMappings } = jwt.claimMappings;
  const username = validatePrefixed(errors, usernameMapping, m.child('username'), true, STRING_RESULT);
  const groups = validatePrefixed(errors, groupsMapping, m.child('groups'), false, STRING_OR_LIST_RESULT);
  const usesEmail =
    !!usernameMapping.expression && !usernameMapping.claim && USES_EMAIL.test(usernameMapping.expression);
  if (usernameMapping.expression && !usernameMapping.claim)
    usesEmailVerified ||= USES_EMAIL_VERIFIED.test(usernameMapping.expression);

  let uid: CompiledJwtAuthenticator['uid'];
  if (uidMapping.claim && uidMapping.expression) {
    errors.push(fieldErrors.invalid(m.child('uid'), '', "claim and expression can't both be set"));
  } else if (uidMapping.expression) {
    const program = compile(
      errors,
      m.child('uid').child('expression'),
      uidMapping.expression,
      CLAIMS_VARIABLES,
      STRING_RESULT,
    );
    if (program) uid = { program };
  } else if (uidMapping.claim) {
    uid = { claim: uidMapping.claim };
  }

  const extra: CompiledJwtAuthenticator['extra'] = [];
  const seenKeys = new Set<string>();
  extraMappings.forEach((mapping, i) => {
    const p = m.child('extra').index(i);
    validateDomainPrefixedPath(errors, p.child('key'), mapping.key);
    if (mapping.key !== mapping.key.toLowerCase())
      errors.push(fieldErrors.invalid(p.child('key'), mapping.key, 'must be lowercase'));
    if (isKubernetesDomain(mapping.key)) {
      errors.push(
        fieldErrors.invalid(
          p.child('key'),
          mapping.key,
          'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
        ),
      );
    }
    if (seenKeys.has(mapping.key)) {
      errors.push(fieldErrors.duplicate(p.child('key'), mapping.key));
      return;
    }
    seenKeys.add(mapping.key);
    if (mapping.valueExpression === '') {
      errors.push(fieldErrors.required(p.child('valueExpression')));
      return;
    }
    const program = compile(
      errors,
      p.child('valueExpression'),
      mapping.valueExpression,
      CLAIMS_VARIABLES,
      STRING_OR_LIST_RESULT,
    );
    if (program) extra.push({ key: mapping.key, program });
    usesEmailVerified ||= USES_EMAIL_VERIFIED.test(mapping.valueExpression);
  });
  if (usesEmail && !usesEmailVerified) {
    errors.push(
      fieldErrors.invalid(
        m.child('username').child('expression'),
        usernameMapping.expression,
        'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      ),
    );
  }

  const userValidations: CompiledJwtAuthenticator['userValidations'] = [];
  const seenUserExpressions = new Set<string>();
  jwt.userValidationRules.forEach((rule, i) => {
    const p = at.child('userValidationRules').index(i);
    if (rule.expression === '') {
      errors.push(fieldErrors.required(p.child('expression')));
      return;
    }
    if (seenUserExpressions.has(rule.expression)) {
      errors.push(fieldErrors.duplicate(p.child('expression'), rule.expression));
      return;
    }
    seenUserExpressions.add(rule.expression);
    const program = compileBool(errors, p.child('expression'), rule.expression, USER_VARIABLES);
    if (program) userValidations.push({ program, message: rule.message ?? '' });
  });

  if (errors.length > before || !username) return undefined;
  return { config: jwt, caPems, requiredClaims, claimValidations, username, groups, uid, extra, userValidations };
}

export interface ValidationOptions {
  /** Issuers no JWT authenticator may claim (the service-account issuers). */
  disallowedIssuers?: string[];
}

/** Every field error of the configuration; [] and the compiled authenticators when it is valid. */
export function validateAuthenticationConfig(
  config: AuthenticationConfiguration,
  opts: ValidationOptions = {},
): { errors: FieldError[]; authenticators: CompiledJwtAuthenticator[] } {
  const errors: FieldError[] = [];
  const root = FieldPath.root('jwt');
  if (config.jwt.length > MAX_JWT_AUTHENTICATORS) {
    return { errors: [fieldErrors.tooMany(root, config.jwt.length, MAX_JWT_AUTHENTICATORS)], authenticators: [] };
  }
  const disallowed = new Set(opts.disallowedIssuers ?? []);
  const authenticators: CompiledJwtAuthenticator[] = [];
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  config.jwt.forEach((jwt, i) => {
    const at = root.index(i);
    if (disallowed.has(jwt.issuer.url)) {
      errors.push(
        fieldErrors.invalid(
          at.child('issuer').child('url'),
          jwt.issuer.url,
          `URL must not overlap with disallowed issuers: [${[...disallowed].sort().join(' ')}]`,
        ),
      );
    }
    const compiled = validateJwt(jwt, at, errors);
    if (compiled) authenticators.push(compiled);
    if (seenIssuers.has(jwt.issuer.url))
      errors.push(fieldErrors.duplicate(at.child('issuer').child('url'), jwt.issuer.url));
    seenIssuers.add(jwt.issuer.url);
    if (jwt.issuer.discoveryURL) {
      if (seenDiscovery.has(jwt.issuer.discoveryURL))
        errors.push(fieldErrors.duplicate(at.child('issuer').child('discoveryURL'), jwt.issuer.discoveryURL));
      seenDiscovery.add(jwt.issuer.discoveryURL);
    }
  });
  if (config.anonymous && !config.anonymous.enabled && config.anonymous.conditions.length > 0) {
    errors.push(
      fieldErrors.invalid(
        FieldPath.root('anonymous').child('conditions'),
        config.anonymous.conditions,
        'enabled should be set to true when conditions are defined',
      ),
    );
  }
  return { errors, authenticators: errors.length === 0 ? authenticators : [] };
}

/** Validates and compiles, or throws AuthenticationConfigInvalidError naming every bad field. */
export function compileAuthenticationConfig(
  config: AuthenticationConfiguration,
  opts: ValidationOptions = {},
): CompiledJwtAuthenticator[] {
  const { errors, authenticators } = validateAuthenticationConfig(config, opts);
  if (errors.length > 0) throw new AuthenticationConfigInvalidError(errors);
  return authenticators;
}
