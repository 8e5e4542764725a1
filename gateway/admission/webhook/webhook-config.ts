// One webhook of a MutatingWebhookConfiguration or ValidatingWebhookConfiguration, read once per configuration
// generation from the stored object (plain JSON: the kinds are served elsewhere, this reads only what it needs) with
// upstream's defaults for a field left out, and its matchConditions compiled against the webhook CEL environment.
import type { KObject } from '../../../api/meta/types.js';
import { asArr, asObj, asStr, root } from '../../../api/common/validation-helpers.js';
import { fieldErrorMessage } from '../../../api/meta/field-errors.js';
import { compileWebhookMatchConditions, type NamedProgram } from '../admission-expressions.js';

export type WebhookType = 'mutating' | 'validating';

export const MUTATING_KIND = 'MutatingWebhookConfiguration';
export const VALIDATING_KIND = 'ValidatingWebhookConfiguration';

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
  matchConditions: NamedProgram[];
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
    const { conditions, errors } = compileWebhookMatchConditions(raw, root('webhooks').index(index));
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
      matchConditions: conditions,
      conditionError: errors.length > 0 ? errors.map(fieldErrorMessage).join(', ') : undefined,
    };
  });
}
