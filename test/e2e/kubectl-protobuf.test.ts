// The stock kubectl's imperative `create` commands POST protobuf (client-go typed clients) and never retry with JSON:
// each must work end to end against a real Gatehouse, with the result read back over HTTP as JSON. A small HTTPS
// server also captures the exact bytes kubectl sends, decodes them, and answers in protobuf, which kubectl must read.
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { expect } from 'chai';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';
import { loadOrCreateCertificates } from '../../gateway/server/certs.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import { uniqueName } from '../helpers/api.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

describe('kubectl create over protobuf', function () {
  this.timeout(120_000);
  const env = gatehouseWithKubectl();
  let ns: string;

  before(async () => {
    ns = uniqueName('pb');
    // -v=8 prints the request headers: the body really went out as protobuf.
    const { stderr } = await env.kubectl.run(['create', 'namespace', ns, '-v=8']);
    expect(stderr).to.include(`Content-Type: ${PROTOBUF}`);
  });

  const get = async (urlPath: string): Promise<any> => {
    const res = await env.gh.request('GET', urlPath);
    expect(res.status, res.body).to.equal(200);
    return res.json();
  };

  it('create namespace', async () => {
    const obj = await get(`/api/v1/namespaces/${ns}`);
    expect(obj.status.phase).to.equal('Active');
  });

  it('create configmap --from-literal', async () => {
    expect(
      await env.kubectl.ok([
        'create',
        'configmap',
        'settings',
        '-n',
        ns,
        '--from-literal=a=b',
        '--from-literal=empty=',
      ]),
    ).to.include('configmap/settings created');
    expect((await get(`/api/v1/namespaces/${ns}/configmaps/settings`)).data).to.deep.equal({ a: 'b', empty: '' });
  });

  it('create secret generic', async () => {
    expect(
      await env.kubectl.ok(['create', 'secret', 'generic', 'creds', '-n', ns, '--from-literal=password=s3cr3t']),
    ).to.include('secret/creds created');
    const secret = await get(`/api/v1/namespaces/${ns}/secrets/creds`);
    expect(secret.type).to.equal('Opaque');
    expect(Buffer.from(secret.data.password, 'base64').toString()).to.equal('s3cr3t');
  });

  it('create serviceaccount', async () => {
    expect(await env.kubectl.ok(['create', 'serviceaccount', 'builder', '-n', ns])).to.include(
      'serviceaccount/builder created',
    );
    expect((await get(`/api/v1/namespaces/${ns}/serviceaccounts/builder`)).metadata.name).to.equal('builder');
  });

  it('create quota', async () => {
    expect(
      await env.kubectl.ok([
        'create',
        'quota',
        'compute',
        '-n',
        ns,
        '--hard=pods=10,requests.cpu=2,requests.memory=1Gi',
      ]),
    ).to.include('resourcequota/compute created');
    expect((await get(`/api/v1/namespaces/${ns}/resourcequotas/compute`)).spec.hard).to.deep.equal({
      pods: '10',
      'requests.cpu': '2',
      'requests.memory': '1Gi',
    });
  });

  it('create cronjob', async () => {
    const out = await env.kubectl.ok([
      'create',
      'cronjob',
      'nightly',
      '-n',
      ns,
      '--image=busybox:1.36',
      '--schedule=*/5 * * * *',
      '--',
      'date',
    ]);
    expect(out).to.include('cronjob.batch/nightly created');
    const cj = await get(`/apis/batch/v1/namespaces/${ns}/cronjobs/nightly`);
    expect(cj.spec.schedule).to.equal('*/5 * * * *');
    const container = cj.spec.jobTemplate.spec.template.spec.containers[0];
    expect(container).to.include({ name: 'nightly', image: 'busybox:1.36' });
    expect(container.command).to.deep.equal(['date']);
    expect(cj.spec.jobTemplate.spec.template.spec.restartPolicy).to.equal('OnFailure');
  });

  it('reports a refused create with the server message (a protobuf Status)', async () => {
    const res = await env.kubectl.run(['create', 'configmap', 'settings', '-n', ns, '--from-literal=a=c']);
    expect(res.code).to.not.equal(0);
    expect(res.stderr).to.include('configmaps "settings" already exists');
  });

  it('get reads back what the protobuf create stored', async () => {
    const out = await env.kubectl.ok(['get', 'configmap', 'settings', '-n', ns, '-o', 'jsonpath={.data.a}']);
    expect(out).to.equal('b');
  });
});

describe('bytes the stock kubectl sends', function () {
  this.timeout(60_000);
  let dir: string;
  let server: https.Server;
  let kubectl: Kubectl;
  const captured: { method: string; url: string; contentType: string; accept: string; body: Buffer }[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-capture-'));
    const certs = await loadOrCreateCertificates({ certDir: dir, bindAddress: '127.0.0.1' });
    server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.url?.startsWith('/version')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' }));
          return;
        }
        captured.push({
          method: req.method ?? '',
          url: req.url ?? '',
          contentType: String(req.headers['content-type']),
          accept: String(req.headers.accept),
          body,
        });
        if (req.method === 'POST') {
          // Answer in protobuf, as Gatehouse does: kubectl must read it back.
          const obj = decodeProtobufObject(body) as any;
          obj.metadata = {
            ...obj.metadata,
            uid: 'u-1',
            resourceVersion: '1',
            creationTimestamp: '2024-05-01T10:00:00Z',
          };
          if (obj.kind === 'TokenRequest')
            obj.status = { token: 'header.payload.signature', expirationTimestamp: '2030-01-01T00:00:00Z' };
          if (obj.kind === 'SelfSubjectAccessReview')
            obj.status = { allowed: obj.spec?.nonResourceAttributes?.path === '/healthz' };
          if (obj.kind === 'SelfSubjectRulesReview') {
            obj.status = {
              resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }],
              nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
              incomplete: false,
            };
          }
          res.writeHead(201, { 'content-type': PROTOBUF });
          res.end(encodeProtobufObject(obj));
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            reason: 'NotFound',
            code: 404,
            message: 'not found',
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const kubeconfig = path.join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'capture',
        clusters: [
          {
            name: 'capture',
            cluster: {
              server: `https://127.0.0.1:${port}`,
              'certificate-authority-data': Buffer.from(certs.caPem).toString('base64'),
            },
          },
        ],
        users: [{ name: 'capture', user: { token: 'capture-token' } }],
        contexts: [{ name: 'capture', context: { cluster: 'capture', user: 'capture', namespace: 'default' } }],
      }),
    );
    kubectl = await createKubectl(kubeconfig);
  });
  after(async () => {
    await kubectl?.cleanup();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('decodes the protobuf body of kubectl create configmap --dry-run=server', async () => {
    const out = await kubectl.ok([
      'create',
      'configmap',
      'captured',
      '--from-literal=a=b',
      '--from-literal=multi=line1\nline2',
      '--dry-run=server',
    ]);
    expect(out).to.include('configmap/captured created (server dry run)');
    const post = captured.find((c) => c.method === 'POST');
    expect(post, JSON.stringify(captured.map((c) => `${c.method} ${c.url}`))).to.not.equal(undefined);
    expect(post!.url).to.match(/^\/api\/v1\/namespaces\/default\/configmaps\?.*dryRun=All/);
    expect(post!.contentType).to.equal(PROTOBUF);
    expect(post!.accept).to.equal(`${PROTOBUF},application/json`);
    expect(post!.body.subarray(0, 4)).to.deep.equal(Buffer.from('k8s\0', 'latin1'));
    expect(decodeProtobufObject(post!.body)).to.deep.equal({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'captured', creationTimestamp: null },
      data: { a: 'b', multi: 'line1\nline2' },
    });
  });

  // `--dry-run=client -o json` prints Go's JSON of the very object the command sends: the protobuf decoding of the
  // bytes sent with --dry-run=server must equal it, field for field (omitempty, pointers, empty structs, null times).
  // The capture server answers with our protobuf encoding of what it decoded, and kubectl prints its Go reading of
  // that: the same object again, with the server's metadata.
  const commands: [string, string[]][] = [
    ['configmap', ['create', 'configmap', 'cm2', '--from-literal=a=b', '--from-file=f.txt=/etc/hostname']],
    ['secret', ['create', 'secret', 'generic', 's1', '--from-literal=password=p@ss', '--type=example.com/custom']],
    [
      'secret tls-like',
      [
        'create',
        'secret',
        'docker-registry',
        'reg',
        '--docker-server=r.example.com',
        '--docker-username=u',
        '--docker-password=p',
      ],
    ],
    ['serviceaccount', ['create', 'serviceaccount', 'sa1']],
    ['quota', ['create', 'quota', 'q1', '--hard=pods=10,requests.cpu=500m', '--scopes=NotTerminating,BestEffort']],
    ['namespace', ['create', 'namespace', 'ns1']],
    [
      'cronjob',
      [
        'create',
        'cronjob',
        'cj',
        '--image=busybox:1.36',
        '--schedule=*/5 * * * *',
        '--restart=Never',
        '--',
        'sh',
        '-c',
        'date',
      ],
    ],
  ];
  /** Flags go before `--`, after which everything is the container's command. */
  const withFlags = (args: string[], ...flags: string[]): string[] => {
    const dashes = args.indexOf('--');
    return dashes < 0 ? [...args, ...flags] : [...args.slice(0, dashes), ...flags, ...args.slice(dashes)];
  };
  for (const [what, args] of commands) {
    it(`decodes what kubectl create ${what} sends exactly as Go's own JSON of it`, async () => {
      const expected = JSON.parse(await kubectl.ok(withFlags(args, '--dry-run=client', '-o', 'json')));
      captured.length = 0;
      const answered = JSON.parse(await kubectl.ok(withFlags(args, '--dry-run=server', '-o', 'json')));
      const post = captured.find((c) => c.method === 'POST');
      expect(post, JSON.stringify(captured.map((c) => `${c.method} ${c.url}`))).to.not.equal(undefined);
      expect(post!.contentType).to.equal(PROTOBUF);
      expect(decodeProtobufObject(post!.body)).to.deep.equal(expected);
      expect(answered).to.deep.equal({
        ...expected,
        metadata: { ...expected.metadata, uid: 'u-1', resourceVersion: '1', creationTimestamp: '2024-05-01T10:00:00Z' },
      });
    });
  }

  it('reads the TokenRequest kubectl create token sends and answers one it prints', async () => {
    captured.length = 0;
    const out = await kubectl.ok([
      'create',
      'token',
      'builder',
      '--duration=10m',
      '--audience=api',
      '--audience=vault',
      '-o',
      'json',
    ]);
    const post = captured.find((c) => c.method === 'POST');
    expect(post!.url).to.match(/^\/api\/v1\/namespaces\/default\/serviceaccounts\/builder\/token/);
    const sent = decodeProtobufObject(post!.body) as any;
    expect(sent).to.include({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' });
    expect(sent.spec).to.deep.equal({ audiences: ['api', 'vault'], expirationSeconds: 600 });
    const printed = JSON.parse(out);
    expect(printed.status).to.deep.equal({
      token: 'header.payload.signature',
      expirationTimestamp: '2030-01-01T00:00:00Z',
    });
  });

  it('speaks SelfSubjectAccessReview and SelfSubjectRulesReview in protobuf with kubectl auth can-i', async () => {
    captured.length = 0;
    expect((await kubectl.ok(['auth', 'can-i', 'get', '/healthz'])).trim()).to.equal('yes');
    const sent = decodeProtobufObject(captured.find((c) => c.method === 'POST')!.body) as any;
    expect(sent).to.include({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview' });
    expect(sent.spec).to.deep.equal({ nonResourceAttributes: { path: '/healthz', verb: 'get' } });
    const denied = await kubectl.run(['auth', 'can-i', 'get', '/metrics']);
    expect(denied.stdout.trim()).to.equal('no');

    captured.length = 0;
    const list = await kubectl.ok(['auth', 'can-i', '--list', '-n', 'team-a']);
    const rules = decodeProtobufObject(captured.find((c) => c.method === 'POST')!.body) as any;
    expect(rules).to.include({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview' });
    expect(rules.spec).to.deep.equal({ namespace: 'team-a' });
    expect(list).to.match(/configmaps\s+\[\]\s+\[\]\s+\[get list\]/);
    expect(list).to.match(/\[\/healthz\]\s+\[\]\s+\[get\]/);
  });
});
