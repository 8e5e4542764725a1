// The workload of test/perf/inline-caches.test.ts, run in a child process under `node --log-ic`: an in-process
// Gatehouse with RBAC (flags from GATEHOUSE_ARGS, JSON) serving watchers while rounds of create, get, update, merge
// patch, apply, list and delete go through it: from the admin and from a user whose Role allows it, reads in JSON,
// protobuf and as Tables, impersonating, and at a hidden alias group, with a ResourceQuota charging every create;
// and ReplicaSets created by server-side apply, patched (strategic merge), their status written, listed and deleted
// by label. Between the warm-up rounds and the measured ones it prints `STEADY <microseconds since the process
// started>`, the clock of V8's log, so that the parent judges only what the steady state logged.
import { bindingBody, RBAC_V1, roleBody, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';
import { openWatch } from '../helpers/watch-client.js';

const args = JSON.parse(process.env.GATEHOUSE_ARGS ?? '[]') as string[];
const rounds = Number(process.env.ROUNDS ?? 100);
const gh = await startRbacGatehouse('Node,RBAC', args);
const alice = tokenOf('alice');

async function expectStatus(
  what: string,
  response: Promise<{ status: number; body: string }>,
  ...ok: number[]
): Promise<{ status: number; body: string }> {
  const res = await response;
  if (!ok.includes(res.status)) throw new Error(`${what}: ${res.status} ${res.body}`);
  return res;
}

const data = (i: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`k0${k}`, `${'v'.repeat(100)}${i}`]));

async function round(tag: string): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const name = `${tag}-${i}`;
    const item = `/api/v1/namespaces/ic/configmaps/${name}`;
    const created = await expectStatus(
      'create',
      gh.request('POST', '/api/v1/namespaces/ic/configmaps', {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: data(i) },
      }),
      201,
    );
    await expectStatus('get', gh.request('GET', item), 200);
    await expectStatus('get as a user', gh.request('GET', item, { token: alice }), 200);
    await expectStatus(
      'get in protobuf',
      gh.request('GET', item, { token: alice, headers: { accept: 'application/vnd.kubernetes.protobuf' } }),
      200,
    );
    await expectStatus(
      'get as a table',
      gh.request('GET', item, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }),
      200,
    );
    const object = JSON.parse(created.body) as { data: Record<string, string> };
    object.data.k00 = 'updated';
    await expectStatus('update', gh.request('PUT', item, { body: object }), 200);
    await expectStatus(
      'merge patch',
      gh.request('PATCH', item, {
        token: alice,
        body: { data: { k01: 'patched' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
      200,
    );
    await expectStatus(
      'apply',
      gh.request('PATCH', `${item}?fieldManager=ic-test&force=true`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k02: 'applied' } },
        headers: { 'content-type': 'application/apply-patch+yaml' },
      }),
      200,
    );
    await expectStatus(
      'get impersonating',
      gh.request('GET', item, { headers: { 'impersonate-user': 'alice', 'impersonate-group': 'dev' } }),
      200,
    );
    await expectStatus(
      'get at an alias group',
      gh.request('GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/ic/roles/ic'),
      200,
    );
    if (i % 10 === 0)
      await expectStatus('list', gh.request('GET', '/api/v1/namespaces/ic/configmaps?limit=20', { token: alice }), 200);
    await expectStatus('delete', gh.request('DELETE', item), 200);
    // Created by server-side apply, labelled, listed by label, its status written, then deleted by label.
    const applied = `/apis/apps/v1/namespaces/ic/replicasets/${name}`;
    await expectStatus(
      'apply a new object',
      gh.request('PATCH', `${applied}?fieldManager=ic-test`, {
        body: {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name, labels: { round: tag } },
          spec: {
            replicas: 1,
            selector: { matchLabels: { app: name } },
            template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
          },
        },
        headers: { 'content-type': 'application/apply-patch+yaml' },
      }),
      201,
    );
    await expectStatus(
      'strategic merge patch',
      gh.request('PATCH', applied, {
        body: {
          metadata: { annotations: { note: 'n' } },
          spec: { template: { spec: { containers: [{ name: 'c', env: [{ name: 'E', value: 'v' }] }] } } },
        },
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
      }),
      200,
    );
    await expectStatus(
      'status',
      gh.request('PATCH', `${applied}/status`, {
        body: { status: { replicas: 1, observedGeneration: 1 } },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
      200,
    );
    await expectStatus(
      'list by label',
      gh.request('GET', `/apis/apps/v1/namespaces/ic/replicasets?labelSelector=round%3D${tag}`),
      200,
    );
    await expectStatus(
      'delete by label',
      gh.request('DELETE', `/apis/apps/v1/namespaces/ic/replicasets?labelSelector=round%3D${tag}`),
      200,
    );
  }
}

try {
  await expectStatus(
    'namespace',
    gh.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ic' } },
    }),
    201,
  );
  // A quota in the namespace: every create is charged against it (quota admission) and its status kept current.
  await expectStatus(
    'quota',
    gh.request('POST', '/api/v1/namespaces/ic/resourcequotas', {
      body: {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'ic' },
        spec: { hard: { 'count/configmaps': '100000' } },
      },
    }),
    201,
  );
  await expectStatus(
    'role',
    gh.request('POST', `${RBAC_V1}/namespaces/ic/roles`, {
      body: roleBody('ic', [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }]),
    }),
    201,
  );
  await expectStatus(
    'binding',
    gh.request('POST', `${RBAC_V1}/namespaces/ic/rolebindings`, { body: bindingBody('ic', 'Role', 'ic', ['alice']) }),
    201,
  );
  const watches = await Promise.all(
    Array.from({ length: 5 }, () =>
      openWatch(gh.url, '/api/v1/namespaces/ic/configmaps?watch=1', { ca: gh.ca, token: gh.adminToken }),
    ),
  );
  await round('warm');
  process.stdout.write(`STEADY ${Math.round(performance.now() * 1000)}\n`);
  await round('steady');
  for (const w of watches) w.close();
} finally {
  await gh.close();
}
