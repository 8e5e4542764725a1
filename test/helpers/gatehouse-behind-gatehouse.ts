// Two real Gatehouses: the front serves everything but the batch group, which an APIService sends to a second
// Gatehouse with its own storage. The second trusts the front's proxy certificate for identity (request-header
// flags) and asks the front, by SubjectAccessReview, whether that identity may act, so RBAC lives in one place.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { eventually } from './api.js';
import {
  httpsRequest,
  startTestGatehouse,
  type GatehouseResponse,
  type RequestOptions,
  type TestGatehouse,
} from './gatehouse.js';
import { createKubectl, type Kubectl } from './kubectl.js';
import { issueClientCert, issueServerCert, makeCA } from './pki.js';
import { bindingBody, RBAC_V1, roleBody } from './rbac.js';

export const BATCH_SERVICE = { namespace: 'gatehouse-batch', name: 'api', port: 443 };
export const FRONT_PROXY_CN = 'front-proxy-client';
export const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const AUTHZ_USER = 'system:gatehouse-batch-authorizer';
export const TOKENS: Record<string, string> = {
  alice: 'alice-token-0123456789',
  bob: 'bob-token-0123456789',
  [AUTHZ_USER]: 'batch-authorizer-token-0123456789',
};

export interface GatehouseBehindGatehouse {
  front: TestGatehouse;
  back: TestGatehouse;
  /** The second process's serving CA (the APIService's caBundle). */
  backCa: string;
  /** The front's proxy client certificate, which the second process believes X-Remote-* headers from. */
  proxyClient: { cert: string; key: string };
  /** The real kubectl, as the front's admin. */
  kubectl: Kubectl;
  /** A namespace created on the front only. */
  ns: string;
  /** A request to the second process directly, as its own admin. */
  onBack(method: string, urlPath: string, opts?: RequestOptions): Promise<GatehouseResponse>;
  close(): Promise<void>;
}

function webhookKubeconfig(front: TestGatehouse): string {
  return JSON.stringify({
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
  });
}

/** What the second process's webhook identity needs on the front, and what alice may do there. */
async function grantOnFront(front: TestGatehouse): Promise<void> {
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
}

export async function startGatehouseBehindGatehouse(): Promise<GatehouseBehindGatehouse> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gh-behind-gh-'));
  const file = (name: string) => path.join(dir, name);
  let front: TestGatehouse | undefined;
  let back: TestGatehouse | undefined;
  let kubectl: Kubectl | undefined;
  const close = async () => {
    await kubectl?.cleanup();
    await front?.close();
    await back?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const frontProxyCa = await makeCA('front-proxy-ca');
    const client = await issueClientCert(frontProxyCa, { cn: FRONT_PROXY_CN });
    const servingCa = await makeCA('batch-serving-ca');
    // The front verifies the name the APIService's Service stands for; the endpoints entry points at an IP.
    const serving = await issueServerCert(servingCa, {
      dns: [`${BATCH_SERVICE.name}.${BATCH_SERVICE.namespace}.svc`],
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
    await writeFile(file('authz-webhook.kubeconfig'), webhookKubeconfig(front));
    const backArgs = [
      '--storage-backend=memory',
      // Only the group it serves for the front; the namespaces are the front's, which has checked them already.
      '--runtime-config=api/all=false,batch/v1=true',
      '--disable-admission-plugins=NamespaceLifecycle',
      `--tls-cert-file=${file('serving.crt')}`,
      `--tls-private-key-file=${file('serving.key')}`,
      `--requestheader-client-ca-file=${file('front-proxy-ca.crt')}`,
      `--requestheader-allowed-names=${FRONT_PROXY_CN}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--authorization-mode=Webhook',
      `--authorization-webhook-config-file=${file('authz-webhook.kubeconfig')}`,
      '--authorization-webhook-version=v1',
      // Refusals are not cached, so a grant made on the front is seen by the next request.
      '--authorization-webhook-cache-unauthorized-ttl=0s',
    ];
    back = await startTestGatehouse(backArgs);
    await writeFile(file('endpoints.json'), JSON.stringify([{ ...BATCH_SERVICE, url: back.url }]));
    await grantOnFront(front);
    const registered = await front.request('POST', APISERVICES, {
      body: {
        apiVersion: 'apiregistration.platform.io/v1',
        kind: 'APIService',
        metadata: { name: 'v1.batch' },
        spec: {
          group: 'batch',
          version: 'v1',
          service: BATCH_SERVICE,
          caBundle: Buffer.from(servingCa.certPem).toString('base64'),
          groupPriorityMinimum: 17400,
          versionPriority: 15,
        },
      },
    });
    expect(registered.status, registered.body).to.equal(201);
    const ns = `g2g-${process.pid}`;
    const created = await front.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    expect(created.status, created.body).to.equal(201);
    const backed = back;
    const onBack = (method: string, urlPath: string, opts: RequestOptions = {}) =>
      httpsRequest(backed.url, servingCa.certPem, method, urlPath, { ...opts, defaultToken: backed.adminToken });
    const fronted = front;
    await eventually('v1.batch is Available', async () => {
      const obj = (await fronted.request('GET', `${APISERVICES}/v1.batch`)).json();
      return obj.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True');
    });
    kubectl = await createKubectl(front.kubeconfigPath);
    return {
      front,
      back,
      backCa: servingCa.certPem,
      proxyClient: { cert: client.certPem, key: client.keyPem },
      kubectl,
      ns,
      onBack,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
