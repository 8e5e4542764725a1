// One webhook of a MutatingWebhookConfiguration or ValidatingWebhookConfiguration, read once per configuration
// generation from the stored object (plain JSON: the kinds are served elsewhere, this reads only what it needs) with
// upstream's defaults for a field left out, and its matchConditions compiled against the webhook CEL environment.
import type { KObject } from '../../../api/meta/types.js';
import { asArr, asObj, asStr } from '../../../api/common/validation-helpers.js';
import { AUTHORIZER_TYPE, CelCompileError, compileCel, type CelCompiledProgram } from '../../../policies/cel/index.js';
import { PER_CALL_LIMIT } from '../policy/compile-policy.js';

export type WebhookType = 'mutating' | 'validating';

export const MUTATING_KIND = 'MutatingWebhookConfiguration';
export const VALIDATING_KIND = 'ValidatingWebhookConfiguration';

/** Upstream's webhook CEL environment: no params and no namespaceObject, unlike a policy's. */
const CONDITION_VARIABLES: Record<string, string> = {
  object: 'dyn',
  oldObject: 'dyn',
  request: 'map<string, dyn>',
  authorizer: AUTHORIZER_TYPE,
};

export interface ServiceTarget {
  namespace: string;
  name: string;
  path: string;
  port: number;
}

export interface ClientConfig {
  url?: string;
  service?: ServiceTarget;
  /** PEM, decoded from the base64 field; the system roots without it. */
  caBundle?: Buffer;
}

export interface CompiledWebhook {
  /** Unique among the webhooks in force (`<configuration>/<index>`): reinvocation and the connection pools use it. */
  key: string;
  name: string;
  configurationName: string;
  type: WebhookType;
  rules: unknown[];
  equivalent: boolean;
  namespaceSelector: unknown;
  objectSelector: unknown;
  failurePolicy: 'Fail' | 'Ignore';
  sideEffects: string | undefined;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvokeIfNeeded: boolean;
  clientConfig: ClientConfig;
  /** The clientConfig as stored: a pool is kept while it does not change. */
  clientConfigText: string;
  matchConditions: { name: string; program: CelCompiledProgram }[];
  /** Why a matchCondition could not be compiled (the environment changed since the write): every call fails. */
  conditionError?: string;
}

function clientConfigOf(raw: unknown): ClientConfig {
  const c = asObj(raw) ?? {};
  const service = asObj(c.service);
  const caBundle = asStr(c.caBundle);
  return {
    url: asStr(c.url),
    service: service
      ? {
          namespace: asStr(service.namespace) ?? '',
          name: asStr(service.name) ?? '',
          path: asStr(service.path) ?? '',
          port: typeof service.port === 'number' ? service.port : 443,
        }
      : undefined,
    caBundle: caBundle ? Buffer.from(caBundle, 'base64') : undefined,
  };
}

export function compileWebhooks(config: KObject, type: WebhookType): CompiledWebhook[] {
  const configurationName = config.metadata.name ?? '';
  return asArr((config as Record<string, unknown>).webhooks).map((raw, index): CompiledWebhook => {
    const w = asObj(raw) ?? {};
    let conditionError: string | undefined;
    const matchConditions = asArr(w.matchConditions).flatMap((rawCondition) => {
      const condition = asObj(rawCondition) ?? {};
      const expression = asStr(condition.expression) ?? '';
      try {
        const program = compileCel(expression, {
          variables: CONDITION_VARIABLES,
          resultTypes: ['bool'],
          runtimeCostBudget: PER_CALL_LIMIT,
        });
        return [{ name: asStr(condition.name) ?? '', program }];
      } catch (e) {
        if (!(e instanceof CelCompileError)) throw e;
        conditionError ??= `compilation failed for expression '${expression}': ${e.message}`;
        return [];
      }
    });
    const timeout = w.timeoutSeconds;
    return {
      key: `${configurationName}/${index}`,
      name: asStr(w.name) ?? '',
      configurationName,
      type,
      rules: asArr(w.rules),
      equivalent: w.matchPolicy !== 'Exact',
      namespaceSelector: w.namespaceSelector,
      objectSelector: w.objectSelector,
      failurePolicy: w.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
      sideEffects: asStr(w.sideEffects),
      timeoutSeconds: typeof timeout === 'number' && timeout > 0 ? timeout : 10,
      admissionReviewVersions: asArr(w.admissionReviewVersions).map(String),
      reinvokeIfNeeded: type === 'mutating' && w.reinvocationPolicy === 'IfNeeded',
      clientConfig: clientConfigOf(w.clientConfig),
      clientConfigText: JSON.stringify(w.clientConfig ?? null),
      matchConditions,
      conditionError,
    };
  });
}
