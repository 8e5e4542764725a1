// Conversion Webhook: a definition's objects converted between its versions by the webhook its spec.conversion names,
// as apiextensions-apiserver's webhook converter does it. Objects already in the version asked for are not sent; a
// list goes in one review; the answer must hold as many objects as were sent, each in the version asked for, of the
// same kind, name, namespace and uid, and of its metadata only labels and annotations may change (the rest is put back
// from the original). Calls go through the admission webhooks' client (keep-alive pools, caBundle, services through
// the aggregator's resolver), with upstream's 30 second timeout.
import { randomUUID } from 'node:crypto';
import type { ServedDefinition } from '../../api/apiextensions/v1/crd-types.js';
import type { VersionConverter } from '../../api/apiextensions/v1/custom-kinds.js';
import { asObj } from '../../api/common/validation-helpers.js';
import { fieldErrorMessage, FieldPath, type FieldError } from '../../api/meta/field-errors.js';
import { StatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { validateAnnotations, validateLabels } from '../../api/meta/validation.js';
import { createWebhookClient, WebhookCallError, type WebhookEndpoint } from '../admission/webhook/webhook-client.js';
import type { AdmissionReviewGroup } from '../admission/webhook/admission-review.js';
import type { ServiceResolver } from '../aggregator/service-resolver.js';
import type { Clock } from '../server/clock.js';
import type { ConversionFailureType, ConversionMetrics } from './conversion-metrics.js';
import { conversionReviewVersionOf, convertedObjectsOf, encodeConversionReview, gvkText } from './conversion-review.js';

/** Upstream's timeout for conversion webhooks, which have no timeoutSeconds of their own. */
export const CONVERSION_TIMEOUT_SECONDS = 30;

export interface ConversionWebhooks {
  /** The converter of a definition whose strategy is Webhook; undefined for None. */
  converterOf(served: ServedDefinition): VersionConverter | undefined;
  /** Drops the connection pools of definitions (by name) no longer served. */
  retain(names: ReadonlySet<string>): void;
  close(): void;
}

export interface ConversionWebhookOptions {
  resolver: () => ServiceResolver | undefined;
  clock: Clock;
  reviewGroup: AdmissionReviewGroup;
  metrics?: ConversionMetrics;
  timeoutSeconds?: number;
}

/**
 * A conversion failure as upstream answers it: a 500 whose reason is left empty (its converter's errors are plain
 * errors, which become StatusReasonUnknown), the message as the converter wrote it.
 */
export const conversionFailure = (message: string): StatusError => new StatusError(500, '', message);

class ConversionError extends Error {
  constructor(
    message: string,
    readonly failure: ConversionFailureType,
  ) {
    super(message);
  }
}

/** The prefixes of a converted object's problems: upstream words them differently for a list and by check. */
interface ProblemWords {
  object: string;
  type: string;
  identity: string;
  metadata: string;
}

function endpointOf(served: ServedDefinition, timeoutSeconds: number): WebhookEndpoint | undefined {
  if (served.conversion.strategy !== 'Webhook') return undefined;
  const { url, service, caBundle } = served.conversion.clientConfig;
  return {
    key: served.name,
    clientConfig: {
      url,
      service: service && { ...service, path: service.path ?? '' },
      caBundle: caBundle ? Buffer.from(caBundle, 'base64') : undefined,
    },
    clientConfigText: JSON.stringify(served.conversion.clientConfig),
    timeoutSeconds,
  };
}

const metadataOf = (obj: unknown): Record<string, unknown> | undefined => asObj(asObj(obj)?.metadata);

/** Upstream's validateConvertedObject: the identity the webhook may not change. */
function identityProblem(original: KObject, converted: Record<string, unknown>): string | undefined {
  const meta = metadataOf(converted) ?? {};
  const checks: [string, unknown, unknown][] = [
    ['kind', original.kind, converted.kind],
    ['name', original.metadata.name, meta.name],
    ['namespace', original.metadata.namespace, meta.namespace],
    ['UID', original.metadata.uid, meta.uid],
  ];
  for (const [what, expected, got] of checks)
    if ((expected ?? '') !== (got ?? ''))
      return `must have the same ${what}: ${String(expected ?? '')} != ${String(got ?? '')}`;
  return undefined;
}

const aggregate = (errs: FieldError[]): string =>
  errs.length === 1 ? fieldErrorMessage(errs[0]) : `[${errs.map(fieldErrorMessage).join(', ')}]`;

/**
 * Upstream's restoreObjectMeta: the original's metadata with the converted labels and annotations (validated when
 * changed; left out when the webhook left them out). Throws with the problem.
 */
function restoredMetadata(original: KObject, converted: Record<string, unknown>): KObject {
  const answered = converted.metadata;
  if (answered === undefined) throw new Error('missing metadata in converted object');
  const meta = asObj(answered);
  if (!meta) throw new Error(`invalid metadata of type ${typeof answered} in converted object`);
  const restored = structuredClone(original.metadata) as Record<string, unknown>;
  for (const field of ['labels', 'annotations'] as const) {
    const value = meta[field];
    if (value === undefined || value === null) {
      delete restored[field];
      continue;
    }
    const map = asObj(value);
    if (!map) throw new Error(`invalid metadata.${field} of type ${typeof value} in converted object`);
    for (const [key, v] of Object.entries(map))
      if (typeof v !== 'string')
        throw new Error(`metadata.${field}[${key}] must be a string, but is ${typeof v} in converted object`);
    const before = original.metadata[field] ?? {};
    const changed =
      Object.keys(before).length !== Object.keys(map).length || Object.entries(map).some(([k, v]) => before[k] !== v);
    if (changed) {
      // Upstream names the annotations' path in the singular.
      const errs =
        field === 'labels'
          ? validateLabels(map, FieldPath.root('metadata').child('labels'))
          : validateAnnotations(map, FieldPath.root('metadata').child('annotation'));
      if (errs.length > 0) throw new Error(aggregate(errs));
    }
    restored[field] = map;
  }
  return { ...converted, metadata: restored };
}

export function createConversionWebhooks(opts: ConversionWebhookOptions): ConversionWebhooks {
  const client = createWebhookClient({ resolver: opts.resolver, clock: opts.clock });
  const timeoutSeconds = opts.timeoutSeconds ?? CONVERSION_TIMEOUT_SECONDS;

  function converterOf(served: ServedDefinition): VersionConverter | undefined {
    const endpoint = endpointOf(served, timeoutSeconds);
    if (!endpoint || served.conversion.strategy !== 'Webhook') return undefined;
    const reviewVersions = served.conversion.reviewVersions;
    const listText = (objects: readonly KObject[]) =>
      gvkText(objects[0]?.apiVersion ?? `${served.group}/${served.storageVersion}`, `${served.names.kind}List`);

    /** The webhook's converted objects for `sent`, checked as a review answer; throws a ConversionError. */
    async function answerTo(
      sent: readonly KObject[],
      desiredAPIVersion: string,
      described: string,
    ): Promise<unknown[]> {
      const version = conversionReviewVersionOf(reviewVersions);
      if (!version)
        throw new ConversionError('no supported conversion review versions', 'conversion_webhook_call_failure');
      const uid = randomUUID();
      const body = encodeConversionReview(opts.reviewGroup, version, { uid, desiredAPIVersion, objects: sent });
      let answer: unknown;
      try {
        answer = await client.post(endpoint!, body);
      } catch (e) {
        const why = e instanceof WebhookCallError ? e.message : (e as Error).message;
        throw new ConversionError(
          `conversion webhook for ${described} failed: ${why}`,
          'conversion_webhook_call_failure',
        );
      }
      let converted: unknown[];
      try {
        converted = convertedObjectsOf(answer, { group: opts.reviewGroup, version, uid });
      } catch (e) {
        throw new ConversionError(
          `conversion webhook for ${described} failed: ${(e as Error).message}`,
          'conversion_webhook_malformed_response_failure',
        );
      }
      if (converted.length !== sent.length)
        throw new ConversionError(
          `conversion webhook for ${described} returned ${converted.length} objects, expected ${sent.length}`,
          'conversion_webhook_partial_response_failure',
        );
      return converted;
    }

    /** One call, its answer read by `read` (which checks the converted objects), counted by how it ended. */
    async function call<T>(
      sent: readonly KObject[],
      desiredAPIVersion: string,
      described: string,
      read: (converted: unknown[]) => T,
    ): Promise<T> {
      const started = performance.now();
      const observe = (failure?: ConversionFailureType) =>
        opts.metrics?.observeCall((performance.now() - started) / 1000, failure);
      try {
        const result = read(await answerTo(sent, desiredAPIVersion, described));
        observe();
        return result;
      } catch (e) {
        if (e instanceof ConversionError) observe(e.failure);
        throw e;
      }
    }

    /** One converted object checked against its original, each problem prefixed as upstream words it there. */
    function checked(original: KObject, raw: unknown, desired: string, words: ProblemWords): KObject {
      const converted = asObj(raw);
      const invalid = (prefix: string, why: string) =>
        new ConversionError(`${prefix}: ${why}`, 'conversion_webhook_invalid_converted_object_failure');
      if (!converted) throw invalid(words.object, 'the converted object is not a JSON object');
      const got = typeof converted.apiVersion === 'string' ? converted.apiVersion : '';
      if (got !== desired) throw invalid(words.type, `invalid groupVersion (expected ${desired}, received ${got})`);
      if (converted.kind !== original.kind)
        throw invalid(words.type, `invalid kind (expected ${original.kind}, received ${String(converted.kind ?? '')})`);
      const problem = identityProblem(original, converted);
      if (problem) throw invalid(words.identity, problem);
      try {
        return restoredMetadata(original, converted);
      } catch (e) {
        throw invalid(words.metadata, (e as Error).message);
      }
    }

    async function timed<T>(from: string, to: string, convert: () => Promise<T>): Promise<T> {
      const started = performance.now();
      const version = (apiVersion: string) => apiVersion.slice(apiVersion.indexOf('/') + 1);
      let succeeded = false;
      try {
        const result = await convert();
        succeeded = true;
        return result;
      } catch (e) {
        throw e instanceof ConversionError ? conversionFailure(e.message) : e;
      } finally {
        if (from !== to)
          opts.metrics?.observeConversion(
            served.name,
            version(from),
            version(to),
            succeeded,
            (performance.now() - started) / 1000,
          );
      }
    }

    return {
      one(obj, apiVersion) {
        if (obj.apiVersion === apiVersion) return Promise.resolve(obj);
        const from = obj.apiVersion ?? '';
        return timed(from, apiVersion, async () => {
          const described = gvkText(from, obj.kind ?? '');
          const returned = `conversion webhook for ${described} returned`;
          return call([obj], apiVersion, described, ([raw]) =>
            checked(obj, raw, apiVersion, {
              object: returned,
              type: `${returned} invalid object at index 0`,
              identity: `${returned} invalid object`,
              metadata: `${returned} invalid metadata`,
            }),
          );
        });
      },
      list(objects, apiVersion) {
        const sent = objects.filter((obj) => obj.apiVersion !== apiVersion);
        if (sent.length === 0) return Promise.resolve([...objects]);
        const from = `${served.group}/${served.storageVersion}`;
        return timed(from, apiVersion, async () => {
          const described = listText(objects);
          return call(sent, apiVersion, described, (converted) => {
            let index = 0;
            return objects.map((obj) => {
              if (obj.apiVersion === apiVersion) return obj;
              const raw = converted[index];
              // Upstream counts the object before checking it: its messages name the position after it.
              index++;
              const returned = `conversion webhook for ${described} returned`;
              return checked(obj, raw, apiVersion, {
                object: `${returned} invalid converted object at index ${index - 1}`,
                type: `${returned} invalid converted object at index ${index}`,
                identity: `${returned} invalid converted object at index ${index}`,
                metadata: `${returned} invalid metadata in object at index ${index}`,
              });
            });
          });
        });
      },
    };
  }

  return {
    converterOf,
    retain: (names) => client.retain(names),
    close: () => client.close(),
  };
}
