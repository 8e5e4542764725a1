// The embedded store keeps every write it acknowledged through a kill -9 of the server: the gateway runs as a child
// process, many clients create objects concurrently, the process is killed at a random point among the writes
// (SIGKILL: no shutdown, no flush), and a gateway restarted on the same data dir must hold every object a client saw
// acknowledged, whole and at the resourceVersion it was acknowledged with.
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { httpsRequest, startTestGatehouse } from '../helpers/gatehouse.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const WRITERS = 24;

interface Acknowledged {
  resourceVersion: string;
  data: Record<string, string>;
}

/** Starts `bin/gatehouse.js` on `dataDir` and resolves with its URL once it serves. */
function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin/gatehouse.js'), '--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    const exitedEarly = (code: number | null) =>
      reject(new Error(`the gateway exited with ${code} before serving: ${stderr}`));
    child.once('exit', exitedEarly);
    const readStdout = (d: Buffer) => {
      stdout += d.toString();
      const serving = /serving on (https:\/\/\S+)\n/.exec(stdout);
      if (!serving) return;
      // Only this function's own listeners go: the caller's exit listener, added later, must survive what the
      // gateway prints after it serves.
      child.off('exit', exitedEarly);
      child.stdout.off('data', readStdout);
      child.stdout.resume();
      resolve({ child, url: serving[1] });
    };
    child.stdout.on('data', readStdout);
  });
}

describe('kill -9 durability of the embedded store', function () {
  this.timeout(120_000);
  let dataDir: string;
  let child: ChildProcess | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-crash-'));
  });
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged create, whole, after the gateway is killed among concurrent writes', async () => {
    const started = await startChild(dataDir);
    child = started.child;
    const kubeconfig = yaml.load(await readFile(path.join(dataDir, 'admin.kubeconfig'), 'utf8')) as {
      clusters: Array<{ cluster: { 'certificate-authority-data': string } }>;
      users: Array<{ user: { token: string } }>;
    };
    const ca = Buffer.from(kubeconfig.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8');
    const token = kubeconfig.users[0].user.token;
    const path_ = '/api/v1/namespaces/default/configmaps';

    // The kill lands after a random number of acknowledgements, while every writer still has a create in flight.
    const killAfter = 150 + Math.floor(Math.random() * 300);
    const acknowledged = new Map<string, Acknowledged>();
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child!.once('exit', (_code, signal) => resolve(signal)),
    );
    let killed = false;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, writer) => {
        for (let seq = 0; !killed; seq++) {
          const name = `w${writer}-${seq}`;
          const data = {
            writer: String(writer),
            seq: String(seq),
            payload: `${name}:`.repeat(50 + ((seq * 37) % 400)),
          };
          let res;
          try {
            res = await httpsRequest(started.url, ca, 'POST', path_, {
              token,
              body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
            });
          } catch {
            return; // the connection died with the process: never acknowledged
          }
          expect(res.status, res.body).to.equal(201);
          acknowledged.set(name, { resourceVersion: res.json().metadata.resourceVersion, data });
          if (acknowledged.size >= killAfter && !killed) {
            killed = true;
            child!.kill('SIGKILL');
          }
        }
      }),
    );
    expect(await exited).to.equal('SIGKILL');
    expect(acknowledged.size).to.be.at.least(killAfter);

    const restarted = await startTestGatehouse([], { dataDir });
    try {
      const list = await restarted.request('GET', path_);
      expect(list.status).to.equal(200);
      const stored = new Map<
        string,
        { metadata: { name: string; resourceVersion: string }; data: Record<string, string> }
      >(list.json().items.map((item: { metadata: { name: string } }) => [item.metadata.name, item]));
      const missing = [...acknowledged.keys()].filter((name) => !stored.has(name));
      expect(missing, 'acknowledged creates lost by the kill').to.deep.equal([]);
      for (const [name, ack] of acknowledged) {
        const item = stored.get(name)!;
        expect(item.metadata.resourceVersion, name).to.equal(ack.resourceVersion);
        expect(item.data, name).to.deep.equal(ack.data);
      }
      // Creates in flight at the kill may have landed too, each whole.
      for (const [name, item] of stored) {
        // Controllers publish objects of their own (kube-root-ca.crt): only the writers' names are judged.
        if (acknowledged.has(name) || !/^w\d+-\d+$/.test(name)) continue;
        const [writer, seq] = name.slice(1).split('-');
        expect(item.data.payload, name).to.equal(`${name}:`.repeat(50 + ((Number(seq) * 37) % 400)));
        expect(item.data.writer).to.equal(writer);
      }
      // The store goes on from where it was: a new write gets a later revision than anything acknowledged.
      const after = await restarted.request('POST', path_, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } },
      });
      expect(after.status).to.equal(201);
      const newest = Math.max(...[...acknowledged.values()].map((a) => Number(a.resourceVersion)));
      expect(Number(after.json().metadata.resourceVersion)).to.be.above(newest);
    } finally {
      await restarted.close();
    }
  });
});
