// Rotation of the audit log by size on real files: a write past the limit moves the file aside, backups beyond the
// count go, compressed ones are gzip, and no line is lost or split between files.
import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { openRotatingFile, type RotationSettings } from '../../gateway/audit/log-rotation.js';

const BACKUP = /^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log(\.gz)?$/;

describe('audit log rotation', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-audit-rotation-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function writeLines(settings: RotationSettings, lines: string[], errors: Error[] = []): Promise<void> {
    const file = openRotatingFile(path.join(dir, 'audit.log'), settings, (e) => errors.push(e));
    for (const line of lines)
      await new Promise<void>((resolve, reject) => file.write(`${line}\n`, (e) => (e ? reject(e) : resolve())));
    await file.close();
  }

  async function contents(): Promise<{ backups: string[]; lines: string[] }> {
    const names = await readdir(dir);
    const backups = names.filter((n) => BACKUP.test(n)).sort();
    const lines: string[] = [];
    for (const name of [...backups, 'audit.log']) {
      const raw = await readFile(path.join(dir, name));
      lines.push(...(name.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8').split('\n').filter(Boolean));
    }
    expect(names.filter((n) => n !== 'audit.log' && !BACKUP.test(n))).to.deep.equal([]);
    return { backups, lines };
  }

  const line = (i: number) => JSON.stringify({ i, pad: 'x'.repeat(80) });

  it('moves the file aside before a write would pass the size, keeping every line whole', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => line(i));
    // Three lines fit in 300 bytes: 10 lines make 4 files.
    await writeLines({ maxSizeBytes: 300, maxBackups: 0, maxAgeDays: 0, compress: false }, lines);
    const { backups, lines: read } = await contents();
    expect(backups).to.have.length(3);
    expect(read).to.deep.equal(lines);
    for (const name of [...backups, 'audit.log'])
      expect((await readFile(path.join(dir, name))).length).to.be.at.most(300);
  });

  it('keeps the newest max-backup backups, gzipped with compress', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => line(i));
    await writeLines({ maxSizeBytes: 300, maxBackups: 1, maxAgeDays: 0, compress: true }, lines);
    const { backups, lines: read } = await contents();
    expect(backups).to.have.length(1);
    expect(backups[0]).to.match(/\.gz$/);
    // The kept backup holds the three lines before the live file's one.
    expect(read).to.deep.equal(lines.slice(6));
  });

  it('removes backups older than max-age days at the next rotation', async () => {
    await writeLines({ maxSizeBytes: 300, maxBackups: 0, maxAgeDays: 0, compress: false }, [0, 1, 2, 3].map(line));
    const [old] = (await contents()).backups;
    const longAgo = new Date(Date.now() - 3 * 86_400_000);
    await utimes(path.join(dir, old), longAgo, longAgo);
    await writeLines({ maxSizeBytes: 300, maxBackups: 0, maxAgeDays: 2, compress: false }, [4, 5, 6].map(line));
    const { backups, lines } = await contents();
    expect(backups).not.to.include(old);
    expect(lines).to.deep.equal([3, 4, 5, 6].map(line));
  });
});
