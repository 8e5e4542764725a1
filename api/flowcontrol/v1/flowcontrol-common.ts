// What FlowSchema and PriorityLevelConfiguration share: the group names, the condition shape of their status, its
// rules, and the names upstream reserves (flowcontrol.apiserver.k8s.io/v1's types and
// pkg/apis/flowcontrol/validation).
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import type { JSONSchema } from '../../schema.js';
import { conditionStatus } from '../../common/object-meta.js';
import { mapList, named, obj, str, time } from '../../common/schema-builders.js';
import { asArr, asObj, asStr, root, statusOf } from '../../common/validation-helpers.js';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.platform.io';
export const FLOWCONTROL_GROUP_ALIASES = ['flowcontrol.apiserver.k8s.io'];
export const FLOWCONTROL_DEF = 'io.platform.api.flowcontrol.v1';

export const EXEMPT_NAME = 'exempt';
export const CATCH_ALL_NAME = 'catch-all';

/**
 * Our name for upstream's `apf.kubernetes.io/autoupdate-spec`: "true" lets the server keep a bootstrap object's spec
 * as it defines it, "false" leaves an edited one alone.
 */
export const AUTOUPDATE_SPEC_ANNOTATION = 'apf.platform.io/autoupdate-spec';

/** A kind's status: its conditions, merged by type. */
export function statusSchema(owner: string, description: string): JSONSchema {
  const conditions = mapList(
    named(
      `${FLOWCONTROL_DEF}.${owner}Condition`,
      obj(
        {
          type: str('`type` is the type of the condition. Required.'),
          status: conditionStatus('`status` is the status of the condition. Can be True, False, Unknown. Required.'),
          lastTransitionTime: time(
            '`lastTransitionTime` is the last time the condition transitioned from one status to another.',
          ),
          reason: str("`reason` is a unique, one-word, CamelCase reason for the condition's last transition."),
          message: str('`message` is a human-readable message indicating details about last transition.'),
        },
        `${owner}Condition describes conditions for a ${owner}.`,
      ),
    ),
    'type',
    `\`conditions\` is a list of the current states of ${owner}.`,
  );
  return obj({ conditions }, description);
}

/** Upstream's status rules: each condition has a type, and no type appears twice. */
export function validateConditions(o: KObject): FieldError[] {
  const at = root('status').child('conditions');
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  asArr(statusOf(o).conditions).forEach((raw, i) => {
    const type = asStr(asObj(raw)?.type) ?? '';
    if (type === '') errs.push(fieldErrors.required(at.index(i).child('type'), 'must not be empty'));
    else if (seen.has(type)) errs.push(fieldErrors.duplicate(at.index(i).child('type'), type));
    seen.add(type);
  });
  return errs;
}

/** Upstream's hasWildcard: `*` among the members. */
export const hasWildcard = (values: unknown[]): boolean => values.includes('*');
