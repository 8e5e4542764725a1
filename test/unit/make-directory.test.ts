import { expect } from 'chai';
import { mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeDirectory } from '../../backends/make-directory.js';
import { within } from '../../backends/testing/conformance-harness.js';
import { rejection } from '../helpers/assertions.js';

/** The error of a call that must fail, bounded: a call that never settles fails the test as a timeout. */
function failure(promise: Promise<unknown>): Promise<NodeJS.ErrnoException> {
  return rejection(within(promise, 2_000, 'makeDirectory to settle'));
}

describe('makeDirectory', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'gh-mkdir-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates the missing levels with the given mode and leaves existing ones alone', async () => {
    const dir = path.join(root, 'a', 'b', 'c');
    await makeDirectory(dir, 0o700);
    for (const level of [path.join(root, 'a'), path.join(root, 'a', 'b'), dir]) {
      expect((await stat(level)).mode & 0o777, level).to.equal(0o700);
    }
    await makeDirectory(dir, 0o755);
    expect((await stat(dir)).mode & 0o777).to.equal(0o700);
    // Two starts racing to make the same levels both succeed.
    await Promise.all([makeDirectory(path.join(root, 'x', 'y')), makeDirectory(path.join(root, 'x', 'y'))]);
    expect((await stat(path.join(root, 'x', 'y'))).isDirectory()).to.equal(true);
  });

  it('says which level is in the way under a link whose target is missing', async () => {
    // A data dir on a volume that is not mounted.
    await symlink(path.join(root, 'unmounted'), path.join(root, 'data'));
    const e = await failure(makeDirectory(path.join(root, 'data', 'storage')));
    expect(e.code, e.message).to.equal('ENOENT');
    expect(e.message).to.contain(path.join(root, 'data'));
  });

  it('fails at once under /proc, where a recursive mkdir never settles (its mkdir answers ENOENT for a parent that exists)', async function () {
    if (os.platform() !== 'linux') this.skip();
    const e = await failure(makeDirectory('/proc/gatehouse-no-such-dir/storage'));
    expect(e.code, e.message).to.equal('ENOENT');
  });

  it('names a file in the way', async () => {
    await writeFile(path.join(root, 'file'), '');
    const e = await failure(makeDirectory(path.join(root, 'file', 'sub')));
    expect(e.code, e.message).to.equal('ENOTDIR');
    expect(e.message).to.contain(path.join(root, 'file'));
  });
});
