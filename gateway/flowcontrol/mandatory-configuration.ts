// upstream's mandatory configuration objects (apiserver/pkg/apis/flowcontrol/bootstrap): the `exempt` level and
// schema that let system:masters through whatever else is configured, and the `catch-all` pair that classifies what
// no other schema does. The dispatcher falls back to these whenever the configuration it is given lacks them, as
// upstream's controller does, so that classification always ends somewhere.
import { randomUUID } from 'node:crypto';
import type { FlowSchemaObject, PriorityLevelObject } from './types.js';

export const EXEMPT = 'exempt';
export const CATCH_ALL = 'catch-all';

const EVERYTHING = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

/** Fresh objects each call, with uids of their own (a server's built-in objects are its own, as stored ones are). */
export function mandatoryConfiguration(): { schemas: FlowSchemaObject[]; levels: PriorityLevelObject[] } {
  return {
    levels: [
      {
        metadata: { name: EXEMPT, uid: randomUUID() },
        spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
      },
      {
        metadata: { name: CATCH_ALL, uid: randomUUID() },
        spec: {
          type: 'Limited',
          limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } },
        },
      },
    ],
    schemas: [
      {
        metadata: { name: EXEMPT, uid: randomUUID() },
        spec: {
          priorityLevelConfiguration: { name: EXEMPT },
          matchingPrecedence: 1,
          rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:masters' } }], ...EVERYTHING }],
        },
      },
      {
        metadata: { name: CATCH_ALL, uid: randomUUID() },
        spec: {
          priorityLevelConfiguration: { name: CATCH_ALL },
          matchingPrecedence: 10000,
          distinguisherMethod: { type: 'ByUser' },
          rules: [
            {
              subjects: [
                { kind: 'Group', group: { name: 'system:unauthenticated' } },
                { kind: 'Group', group: { name: 'system:authenticated' } },
              ],
              ...EVERYTHING,
            },
          ],
        },
      },
    ],
  };
}
