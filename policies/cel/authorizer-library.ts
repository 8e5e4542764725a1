// Kubernetes' authorizer library, for expressions that declare a variable of type AUTHORIZER_TYPE (by convention
// named `authorizer`): authorizer.group(g).resource(r)[.subresource(s)][.namespace(ns)][.name(n)].check(verb),
// authorizer.path(p).check(httpVerb), authorizer.serviceAccount(ns, name) (checks as that service account),
// authorizer.requestResource (admission's: a check preset to the request's group, resource, subresource, namespace
// and name), and Decision.allowed() / reason() / errored() / error().
//
// Checks are synchronous: the library's evaluator breaks when an async custom function runs inside a comprehension
// (CEL-NOTES.md), so the caller supplies a synchronous decision function. evaluateWithAuthorizer bridges to an async
// Authorizer by pre-resolving: it evaluates with the decisions known so far, collects the checks that had none, asks
// the authorizer for them, and evaluates again until every check the expression made was answered.
import type { Environment } from '@marcbachmann/cel-js';
import type { UserInfo } from '../../api/meta/user.js';
import type { Attributes, AuthorizationResult, Authorizer, CallerGone } from '../authorizer.js';
import { AUTHORIZER_CHECK_COST } from './cost-constants.js';
import { define, defineOpaqueType } from './define.js';
import { charge } from './runtime-cost.js';

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
export const PATH_CHECK_TYPE = 'kubernetes.authorization.PathCheck';
export const GROUP_CHECK_TYPE = 'kubernetes.authorization.GroupCheck';
export const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';
export const DECISION_TYPE = 'kubernetes.authorization.Decision';

/** Answers one check synchronously. A throw becomes an errored Decision (allowed() false). */
export type CelDecisionFunction = (attributes: Attributes) => AuthorizationResult;

/** The value of the authorizer variable. Its state is private: expressions reach it only through the functions. */
export class CelAuthorizer {
  readonly #user: UserInfo;
  readonly #decide: CelDecisionFunction;
  readonly #requestParts: ResourceCheckParts | undefined;

  constructor(user: UserInfo, decide: CelDecisionFunction, requestResource?: ResourceCheckParts) {
    this.#user = user;
    this.#decide = decide;
    this.#requestParts = requestResource;
  }

  get user(): UserInfo {
    return this.#user;
  }

  /** The field `authorizer.requestResource`: set only where the authorizer was given a request (admission). */
  get requestResource(): CelResourceCheck | undefined {
    return this.#requestParts && new CelResourceCheck(this, this.#requestParts);
  }

  /** The same decision source, asking as another user (authorizer.serviceAccount). */
  as(user: UserInfo): CelAuthorizer {
    return new CelAuthorizer(user, this.#decide, this.#requestParts);
  }

  decide(attributes: Attributes): CelDecision {
    charge(AUTHORIZER_CHECK_COST);
    try {
      const result = this.#decide(attributes);
      return new CelDecision(result.decision === 'Allow', result.reason ?? '', '');
    } catch (error) {
      return new CelDecision(false, '', error instanceof Error ? error.message : 'authorization check failed');
    }
  }
}

export class CelPathCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly path: string,
  ) {}
}

export class CelGroupCheck {
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly group: string,
  ) {}
}

export interface ResourceCheckParts {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export class CelResourceCheck {
  readonly #authorizer: CelAuthorizer;
  readonly #parts: ResourceCheckParts;

  constructor(authorizer: CelAuthorizer, parts: ResourceCheckParts) {
    this.#authorizer = authorizer;
    this.#parts = parts;
  }

  with(change: Partial<ResourceCheckParts>): CelResourceCheck {
    return new CelResourceCheck(this.#authorizer, { ...this.#parts, ...change });
  }

  check(verb: string): CelDecision {
    const p = this.#parts;
    return this.#authorizer.decide({
      user: this.#authorizer.user,
      verb,
      isResourceRequest: true,
      path: '',
      // Kubernetes' library asks about every version of the group.
      apiGroup: p.group,
      apiVersion: '*',
      resource: p.resource,
      subresource: p.subresource,
      namespace: p.namespace,
      name: p.name,
    });
  }
}

export class CelDecision {
  readonly #allowed: boolean;
  readonly #reason: string;
  readonly #error: string;

  constructor(allowed: boolean, reason: string, error: string) {
    this.#allowed = allowed;
    this.#reason = reason;
    this.#error = error;
  }

  get allowed(): boolean {
    return this.#allowed;
  }
  get reason(): string {
    return this.#reason;
  }
  get error(): string {
    return this.#error;
  }

  toPlain(): { allowed: boolean; reason: string } {
    return { allowed: this.#allowed, reason: this.#reason };
  }
}

function serviceAccountUser(namespace: string, name: string): UserInfo {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

/** The activation value for a variable of type AUTHORIZER_TYPE: checks run as `user` through `decide`. */
export function createCelAuthorizer(
  user: UserInfo,
  decide: CelDecisionFunction,
  requestResource?: ResourceCheckParts,
): CelAuthorizer {
  return new CelAuthorizer(user, decide, requestResource);
}

function attributesKey(a: Attributes): string {
  return JSON.stringify([
    a.user.name,
    a.user.groups,
    a.verb,
    a.isResourceRequest,
    a.path,
    a.apiGroup,
    a.apiVersion,
    a.resource,
    a.subresource,
    a.namespace,
    a.name,
  ]);
}

/** Rounds of pre-resolution; each round answers every check the previous evaluation could not. */
const MAX_ROUNDS = 8;

/**
 * Evaluates `evaluate(authorizerValue)` with checks answered by an async Authorizer (see the file comment). The
 * expression is deterministic, so each round reaches at least one check more than the one before, or finishes.
 */
export async function evaluateWithAuthorizer<T>(
  authorizer: Authorizer,
  user: UserInfo,
  evaluate: (authorizerValue: CelAuthorizer) => T,
  callerGone?: CallerGone,
  requestResource?: ResourceCheckParts,
): Promise<T> {
  // An authorizer that failed answers with the Error, which the check reports through Decision.errored().
  const known = new Map<string, AuthorizationResult | Error>();
  for (let round = 0; ; round++) {
    const pending = new Map<string, Attributes>();
    let value: T;
    try {
      value = evaluate(
        createCelAuthorizer(
          user,
          (attributes) => {
            const key = attributesKey(attributes);
            const result = known.get(key);
            if (result instanceof Error) throw result;
            if (result) return result;
            pending.set(key, attributes);
            return { decision: 'NoOpinion', reason: '' };
          },
          requestResource,
        ),
      );
    } catch (error) {
      // A placeholder answer may have led the expression into an error; only a fully answered run decides.
      if (pending.size === 0 || round >= MAX_ROUNDS) throw error;
      value = undefined as T;
    }
    if (pending.size === 0 || round >= MAX_ROUNDS) return value;
    const answers = await Promise.all(
      [...pending].map(async ([key, attributes]) => {
        try {
          return [key, await authorizer.authorize(attributes, callerGone)] as const;
        } catch (error) {
          return [key, error instanceof Error ? error : new Error('authorization check failed')] as const;
        }
      }),
    );
    for (const [key, result] of answers) known.set(key, result);
  }
}

export function registerAuthorizerLibrary(env: Environment): void {
  defineOpaqueType(env, PATH_CHECK_TYPE, CelPathCheck);
  defineOpaqueType(env, GROUP_CHECK_TYPE, CelGroupCheck);
  defineOpaqueType(env, RESOURCE_CHECK_TYPE, CelResourceCheck);
  // Opaque but for its one field, which upstream declares as the variable `authorizer.requestResource`.
  env.registerType(AUTHORIZER_TYPE, { ctor: CelAuthorizer, fields: { requestResource: RESOURCE_CHECK_TYPE } } as never);
  defineOpaqueType(env, DECISION_TYPE, CelDecision);
  const A = AUTHORIZER_TYPE;
  const R = RESOURCE_CHECK_TYPE;
  define(env, `${A}.path(string): ${PATH_CHECK_TYPE}`, (a: CelAuthorizer, p: string) => new CelPathCheck(a, p));
  define(env, `${A}.group(string): ${GROUP_CHECK_TYPE}`, (a: CelAuthorizer, g: string) => new CelGroupCheck(a, g));
  define(env, `${A}.serviceAccount(string, string): ${A}`, (a: CelAuthorizer, ns: string, name: string) =>
    a.as(serviceAccountUser(ns, name)),
  );
  define(
    env,
    `${GROUP_CHECK_TYPE}.resource(string): ${R}`,
    (g: CelGroupCheck, resource: string) =>
      new CelResourceCheck(g.authorizer, { group: g.group, resource, subresource: '', namespace: '', name: '' }),
  );
  define(env, `${R}.subresource(string): ${R}`, (r: CelResourceCheck, subresource: string) => r.with({ subresource }));
  define(env, `${R}.namespace(string): ${R}`, (r: CelResourceCheck, namespace: string) => r.with({ namespace }));
  define(env, `${R}.name(string): ${R}`, (r: CelResourceCheck, name: string) => r.with({ name }));
  define(env, `${R}.check(string): ${DECISION_TYPE}`, (r: CelResourceCheck, verb: string) => r.check(verb));
  define(env, `${PATH_CHECK_TYPE}.check(string): ${DECISION_TYPE}`, (p: CelPathCheck, verb: string) =>
    p.authorizer.decide({
      user: p.authorizer.user,
      verb,
      isResourceRequest: false,
      path: p.path,
      apiGroup: '',
      apiVersion: '',
      resource: '',
      subresource: '',
      namespace: '',
      name: '',
    }),
  );
  define(env, `${DECISION_TYPE}.allowed(): bool`, (d: CelDecision) => d.allowed);
  define(env, `${DECISION_TYPE}.reason(): string`, (d: CelDecision) => d.reason);
  define(env, `${DECISION_TYPE}.errored(): bool`, (d: CelDecision) => d.error !== '');
  define(env, `${DECISION_TYPE}.error(): string`, (d: CelDecision) => d.error);
}
