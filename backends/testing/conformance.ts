// The one storage conformance suite: every backend (memory, embedded, PostgreSQL) runs it unchanged, so the
// registry can rely on the contract in ../storage.ts rather than on a backend's quirks. Each test gets fresh stores
// from `makeStorage` and closes them (then calls `cleanup`) afterwards.
import {
  createHarness,
  type CleanupStorage,
  type ConformanceOptions,
  type MakeStorage,
} from './conformance-harness.js';
import { describeListConformance } from './conformance-lists.js';
import { describeObjectConformance } from './conformance-objects.js';
import { describeRevisionConformance } from './conformance-revisions.js';
import { describeWatchConformance } from './conformance-watch.js';

export type {
  CleanupStorage,
  ConformanceOptions,
  ConformanceStorageOptions,
  MakeStorage,
} from './conformance-harness.js';

export function describeStorageConformance(
  name: string,
  makeStorage: MakeStorage,
  cleanup?: CleanupStorage,
  options: ConformanceOptions = {},
): void {
  describe(`storage conformance: ${name}`, function () {
    const harness = createHarness(makeStorage, cleanup, options);
    afterEach(() => harness.teardown());
    describeObjectConformance(harness);
    describeListConformance(harness);
    describeRevisionConformance(harness);
    describeWatchConformance(harness);
  });
}
