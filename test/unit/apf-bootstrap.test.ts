// What the priority and fairness controllers decide, without a server: which bootstrap objects get their spec back
// (mandatory always, suggested while annotated or never edited), and when a FlowSchema's Dangling condition changes.
import { expect } from 'chai';
import { reconciledObject } from '../../gateway/controllers/apf-bootstrap.js';
import { withDangling } from '../../gateway/controllers/flowschema-status.js';
import { flowSchema } from '../../api/flowcontrol/v1/flow-schema.js';
import { priorityLevelConfiguration } from '../../api/flowcontrol/v1/priority-level-configuration.js';
import {
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../../api/flowcontrol/v1/bootstrap-configuration.js';
import { AUTOUPDATE_SPEC_ANNOTATION } from '../../api/flowcontrol/v1/flowcontrol-common.js';
import type { KObject } from '../../api/meta/types.js';

const edited = (o: KObject, annotation: string | undefined, generation: number): KObject => {
  const copy = structuredClone<KObject>(o);
  copy.metadata.generation = generation;
  copy.metadata.annotations = annotation === undefined ? {} : { [AUTOUPDATE_SPEC_ANNOTATION]: annotation };
  (copy.spec as any).limited.nominalConcurrencyShares = 7;
  return copy;
};

describe('priority and fairness bootstrap decisions', () => {
  const system = SUGGESTED_PRIORITY_LEVELS[0];
  const sharesOf = (o: KObject | undefined) => (o?.spec as any)?.limited.nominalConcurrencyShares;

  it('leaves an object that is as defined alone', () => {
    expect(reconciledObject(priorityLevelConfiguration, structuredClone<KObject>(system), system, false)).to.equal(
      undefined,
    );
  });

  it('puts back the spec of a suggested object annotated "true", or unannotated and never edited', () => {
    expect(sharesOf(reconciledObject(priorityLevelConfiguration, edited(system, 'true', 2), system, false))).to.equal(
      30,
    );
    expect(sharesOf(reconciledObject(priorityLevelConfiguration, edited(system, 'T', 2), system, false))).to.equal(30);
    const fromOlder = reconciledObject(priorityLevelConfiguration, edited(system, undefined, 1), system, false);
    expect(sharesOf(fromOlder)).to.equal(30);
    expect(fromOlder?.metadata.annotations).to.deep.equal({ [AUTOUPDATE_SPEC_ANNOTATION]: 'true' });
  });

  it('leaves a suggested object annotated "false", or edited without a boolean annotation', () => {
    expect(reconciledObject(priorityLevelConfiguration, edited(system, 'false', 2), system, false)).to.equal(undefined);
    expect(reconciledObject(priorityLevelConfiguration, edited(system, 'maybe', 2), system, false)).to.equal(undefined);
  });

  it('always puts back a mandatory object, and its annotation, but not the exempt section of exempt', () => {
    const catchAll = MANDATORY_PRIORITY_LEVELS[1];
    const optedOut = edited(catchAll, 'false', 3);
    const back = reconciledObject(priorityLevelConfiguration, optedOut, catchAll, true);
    expect(sharesOf(back)).to.equal(5);
    expect(back?.metadata.annotations?.[AUTOUPDATE_SPEC_ANNOTATION]).to.equal('true');

    const exempt = structuredClone<KObject>(MANDATORY_PRIORITY_LEVELS[0]);
    (exempt.spec as any).exempt = { nominalConcurrencyShares: 10, lendablePercent: 20 };
    expect(reconciledObject(priorityLevelConfiguration, exempt, MANDATORY_PRIORITY_LEVELS[0], true)).to.equal(
      undefined,
    );
  });

  it('compares defaulted specs, whatever the key order', () => {
    const probes = SUGGESTED_FLOW_SCHEMAS[2];
    const current = structuredClone<KObject>(probes);
    current.spec = Object.fromEntries(Object.entries(current.spec as object).reverse());
    expect(reconciledObject(flowSchema, current, probes, false)).to.equal(undefined);
  });
});

describe('the Dangling condition', () => {
  const schema = (conditions?: unknown[]): KObject => ({
    metadata: { name: 'tenant' },
    spec: { priorityLevelConfiguration: { name: 'tenant-level' } },
    ...(conditions ? { status: { conditions } } : {}),
  });
  const dangling = (o: KObject | undefined) => (o?.status as any)?.conditions.find((c: any) => c.type === 'Dangling');

  it("is True with reason NotFound and upstream's message while the level is missing", () => {
    expect(dangling(withDangling(schema(), new Set(), '2026-01-01T00:00:00Z'))).to.deep.equal({
      type: 'Dangling',
      status: 'True',
      reason: 'NotFound',
      message:
        'This FlowSchema references the PriorityLevelConfiguration object named "tenant-level" but there is no such object',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
  });

  it('is False with reason Found once it exists, keeping the other conditions', () => {
    const other = { type: 'Other', status: 'True' };
    const before = withDangling(schema([other]), new Set(), '2026-01-01T00:00:00Z')!;
    const after = withDangling(before, new Set(['tenant-level']), '2026-01-02T00:00:00Z')!;
    expect((after.status as any).conditions[0]).to.deep.equal(other);
    expect(dangling(after)).to.include({
      status: 'False',
      reason: 'Found',
      lastTransitionTime: '2026-01-02T00:00:00Z',
    });
    expect(dangling(after).message).to.equal(
      'This FlowSchema references the PriorityLevelConfiguration object named "tenant-level" and it exists',
    );
  });

  it('asks for no write when the condition already says so', () => {
    const judged = withDangling(schema(), new Set(['tenant-level']), '2026-01-01T00:00:00Z')!;
    expect(withDangling(judged, new Set(['tenant-level']), '2026-01-03T00:00:00Z')).to.equal(undefined);
  });
});
