import { expect } from 'chai';
import { mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { makeDirectory } from '../../backends/make-directory.js';

/** The error `promise` rejects with, failing the test if it neither settles within 2 s nor rejects. */
async function rejection(promise: Promise<unknown>): Promise<NodeJS.ErrnoException> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('did not settle within 2 s')), 2_000);
  });
  try {
    await Promise.race([promise, hung]);
  } catch (e) {
    if ((e as Error).message === 'did not settle within 2 s') throw e;
    return e as NodeJS.ErrnoException;
  } finally {
    clearTimeout(timer);
  }
  throw new Error('expected a rejection');
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
    const e = await rejection(makeDirectory(path.join(root, 'data', 'storage')));
    expect(e.code).to.equal('ENOENT');
    expect(e.message).to.contain(path.join(root, 'data'));
  });

  it('fails at once under /proc, where a recursive mkdir never settles (its mkdir answers ENOENT for a parent that exists)', async function () {
    if (os.platform() !== 'linux') this.skip();
    const e = await rejection(makeDirectory('/proc/gatehouse-no-such-dir/storage'));
    expect(e.code).to.equal('ENOENT');
  });

  it('names a file in the way', async () => {
    await writeFile(path.join(root, 'file'), '');
    const e = await rejection(makeDirectory(path.join(root, 'file', 'sub')));
    expect(e.code).to.equal('ENOTDIR');
    expect(e.message).to.contain(path.join(root, 'file'));
  });
});
