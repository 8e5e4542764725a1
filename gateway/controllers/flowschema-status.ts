// Keeps each FlowSchema's Dangling condition, as upstream's APF configuration controller does: True (NotFound) while
// no PriorityLevelConfiguration of the name it references exists, False (Found) otherwise. A schema whose condition
// already says so is left alone, so replicas agree without writing over each other; lastTransitionTime moves only
// when the condition does.
import type { KObject } from '../../api/meta/types.js';
import { isStatusError } from '../../api/meta/errors.js';
import { asArr, asObj, asStr, specOf, statusOf } from '../../api/common/validation-helpers.js';
import { FLOWCONTROL_GROUP } from '../../api/flowcontrol/v1/flowcontrol-common.js';
import { DANGLING_CONDITION } from '../../api/flowcontrol/v1/flow-schema.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { realClock, type Clock } from '../server/clock.js';
import { startCachedReconciler } from './cached-reconciler.js';
import { startInformer } from './informer.js';
import type { Controller } from './namespace-lifecycle.js';

interface DanglingCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

const levelOf = (fs: KObject): string => asStr(asObj(specOf(fs).priorityLevelConfiguration)?.name) ?? '';

/** The condition the schema should carry, without its transition time; upstream's reasons and messages. */
export function wantedDangling(fs: KObject, levels: ReadonlySet<string>): DanglingCondition {
  const level = levelOf(fs);
  return levels.has(level)
    ? {
        type: DANGLING_CONDITION,
        status: 'False',
        reason: 'Found',
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" and it exists`,
      }
    : {
        type: DANGLING_CONDITION,
        status: 'True',
        reason: 'NotFound',
        message: `This FlowSchema references the PriorityLevelConfiguration object named "${level}" but there is no such object`,
      };
}

const currentDangling = (fs: KObject) =>
  asObj(asArr(statusOf(fs).conditions).find((c) => asObj(c)?.type === DANGLING_CONDITION));

/** The schema with its Dangling condition as wanted, or undefined when it already is. */
export function withDangling(fs: KObject, levels: ReadonlySet<string>, now: string): KObject | undefined {
  const want = wantedDangling(fs, levels);
  const have = currentDangling(fs);
  if (have && have.status === want.status && have.reason === want.reason && have.message === want.message)
    return undefined;
  // In the field order of upstream's FlowSchemaCondition.
  const next = {
    type: want.type,
    status: want.status,
    lastTransitionTime: have?.status === want.status ? asStr(have.lastTransitionTime) : now,
    reason: want.reason,
    message: want.message,
  };
  const status = statusOf(fs);
  const others = asArr(status.conditions).filter((c) => asObj(c)?.type !== DANGLING_CONDITION);
  return { ...fs, status: { ...status, conditions: [...others, next] } };
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function startFlowSchemaStatusController(
  registry: Registry,
  opts: { log: (line: string) => void; clock?: Clock; retryMs?: number },
): Controller {
  const schemas = registry.byKind(FLOWCONTROL_GROUP, 'FlowSchema');
  const levelStore = registry.byKind(FLOWCONTROL_GROUP, 'PriorityLevelConfiguration');
  if (!schemas || !levelStore) return { async stop() {} };
  const clock = opts.clock ?? realClock;
  const levels = new Set<string>();
  // The schemas are judged only against a complete list of levels: one judged early would flip to Dangling and back.
  const levelInformer = startInformer(
    levelStore,
    {
      replace(list) {
        levels.clear();
        for (const l of list) levels.add(l.metadata.name ?? '');
        reconciler.requeue();
      },
      put(l) {
        if (levels.has(l.metadata.name ?? '')) return;
        levels.add(l.metadata.name ?? '');
        reconciler.requeue();
      },
      removed(l) {
        levels.delete(l.metadata.name ?? '');
        reconciler.requeue();
      },
    },
    { log: opts.log },
  );
  const reconciler = startCachedReconciler(
    schemas,
    async (objects, stopped) => {
      await levelInformer.synced;
      let ok = true;
      for (const [name, fs] of objects) {
        if (stopped()) break;
        if (!withDangling(fs, levels, '')) continue;
        try {
          const now = rfc3339(clock.now());
          await schemas.patch(
            '',
            name,
            (fresh) => withDangling(fresh, levels, now) ?? fresh,
            internalWrite(),
            'status',
          );
        } catch (e) {
          if (isStatusError(e) && e.code === 404) continue;
          opts.log(`error: flowschema status: writing the status of FlowSchema ${name}: ${(e as Error).message}`);
          ok = false;
        }
      }
      return ok;
    },
    { log: opts.log, retryMs: opts.retryMs ?? 1000 },
  );
  return {
    async stop() {
      await reconciler.stop();
      await levelInformer.stop();
    },
  };
}
