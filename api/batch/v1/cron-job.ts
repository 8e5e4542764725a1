// CronJob: runs a job template on a schedule. Gatehouse stores and validates it; the job template beyond its
// outline is kept as sent (batch Jobs are not served here).
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema, objectMetaSchema, objectReferenceSchema } from '../../common/object-meta.js';
import { arr, bool, describe, enumStr, int32, int64, obj, preserved, str, time } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { applySchemaDefaults } from '../../common/defaulting.js';
import { asArr, asObj, asStr, nonNegative, root, specOf } from '../../common/validation-helpers.js';
import { isKnownTimeZone, scheduleProblems } from './cron-schedule.js';
import {
  ageColumn,
  ageOf,
  boolText,
  column,
  integerColumn,
  pathOf,
  podTemplateWideColumns,
} from '../../common/printers.js';

const POLICIES = ['Allow', 'Forbid', 'Replace'];
/** Job names get an 11-character suffix and must stay DNS labels (63). */
const MAX_NAME_LENGTH = 52;

const schema = kindSchema({
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  description: 'CronJob represents the configuration of a single cron job.',
  properties: {
    spec: obj(
      {
        schedule: str(
          'The schedule in Cron format (five fields, or a macro such as @hourly); see https://en.wikipedia.org/wiki/Cron.',
        ),
        timeZone: str(
          'The time zone name for the given schedule, from the time-zone database. Defaults to the zone of the controller manager process.',
        ),
        startingDeadlineSeconds: int64(
          'Optional deadline in seconds for starting the job if it misses its scheduled time; missed runs count as failed.',
        ),
        concurrencyPolicy: enumStr(
          POLICIES,
          'How to treat concurrent executions: Allow (default), Forbid (skip the next run if the previous has not finished), Replace (cancel the running job and start a new one).',
          { default: 'Allow' },
        ),
        suspend: bool(
          'Tells the controller to suspend subsequent executions; does not apply to already started executions. Defaults to false.',
          { default: false },
        ),
        jobTemplate: obj(
          {
            metadata: describe(objectMetaSchema, "Standard object's metadata of the jobs created from this template."),
            spec: preserved('Specification of the desired behavior of the job; kept as sent.'),
          },
          'Specifies the job that will be created when executing a CronJob.',
        ),
        successfulJobsHistoryLimit: int32(
          'The number of successful finished jobs to retain. Non-negative; defaults to 3.',
          { default: 3 },
        ),
        failedJobsHistoryLimit: int32('The number of failed finished jobs to retain. Non-negative; defaults to 1.', {
          default: 1,
        }),
      },
      'Specification of the desired behavior of a cron job, including the schedule.',
      ['schedule', 'jobTemplate'],
    ),
    status: obj(
      {
        active: arr(
          describe(objectReferenceSchema, 'A running job.'),
          'A list of pointers to currently running jobs.',
          'atomic',
        ),
        lastScheduleTime: time('Information when was the last time the job was successfully scheduled.'),
        lastSuccessfulTime: time('Information when was the last time the job successfully completed.'),
      },
      'Current status of a cron job.',
    ),
  },
});

function validateCronJob(obj: KObject): FieldError[] {
  const spec = specOf(obj);
  const at = root('spec');
  const errs = validateMetadata(obj, true, 'subdomain');
  const name = asStr(obj.metadata?.name);
  if (name && name.length > MAX_NAME_LENGTH)
    errs.push(fieldErrors.invalid('metadata.name', name, `must be no more than ${MAX_NAME_LENGTH} characters`));
  const schedule = asStr(spec.schedule);
  if (!schedule) errs.push(fieldErrors.required(at.child('schedule')));
  else for (const p of scheduleProblems(schedule)) errs.push(fieldErrors.invalid(at.child('schedule'), schedule, p));
  const tz = spec.timeZone;
  if (typeof tz === 'string') {
    if (tz === '') errs.push(fieldErrors.invalid(at.child('timeZone'), tz, 'timeZone must be nil or non-empty string'));
    else if (tz.toLowerCase() === 'local')
      errs.push(
        fieldErrors.invalid(
          at.child('timeZone'),
          tz,
          'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
        ),
      );
    else if (!isKnownTimeZone(tz)) errs.push(fieldErrors.invalid(at.child('timeZone'), tz, `unknown time zone ${tz}`));
  }
  const policy = asStr(spec.concurrencyPolicy);
  if (policy !== undefined && !POLICIES.includes(policy))
    errs.push(fieldErrors.notSupported(at.child('concurrencyPolicy'), policy, POLICIES));
  errs.push(
    ...nonNegative(spec, ['startingDeadlineSeconds', 'successfulJobsHistoryLimit', 'failedJobsHistoryLimit'], at),
  );
  if (!asObj(spec.jobTemplate)) errs.push(fieldErrors.required(at.child('jobTemplate')));
  return errs;
}

export const cronJob: KindDefinition = {
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  resource: 'cronjobs',
  singular: 'cronjob',
  namespaced: true,
  shortNames: ['cj'],
  categories: ['all'],
  statusSubresource: true,
  tracksGeneration: true,
  schema,
  defaults: (obj) => applySchemaDefaults(schema, obj),
  validate: validateCronJob,
  tableColumns: [
    column('Schedule', 'The schedule in Cron format.', (obj) => asStr(pathOf(obj, 'spec', 'schedule')) ?? ''),
    column(
      'Timezone',
      'The time zone name for the given schedule.',
      (obj) => asStr(pathOf(obj, 'spec', 'timeZone')) ?? '<none>',
    ),
    // Upstream declares a boolean column yet fills it with text: True, False, or <unset> when absent.
    {
      name: 'Suspend',
      type: 'boolean',
      priority: 0,
      description: 'Tells the controller to suspend subsequent executions.',
      cell: (obj) => boolText(pathOf(obj, 'spec', 'suspend')),
    },
    integerColumn(
      'Active',
      'A list of pointers to currently running jobs.',
      (obj) => asArr(pathOf(obj, 'status', 'active')).length,
    ),
    column('Last Schedule', 'Information when was the last time the job was successfully scheduled.', (obj) =>
      pathOf(obj, 'status', 'lastScheduleTime') ? ageOf(pathOf(obj, 'status', 'lastScheduleTime')) : '<none>',
    ),
    ageColumn,
    ...podTemplateWideColumns(
      (obj) => pathOf(obj, 'spec', 'jobTemplate', 'spec', 'template'),
      (obj) => pathOf(obj, 'spec', 'jobTemplate', 'spec', 'selector'),
      'A label query over pods that should match the pod count.',
    ),
  ],
};
