// PriorityLevelConfiguration: a priority level's share of the server's concurrency, what it may lend and borrow, and
// whether requests beyond it queue (shuffle-sharded) or are rejected. Fields, defaults, rules, columns and wire form
// are flowcontrol.apiserver.k8s.io/v1's.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { canonicalJson } from '../../meta/canonical-json.js';
import { kindSchema } from '../../common/object-meta.js';
import { describe, enumStr, int32, named, obj } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asObj, asStr, type Obj, root, specOf } from '../../common/validation-helpers.js';
import { ageColumn, column } from '../../common/printers.js';
import {
  EXEMPT_NAME,
  FLOWCONTROL_DEF,
  FLOWCONTROL_GROUP,
  FLOWCONTROL_GROUP_ALIASES,
  statusSchema,
  validateConditions,
} from './flowcontrol-common.js';
import { MANDATORY_PRIORITY_LEVELS } from './bootstrap-configuration.js';

export const LEVEL_TYPES = ['Exempt', 'Limited'];
export const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];
export const DEFAULT_NOMINAL_CONCURRENCY_SHARES = 30;
export const DEFAULT_QUEUES = 64;
export const DEFAULT_HAND_SIZE = 8;
export const DEFAULT_QUEUE_LENGTH_LIMIT = 50;
const MAX_QUEUES = 10_000_000;
/** Bits of a flow's hash the shuffle-sharding dealer may consume (upstream's shufflesharding.MaxHashBits). */
export const MAX_HASH_BITS = 60;

/** Bits of hash a hand of handSize cards out of a deck of deckSize needs (upstream's RequiredEntropyBits). */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

const LENDABLE_HELP =
  "`lendablePercent` prescribes the fraction of the level's NominalCL that can be borrowed by other priority levels. The value of this field must be between 0 and 100, inclusive, and it defaults to 0.";

const queuingSchema = named(
  `${FLOWCONTROL_DEF}.QueuingConfiguration`,
  obj(
    {
      queues: int32('`queues` is the number of queues for this priority level. This field has a default value of 64.'),
      handSize: int32(
        '`handSize` is a small positive number that configures the shuffle sharding of requests into queues. `handSize` must be no larger than `queues`. This field has a default value of 8.',
      ),
      queueLengthLimit: int32(
        '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time. This value must be positive. If not specified, it will be defaulted to 50.',
      ),
    },
    'QueuingConfiguration holds the configuration parameters for queuing',
  ),
);

const specSchema = obj(
  {
    type: enumStr(
      LEVEL_TYPES,
      '`type` indicates whether this priority level is subject to limitation on request execution. Required.',
    ),
    limited: named(
      `${FLOWCONTROL_DEF}.LimitedPriorityLevelConfiguration`,
      obj(
        {
          nominalConcurrencyShares: int32(
            '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. If not specified, this field defaults to a value of 30. Setting this field to zero supports the construction of a "jail" for this priority level that is used to hold some request(s).',
          ),
          limitResponse: named(
            `${FLOWCONTROL_DEF}.LimitResponse`,
            obj(
              {
                type: enumStr(LIMIT_RESPONSE_TYPES, '`type` is "Queue" or "Reject". Required.'),
                queuing: describe(
                  queuingSchema,
                  '`queuing` holds the configuration parameters for queuing. This field may be non-empty only if `type` is `"Queue"`.',
                ),
              },
              'LimitResponse defines how to handle requests that can not be executed right now.',
              ['type'],
            ),
          ),
          lendablePercent: int32(LENDABLE_HELP),
          borrowingLimitPercent: int32(
            '`borrowingLimitPercent`, if present, configures a limit on how many seats this priority level can borrow from other priority levels, as a percentage of its NominalCL. When left `nil`, the limit is effectively infinite.',
          ),
        },
        'LimitedPriorityLevelConfiguration specifies how to handle requests that are subject to limits.',
      ),
    ),
    exempt: named(
      `${FLOWCONTROL_DEF}.ExemptPriorityLevelConfiguration`,
      obj(
        {
          nominalConcurrencyShares: int32(
            '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This field has a default value of zero.',
          ),
          lendablePercent: int32(LENDABLE_HELP),
        },
        'ExemptPriorityLevelConfiguration describes the configurable aspects of the handling of exempt requests. In the mandatory exempt configuration object the values in the fields here can be modified by authorized users, unlike the rest of the `spec`.',
      ),
    ),
  },
  'PriorityLevelConfigurationSpec specifies the configuration of a priority level.',
  ['type'],
);

const isPercent = (v: unknown) => typeof v !== 'number' || (v >= 0 && v <= 100);

function validateQueuing(q: Obj, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const queues = typeof q.queues === 'number' ? q.queues : 0;
  const handSize = typeof q.handSize === 'number' ? q.handSize : 0;
  const queueLengthLimit = typeof q.queueLengthLimit === 'number' ? q.queueLengthLimit : 0;
  if (queueLengthLimit <= 0)
    errs.push(fieldErrors.invalid(at.child('queueLengthLimit'), queueLengthLimit, 'must be positive'));
  if (queues <= 0) errs.push(fieldErrors.invalid(at.child('queues'), queues, 'must be positive'));
  else if (queues > MAX_QUEUES)
    errs.push(fieldErrors.invalid(at.child('queues'), queues, `must not be greater than ${MAX_QUEUES}`));
  const handAt = at.child('handSize');
  if (handSize <= 0) errs.push(fieldErrors.invalid(handAt, handSize, 'must be positive'));
  else if (handSize > queues)
    errs.push(fieldErrors.invalid(handAt, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS)
    errs.push(
      fieldErrors.invalid(
        handAt,
        handSize,
        `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`,
      ),
    );
  return errs;
}

function validateLimitResponse(lr: Obj, at: FieldPath): FieldError[] {
  const queuing = asObj(lr.queuing);
  switch (lr.type) {
    case 'Reject':
      return queuing
        ? [fieldErrors.forbidden(at.child('queuing'), 'must be nil if limited.limitResponse.type is not Limited')]
        : [];
    case 'Queue':
      return queuing
        ? validateQueuing(queuing, at.child('queuing'))
        : [fieldErrors.required(at.child('queuing'), 'must not be empty if limited.limitResponse.type is Limited')];
    default:
      return [fieldErrors.notSupported(at.child('type'), lr.type ?? '', LIMIT_RESPONSE_TYPES)];
  }
}

function validateLimited(limited: Obj, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  // v1 allows 0 (a level that holds requests without running them); earlier versions wanted a positive number.
  const shares = limited.nominalConcurrencyShares;
  if (typeof shares === 'number' && shares < 0)
    errs.push(fieldErrors.invalid(at.child('nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
  errs.push(...validateLimitResponse(asObj(limited.limitResponse) ?? {}, at.child('limitResponse')));
  if (!isPercent(limited.lendablePercent))
    errs.push(
      fieldErrors.invalid(at.child('lendablePercent'), limited.lendablePercent, 'must be between 0 and 100, inclusive'),
    );
  const borrowing = limited.borrowingLimitPercent;
  if (typeof borrowing === 'number' && borrowing < 0)
    errs.push(
      fieldErrors.invalid(at.child('borrowingLimitPercent'), borrowing, 'if specified, must be a non-negative integer'),
    );
  return errs;
}

function validateExempt(exempt: Obj, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const shares = exempt.nominalConcurrencyShares;
  if (typeof shares === 'number' && shares < 0)
    errs.push(fieldErrors.invalid(at.child('nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
  if (!isPercent(exempt.lendablePercent))
    errs.push(
      fieldErrors.invalid(at.child('lendablePercent'), exempt.lendablePercent, 'must be between 0 and 100, inclusive'),
    );
  return errs;
}

function validateSpec(name: string, spec: Obj): FieldError[] {
  const at = root('spec');
  const errs: FieldError[] = [];
  if ((name === EXEMPT_NAME) !== (spec.type === 'Exempt'))
    errs.push(
      fieldErrors.invalid(at.child('type'), spec.type ?? '', "type must be 'Exempt' if and only if name is 'exempt'"),
    );
  const limited = asObj(spec.limited);
  const exempt = asObj(spec.exempt);
  switch (spec.type) {
    case 'Exempt':
      if (limited) errs.push(fieldErrors.forbidden(at.child('limited'), 'must be nil if the type is not Limited'));
      if (exempt) errs.push(...validateExempt(exempt, at.child('exempt')));
      break;
    case 'Limited':
      if (exempt) errs.push(fieldErrors.forbidden(at.child('exempt'), 'must be nil if the type is Limited'));
      if (limited) errs.push(...validateLimited(limited, at.child('limited')));
      else errs.push(fieldErrors.required(at.child('limited'), 'must not be empty when type is Limited'));
      break;
    default:
      errs.push(fieldErrors.notSupported(at.child('type'), spec.type ?? '', LEVEL_TYPES));
  }
  return errs;
}

/**
 * The mandatory levels keep their fixed spec; in `exempt` only the `exempt` section (its shares and lending) is the
 * administrator's to change, as upstream allows.
 */
function validateMandatory(pl: KObject): FieldError[] {
  const name = pl.metadata.name ?? '';
  const mandatory = MANDATORY_PRIORITY_LEVELS.find((m) => m.metadata.name === name);
  if (!mandatory) return [];
  const want = defaultedSpec(mandatory);
  const have = { ...specOf(pl) };
  if (name === EXEMPT_NAME) {
    if (want.exempt === undefined) delete have.exempt;
    else have.exempt = want.exempt;
  }
  if (canonicalJson(have) === canonicalJson(want)) return [];
  const detail =
    name === EXEMPT_NAME
      ? `spec of '${name}' except the 'spec.exempt' field must equal the fixed value`
      : `spec of '${name}' must equal the fixed value`;
  return [fieldErrors.invalid(root('spec'), pl.spec, detail)];
}

function validateLevel(pl: KObject): FieldError[] {
  return [
    ...validateMetadata(pl, false, 'subdomain'),
    ...validateSpec(pl.metadata.name ?? '', specOf(pl)),
    ...validateMandatory(pl),
    ...validateConditions(pl),
  ];
}

/** v1's pointers: an absent field takes its default, an explicit 0 stays 0 (shares 0 is a "jail" level). */
function defaults(pl: KObject): void {
  const spec = asObj(pl.spec);
  if (!spec) return;
  const limited = asObj(spec.limited);
  if (limited) {
    limited.nominalConcurrencyShares ??= DEFAULT_NOMINAL_CONCURRENCY_SHARES;
    limited.lendablePercent ??= 0;
    const queuing = asObj(asObj(limited.limitResponse)?.queuing);
    // These are plain int32s upstream: 0 means unset.
    if (queuing) {
      if (!queuing.queues) queuing.queues = DEFAULT_QUEUES;
      if (!queuing.handSize) queuing.handSize = DEFAULT_HAND_SIZE;
      if (!queuing.queueLengthLimit) queuing.queueLengthLimit = DEFAULT_QUEUE_LENGTH_LIMIT;
    }
  }
  const exempt = asObj(spec.exempt);
  if (exempt) {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
}

function defaultedSpec(pl: KObject): Obj {
  const copy = structuredClone(pl);
  defaults(copy);
  return specOf(copy);
}

const limitedOf = (pl: KObject): Obj | undefined => asObj(specOf(pl).limited);
const queuingOf = (pl: KObject): Obj | undefined => asObj(asObj(limitedOf(pl)?.limitResponse)?.queuing);
/** A cell of the queuing configuration, `<none>` for a level that does not queue (as upstream prints it). */
const queuingCell = (field: string) => (pl: KObject) => queuingOf(pl)?.[field] ?? '<none>';

export const priorityLevelConfiguration: KindDefinition = {
  group: FLOWCONTROL_GROUP,
  version: 'v1',
  kind: 'PriorityLevelConfiguration',
  resource: 'prioritylevelconfigurations',
  singular: 'prioritylevelconfiguration',
  namespaced: false,
  groupAliases: FLOWCONTROL_GROUP_ALIASES,
  statusSubresource: true,
  tracksGeneration: true,
  schema: kindSchema({
    group: FLOWCONTROL_GROUP,
    version: 'v1',
    kind: 'PriorityLevelConfiguration',
    description: 'PriorityLevelConfiguration represents the configuration of a priority level.',
    properties: {
      spec: describe(specSchema, '`spec` is the specification of the desired behavior of a "request-priority".'),
      status: statusSchema(
        'PriorityLevelConfiguration',
        'PriorityLevelConfigurationStatus represents the current state of a "request-priority".',
      ),
    },
  }),
  defaults,
  validate: validateLevel,
  validateStatusUpdate: (pl) => validateConditions(pl),
  tableColumns: [
    column(
      'Type',
      '`type` indicates whether this priority level is subject to limitation on request execution.',
      (pl) => asStr(specOf(pl).type) ?? '',
    ),
    column(
      'NominalConcurrencyShares',
      '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.',
      (pl) => limitedOf(pl)?.nominalConcurrencyShares ?? '<none>',
    ),
    column('Queues', '`queues` is the number of queues for this priority level.', queuingCell('queues')),
    column(
      'HandSize',
      '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.',
      queuingCell('handSize'),
    ),
    column(
      'QueueLengthLimit',
      '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time.',
      queuingCell('queueLengthLimit'),
    ),
    ageColumn,
  ],
};
