// The log backend's other forms over real HTTPS into real files, read back once the gateway has closed: upstream's
// legacy line (--audit-log-format=legacy) parsed field by field, and JSON in Gatehouse's group version with
// truncation, where a body past the event bound is dropped and the event marked.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

function policy(level: string): string {
  return `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*"]
- level: ${level}
`;
}

/** The key="value" pairs of a legacy line, unquoted as Go's %q quoted them (JSON's escapes are a superset here). */
function legacyFields(line: string): { time: string; fields: Record<string, string> } {
  const m = /^(\S+) AUDIT: (.*)$/.exec(line);
  if (!m) throw new Error(`not a legacy audit line: ${line}`);
  const fields: Record<string, string> = {};
  for (const f of m[2].matchAll(/([a-z-]+)=("(?:[^"\\]|\\.)*")/g)) fields[f[1]] = JSON.parse(f[2]) as string;
  return { time: m[1], fields };
}

async function withGatehouse(
  args: (dir: string) => string[],
  level: string,
  drive: (gh: TestGatehouse) => Promise<void>,
): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-audit-format-'));
  try {
    await writeFile(path.join(dir, 'policy.yaml'), policy(level));
    const gh = await startTestGatehouse([
      '--audit-policy-file',
      path.join(dir, 'policy.yaml'),
      '--audit-log-path',
      path.join(dir, 'audit.log'),
      ...args(dir),
    ]);
    try {
      await drive(gh);
    } finally {
      await gh.close();
    }
    return await readFile(path.join(dir, 'audit.log'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('audit log formats', function () {
  this.timeout(60_000);

  it('writes the legacy line, one per stage, with the fields upstream picks', async () => {
    let created = '';
    const text = await withGatehouse(
      () => ['--audit-log-format=legacy'],
      'Metadata',
      async (gh) => {
        const res = await gh.request('POST', CONFIGMAPS, {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'legacy' }, data: { k: 'secret-ish' } },
          headers: { 'user-agent': 'audit-test/1.0 "quoted"' },
        });
        expect(res.status, res.body).to.equal(201);
        created = res.headers['audit-id'] as string;
      },
    );
    const lines = text.split('\n').filter(Boolean);
    // Nothing of the JSON form, and no body at any level: the line has no place for one.
    expect(lines.every((l) => !l.startsWith('{'))).to.equal(true);
    expect(text).not.to.include('secret-ish');
    const mine = lines.map(legacyFields).filter((l) => l.fields.id === created);
    expect(mine.map((l) => l.fields.stage)).to.deep.equal(['RequestReceived', 'ResponseComplete']);
    const [received, complete] = mine;
    expect(complete.fields).to.deep.include({
      method: 'create',
      user: 'system:admin',
      as: '<self>',
      asgroups: '<lookup>',
      'user-agent': 'audit-test/1.0 "quoted"',
      namespace: 'default',
      uri: CONFIGMAPS,
      response: '201',
    });
    expect(complete.fields.groups).to.include('"system:masters"');
    expect(complete.fields.ip).to.match(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    expect(received.fields.response).to.equal('<deferred>');
    // Both stages carry the time the request was received, RFC 3339 in UTC.
    expect(received.time).to.equal(complete.time);
    expect(Date.parse(complete.time)).to.be.within(Date.now() - 60_000, Date.now());
  });

  it('truncates a body past --audit-log-truncate-max-event-size and writes the group version asked for', async () => {
    let big = '';
    let small = '';
    const text = await withGatehouse(
      () => [
        '--audit-log-version=audit.platform.io/v1',
        '--audit-log-truncate-enabled',
        '--audit-log-truncate-max-event-size=4096',
      ],
      'RequestResponse',
      async (gh) => {
        for (const [name, size] of [
          ['big', 8192],
          ['small', 10],
        ] as const) {
          const res = await gh.request('POST', CONFIGMAPS, {
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v'.repeat(size) } },
          });
          expect(res.status, res.body).to.equal(201);
          if (name === 'big') big = res.headers['audit-id'] as string;
          else small = res.headers['audit-id'] as string;
        }
      },
    );
    const events = text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(events.every((e) => e.apiVersion === 'audit.platform.io/v1')).to.equal(true);
    const complete = (id: string) => events.find((e) => e.auditID === id && e.stage === 'ResponseComplete')!;
    expect(complete(big)).not.to.have.any.keys('requestObject', 'responseObject');
    expect(complete(big).annotations['audit.k8s.io/truncated']).to.equal('true');
    expect(complete(small).requestObject.data.k).to.equal('v'.repeat(10));
    expect(complete(small).annotations).not.to.have.property('audit.k8s.io/truncated');
    for (const line of text.split('\n').filter(Boolean)) expect(Buffer.byteLength(line)).to.be.at.most(4096);
  });
});
