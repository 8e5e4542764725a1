// Two real Gatehouses: the front serves everything but the batch group, which an APIService sends to a second
// Gatehouse with its own storage. The second trusts the front's proxy certificate for identity (request-header
// flags) and asks the front, by SubjectAccessReview, whether that identity may act, so RBAC lives in one place.
// The real kubectl talks to the front only.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eventually } from '../helpers/api.js';
import { httpsRequest, startTestGatehouse, type RequestOptions, type TestGatehouse } from '../helpers/gatehouse.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import { issueClientCert, issueServerCert, makeCA } from '../helpers/pki.js';
import { bindingBody, RBAC_V1, roleBody } from '../helpers/rbac.js';

const SERVICE = { namespace: 'gatehouse-batch', name: 'api', port: 443 };
const PROXY_CN = 'front-proxy-client';
const AUTHZ_USER = 'system:gatehouse-batch-authorizer';
const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const TOKENS: Record<string, string> = {
  alice: 'alice-token-0123456789',
  bob: 'bob-token-0123456789',
  [AUTHZ_USER]: 'batch-authorizer-token-0123456789',
};

describe('Gatehouse behind Gatehouse: the batch group served by a second Gatehouse', function () {
  this.timeout(120_000);
  let dir: string;
  let front: TestGatehouse;
  let back: TestGatehouse;
  let backCa: string;
  let proxyClient: { cert: string; key: string };
  let kubectl: Kubectl;
  let ns: string;

  // The second process serves with its own certificate, not the CA its test helper generated.
  const onBack = (method: string, urlPath: string, opts: RequestOptions = {}) =>
    httpsRequest(back.url, backCa, method, urlPath, { ...opts, defaultToken: back.adminToken });
  const asFront = (user: string) =>
    httpsRequest(back.url, backCa, 'GET', `/apis/batch/v1/namespaces/${ns}/cronjobs`, {
      clientCert: proxyClient,
      headers: { 'x-remote-user': user },
    });

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gh-behind-gh-'));
    const file = (name: string) => path.join(dir, name);
    const frontProxyCa = await makeCA('front-proxy-ca');
    const client = await issueClientCert(frontProxyCa, { cn: PROXY_CN });
    proxyClient = { cert: client.certPem, key: client.keyPem };
    const servingCa = await makeCA('batch-serving-ca');
    backCa = servingCa.certPem;
    // The front verifies the name the APIService's Service stands for; the endpoints entry points at an IP.
    const serving = await issueServerCert(servingCa, {
      dns: [`${SERVICE.name}.${SERVICE.namespace}.svc`],
      ips: ['127.0.0.1'],
    });
    await writeFile(
      file('tokens.csv'),
      Object.entries(TOKENS)
        .map(([user, token]) => `${token},${user},${user}-uid,""`)
        .join('\n'),
    );
    await writeFile(file('front-proxy-ca.crt'), frontProxyCa.certPem);
    await writeFile(file('proxy-client.crt'), client.certPem);
    await writeFile(file('proxy-client.key'), client.keyPem);
    await writeFile(file('serving.crt'), serving.certPem);
    await writeFile(file('serving.key'), serving.keyPem);
    // The second process's address is known only once it listens: the front starts with no entries, and reads the
    // file again when it changes.
    await writeFile(file('endpoints.json'), '[]');

    front = await startTestGatehouse([
      '--storage-backend=memory',
      '--authorization-mode=RBAC',
      `--token-auth-file=${file('tokens.csv')}`,
      // Cron jobs are served in the upstream group `batch` only: there is no batch.platform.io to switch off.
      '--runtime-config=batch/v1=false',
      `--aggregator-endpoints-file=${file('endpoints.json')}`,
      `--proxy-client-cert-file=${file('proxy-client.crt')}`,
      `--proxy-client-key-file=${file('proxy-client.key')}`,
    ]);
    await writeFile(
      file('authz-webhook.kubeconfig'),
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'front',
            cluster: {
              server: `${front.url}/apis/authorization.k8s.io/v1/subjectaccessreviews`,
              'certificate-authority-data': Buffer.from(front.ca).toString('base64'),
            },
          },
        ],
        users: [{ name: 'authorizer', user: { token: TOKENS[AUTHZ_USER] } }],
        contexts: [{ name: 'front', context: { cluster: 'front', user: 'authorizer' } }],
        'current-context': 'front',
      }),
    );
    back = await startTestGatehouse([
      '--storage-backend=memory',
      `--tls-cert-file=${file('serving.crt')}`,
      `--tls-private-key-file=${file('serving.key')}`,
      `--requestheader-client-ca-file=${file('front-proxy-ca.crt')}`,
      `--requestheader-allowed-names=${PROXY_CN}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--authorization-mode=Webhook',
      `--authorization-webhook-config-file=${file('authz-webhook.kubeconfig')}`,
      '--authorization-webhook-version=v1',
      // Refusals are not cached, so a grant made on the front is seen by the next request.
      '--authorization-webhook-cache-unauthorized-ttl=0s',
    ]);
    await writeFile(file('endpoints.json'), JSON.stringify([{ ...SERVICE, url: back.url }]));

    // What the second process's webhook identity needs on the front, and what alice may do there.
    for (const [url, body] of [
      [
        `${RBAC_V1}/clusterroles`,
        roleBody(
          'gatehouse-batch-authorizer',
          [{ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'] }],
          'ClusterRole',
        ),
      ],
      [
        `${RBAC_V1}/clusterrolebindings`,
        bindingBody(
          'gatehouse-batch-authorizer',
          'ClusterRole',
          'gatehouse-batch-authorizer',
          [AUTHZ_USER],
          'ClusterRoleBinding',
        ),
      ],
      [
        `${RBAC_V1}/clusterroles`,
        roleBody('cronjob-editor', [{ verbs: ['*'], apiGroups: ['batch'], resources: ['cronjobs'] }], 'ClusterRole'),
      ],
      [
        `${RBAC_V1}/clusterrolebindings`,
        bindingBody('alice-cronjobs', 'ClusterRole', 'cronjob-editor', ['alice'], 'ClusterRoleBinding'),
      ],
    ] as const) {
      const res = await front.request('POST', url, { body });
      expect(res.status, res.body).to.equal(201);
    }
    const registered = await front.request('POST', APISERVICES, {
      body: {
        apiVersion: 'apiregistration.platform.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1.batch' },
        spec: {
          group: 'batch',
          version: 'v1',
          service: { namespace: SERVICE.namespace, name: SERVICE.name, port: SERVICE.port },
          caBundle: Buffer.from(backCa).toString('base64'),
          groupPriorityMinimum: 17400,
          versionPriority: 15,
        },
      },
    });
    expect(registered.status, registered.body).to.equal(201);
    // Namespaces are the core group's, which each process serves itself: the second one checks its own.
    ns = `g2g-${process.pid}`;
    const namespace = { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } };
    for (const res of [
      await front.request('POST', '/api/v1/namespaces', namespace),
      await onBack('POST', '/api/v1/namespaces', namespace),
    ])
      expect(res.status, res.body).to.equal(201);
    await eventually('v1.batch is Available', async () => {
      const obj = (await front.request('GET', `${APISERVICES}/v1.batch`)).json();
      return obj.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True');
    });
    kubectl = await createKubectl(front.kubeconfigPath);
  });

  after(async () => {
    await kubectl?.cleanup();
    await front?.close();
    await back?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps the remote APIService for the group switched off on the front', async () => {
    const obj = (await front.request('GET', `${APISERVICES}/v1.batch`)).json();
    expect(obj.spec.service).to.deep.include({ namespace: SERVICE.namespace, name: SERVICE.name });
    expect(obj.metadata.labels?.['kube-aggregator.kubernetes.io/automanaged']).to.equal(undefined);
  });

  it('kubectl create cronjob through the front lands in the second process', async () => {
    await kubectl.ok(['create', 'cronjob', 'nightly', '-n', ns, '--image=busybox', '--schedule=0 3 * * *']);
    const stored = await onBack('GET', `/apis/batch/v1/namespaces/${ns}/cronjobs/nightly`);
    expect(stored.status, stored.body).to.equal(200);
    expect(stored.json().spec.schedule).to.equal('0 3 * * *');
  });

  it('kubectl get cronjobs through the front lists what the second process stores', async () => {
    const out = await kubectl.ok(['get', 'cronjobs', '-n', ns, '-o', 'name']);
    expect(out.trim().split('\n')).to.deep.equal(['cronjob.batch/nightly']);
  });

  it('the second process asks the front: RBAC there decides who may act', async () => {
    expect((await asFront('alice')).status).to.equal(200);
    const refused = await asFront('bob');
    expect(refused.status, refused.body).to.equal(403);
    expect(refused.json().message).to.include('bob');
  });

  it('kubectl as a user the front refuses is told so; as one it allows, lists the cron job', async () => {
    const refused = await kubectl.run(['get', 'cronjobs', '-n', ns, `--token=${TOKENS.bob}`]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('User "bob" cannot list resource "cronjobs" in API group "batch"');
    const listed = await kubectl.ok(['get', 'cronjobs', '-n', ns, '-o', 'name', `--token=${TOKENS.alice}`]);
    expect(listed.trim()).to.equal('cronjob.batch/nightly');
  });
});
