// The mandatory configuration objects (api/flowcontrol/v1/bootstrap-configuration.ts): the `exempt` level and
// schema that let system:masters through whatever else is configured, and the `catch-all` pair that classifies what
// no other schema does. The dispatcher falls back to these whenever the configuration it is given lacks them, as
// upstream's controller does, so that classification always ends somewhere: before the bootstrap controller has
// stored them, when they are deleted until it stores them again, and on a server that does not serve the kinds.
import { randomUUID } from 'node:crypto';
import { cloneJson } from '../../api/meta/clone.js';
import { CATCH_ALL_NAME, EXEMPT_NAME } from '../../api/flowcontrol/v1/flowcontrol-common.js';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from '../../api/flowcontrol/v1/bootstrap-configuration.js';
import type { FlowSchemaObject, PriorityLevelObject } from './types.js';

export const EXEMPT = EXEMPT_NAME;
export const CATCH_ALL = CATCH_ALL_NAME;

/** Fresh copies with uids of their own: a server's built-in objects are its own, as stored ones are. */
export function mandatoryConfiguration(): { schemas: FlowSchemaObject[]; levels: PriorityLevelObject[] } {
  const withUid = <T>(obj: unknown): T => {
    const copy = cloneJson(obj) as { metadata: { uid?: string } };
    copy.metadata.uid = randomUUID();
    return copy as T;
  };
  return {
    schemas: MANDATORY_FLOW_SCHEMAS.map((o) => withUid<FlowSchemaObject>(o)),
    levels: MANDATORY_PRIORITY_LEVELS.map((o) => withUid<PriorityLevelObject>(o)),
  };
}
