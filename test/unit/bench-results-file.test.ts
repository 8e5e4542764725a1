// The bench never overwrites a saved run: a second run of one commit on one day is saved beside the first.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freshResultPath } from '../../bench/results-file.js';

describe('bench results file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'bench-results-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('names the first run <date>-<commit>.txt and later ones -2, -3, leaving other commits alone', async () => {
    expect(freshResultPath(dir, '2026-11-26', 'abc1234')).to.equal(path.join(dir, '2026-11-26-abc1234.txt'));
    await writeFile(path.join(dir, '2026-11-26-abc1234.txt'), 'first');
    await writeFile(path.join(dir, '2026-11-26-fff0000.txt'), 'another commit');
    expect(freshResultPath(dir, '2026-11-26', 'abc1234')).to.equal(path.join(dir, '2026-11-26-abc1234-2.txt'));
    await writeFile(path.join(dir, '2026-11-26-abc1234-2.txt'), 'second');
    expect(freshResultPath(dir, '2026-11-26', 'abc1234')).to.equal(path.join(dir, '2026-11-26-abc1234-3.txt'));
    expect(freshResultPath(dir, '2026-11-27', 'abc1234')).to.equal(path.join(dir, '2026-11-27-abc1234.txt'));
  });
});
