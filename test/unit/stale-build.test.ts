// bin/gatehouse.js runs on a copy of the layout it needs (bin/, a stand-in dist/gateway/main.js, server sources) in a
// temporary directory, with modification times set by the test: the checkout's own dist/ and sources stay untouched.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILT_AT = new Date('2026-01-01T00:00:00Z');
const BEFORE = new Date(BUILT_AT.getTime() - 60_000);
const AFTER = new Date(BUILT_AT.getTime() + 60_000);

describe('bin/gatehouse.js and an outdated dist/', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-stale-'));
    await mkdir(path.join(root, 'bin'));
    for (const file of ['gatehouse.js', 'stale-build.js'])
      await copyFile(path.join(REPO, 'bin', file), path.join(root, 'bin', file));
    await writeFile(path.join(root, 'package.json'), '{"type":"module"}');
    await mkdir(path.join(root, 'dist/gateway'), { recursive: true });
    // The stand-in server says it started, so a test sees the command still starts after warning.
    await writeFile(
      path.join(root, 'dist/gateway/main.js'),
      "export async function main() { process.stdout.write('started\\n'); }\n",
    );
    await utimes(path.join(root, 'dist/gateway/main.js'), BUILT_AT, BUILT_AT);
    for (const source of [
      'api/core/v1/pod.ts',
      'backends/storage.ts',
      'gateway/main.ts',
      'policies/rbac/authorizer.ts',
    ]) {
      await mkdir(path.dirname(path.join(root, source)), { recursive: true });
      await writeFile(path.join(root, source), 'export {};\n');
      await utimes(path.join(root, source), BEFORE, BEFORE);
    }
  });

  afterEach(async () => rm(root, { recursive: true, force: true }));

  const start = () => run(process.execPath, [path.join(root, 'bin/gatehouse.js')], { cwd: root });

  it('starts without a word when every server source is older than the build', async () => {
    const { stdout, stderr } = await start();
    expect(stdout).to.equal('started\n');
    expect(stderr).to.equal('');
  });

  it('warns in one line naming a newer source and suggesting make build, then starts', async () => {
    await utimes(path.join(root, 'policies/rbac/authorizer.ts'), AFTER, AFTER);
    const { stdout, stderr } = await start();
    expect(stderr).to.equal(
      'warning: dist/ is older than policies/rbac/authorizer.ts, so this runs an outdated build; run `make build`\n',
    );
    expect(stdout).to.equal('started\n');
  });

  it('ignores newer test files, which the server never runs', async () => {
    await writeFile(path.join(root, 'backends/storage.test.ts'), 'export {};\n');
    await utimes(path.join(root, 'backends/storage.test.ts'), AFTER, AFTER);
    const { stderr } = await start();
    expect(stderr).to.equal('');
  });

  it('starts without a word when the sources are not there (dist/ shipped alone)', async () => {
    for (const dir of ['api', 'backends', 'gateway', 'policies']) await rm(path.join(root, dir), { recursive: true });
    const { stdout, stderr } = await start();
    expect(stdout).to.equal('started\n');
    expect(stderr).to.equal('');
  });
});
