// Wire details clients depend on, over real HTTPS: boolean query parameters read as kube-apiserver reads them, the
// deprecated /watch/ paths, pretty output by user agent and parameter, and the messages for a body of another kind.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, uniqueName } from '../helpers/api.js';
import { openWatch, type OpenWatch } from '../helpers/watch-client.js';

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

describe('wire compatibility', function () {
  let gh: TestGatehouse;
  let ns: string;
  let cms: string;
  const opened: OpenWatch[] = [];

  async function watch(path: string): Promise<OpenWatch> {
    const w = await openWatch(gh.url, path, { ca: gh.ca, token: gh.adminToken });
    opened.push(w);
    return w;
  }

  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'wire');
    cms = `/api/v1/namespaces/${ns}/configmaps`;
  });
  afterEach(() => {
    for (const w of opened.splice(0)) w.close();
  });
  after(async () => gh.close());

  describe('boolean query parameters', () => {
    it('takes allowWatchBookmarks=True and sendInitialEvents=True as true (the initial-events-end bookmark comes)', async () => {
      const name = uniqueName('bm');
      await gh.request('POST', cms, { body: cm(name) });
      const w = await watch(
        `${cms}?watch=True&allowWatchBookmarks=True&sendInitialEvents=True&resourceVersionMatch=NotOlderThan`,
      );
      expect(w.status).to.equal(200);
      const [added, mark] = await w.take(2);
      expect(`${added.type} ${added.object.metadata?.name}`).to.equal(`ADDED ${name}`);
      expect(mark.type).to.equal('BOOKMARK');
      expect(mark.object.metadata?.annotations).to.deep.equal({ 'k8s.io/initial-events-end': 'true' });
    });

    it('takes watch=False and allowWatchBookmarks=FALSE as false', async () => {
      const list = await gh.request('GET', `${cms}?watch=False&allowWatchBookmarks=FALSE`);
      expect(list.status).to.equal(200);
      expect(list.json().kind).to.equal('ConfigMapList');
    });

    it('takes force=True on an apply as force, taking the field over', async () => {
      const name = uniqueName('force');
      expect(
        (
          await gh.request('PATCH', `${cms}/${name}?fieldManager=first`, {
            body: cm(name, { a: 'one' }),
            headers: APPLY,
          })
        ).status,
      ).to.equal(201);
      const conflict = await gh.request('PATCH', `${cms}/${name}?fieldManager=second&force=False`, {
        body: cm(name, { a: 'two' }),
        headers: APPLY,
      });
      expect(conflict.status).to.equal(409);
      const forced = await gh.request('PATCH', `${cms}/${name}?fieldManager=second&force=True`, {
        body: cm(name, { a: 'two' }),
        headers: APPLY,
      });
      expect(forced.status).to.equal(200);
      expect(forced.json().data).to.deep.equal({ a: 'two' });
    });

    it('takes orphanDependents=True as true: a pending delete answers 200, not the 202 of a cascading one', async () => {
      const held = async (): Promise<string> => {
        const name = uniqueName('orphan');
        const body = { ...cm(name), metadata: { name, finalizers: ['example.com/hold'] } };
        expect((await gh.request('POST', cms, { body })).status).to.equal(201);
        return name;
      };
      const orphaned = await gh.request('DELETE', `${cms}/${await held()}?orphanDependents=True`);
      expect(orphaned.status).to.equal(200);
      expect(orphaned.json().metadata.deletionTimestamp).to.be.a('string');
      const cascading = await gh.request('DELETE', `${cms}/${await held()}?orphanDependents=False`);
      expect(cascading.status).to.equal(202);
      const both = await gh.request(
        'DELETE',
        `${cms}/${await held()}?orphanDependents=yes&propagationPolicy=Background`,
      );
      expect(both.status).to.equal(422);
      expect(both.json().message).to.contain('orphanDependents and deletionPropagation cannot be both set');
    });
  });

  describe('deprecated watch paths', () => {
    it('watches a namespaced collection, every namespace, and one object by name under /api/v1/watch/', async () => {
      const own = await createNamespace(gh, 'watch-paths');
      const cms = `/api/v1/namespaces/${own}/configmaps`;
      const target = uniqueName('target');
      const other = uniqueName('other');
      await gh.request('POST', cms, { body: cm(target) });
      await gh.request('POST', cms, { body: cm(other) });

      const collection = await watch(`/api/v1/watch/namespaces/${own}/configmaps`);
      expect(collection.status).to.equal(200);
      expect(collection.headers['content-type']).to.equal('application/json');
      const names = (await collection.take(2)).map((e) => `${e.type} ${e.object.metadata?.name}`).sort();
      expect(names).to.deep.equal([`ADDED ${other}`, `ADDED ${target}`].sort());

      const everywhere = await watch(`/api/v1/watch/configmaps?fieldSelector=metadata.namespace%3D${own}`);
      expect(everywhere.status).to.equal(200);
      expect((await everywhere.take(2)).map((e) => e.type)).to.deep.equal(['ADDED', 'ADDED']);

      const one = await watch(`/api/v1/watch/namespaces/${own}/configmaps/${target}`);
      expect(one.status).to.equal(200);
      const first = await one.next();
      expect(`${first.type} ${first.object.metadata?.name}`).to.equal(`ADDED ${target}`);
      await gh.request('PATCH', `${cms}/${other}`, {
        body: { data: { x: '1' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      await gh.request('PATCH', `${cms}/${target}`, {
        body: { data: { x: '2' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      const change = await one.next();
      expect(`${change.type} ${change.object.metadata?.name}`).to.equal(`MODIFIED ${target}`);
    });

    it('watches named groups, namespaced and cluster-scoped, and a namespace by name', async () => {
      const role = uniqueName('role');
      const rbac = '/apis/rbac.authorization.platform.io/v1';
      expect(
        (await gh.request('POST', `${rbac}/namespaces/${ns}/roles`, { body: { metadata: { name: role }, rules: [] } }))
          .status,
      ).to.equal(201);
      const roles = await watch(`${rbac}/watch/namespaces/${ns}/roles`);
      expect(roles.status).to.equal(200);
      expect(`${(await roles.next()).object.metadata?.name}`).to.equal(role);
      const clusterRole = await watch(`${rbac}/watch/clusterroles/admin`);
      expect(clusterRole.status).to.equal(200);
      const admin = await clusterRole.next();
      expect(`${admin.type} ${admin.object.kind} ${admin.object.metadata?.name}`).to.equal('ADDED ClusterRole admin');
      const namespace = await watch(`/api/v1/watch/namespaces/${ns}`);
      expect(namespace.status).to.equal(200);
      const nsEvent = await namespace.next();
      expect(`${nsEvent.type} ${nsEvent.object.kind} ${nsEvent.object.metadata?.name}`).to.equal(
        `ADDED Namespace ${ns}`,
      );
    });

    it('serves only GET there: other methods 405, subresources and misplaced scopes 404', async () => {
      const post = await gh.request('POST', `/api/v1/watch/namespaces/${ns}/configmaps`, {
        body: cm(uniqueName('no')),
      });
      expect(post.status).to.equal(405);
      expect(post.json().reason).to.equal('MethodNotAllowed');
      expect((await gh.request('GET', `/api/v1/watch/namespaces/${ns}/configmaps/x/status`)).status).to.equal(404);
      expect((await gh.request('GET', '/api/v1/watch/configmaps/x')).status).to.equal(404);
      expect((await gh.request('GET', `/api/v1/watch/namespaces/${ns}/nodes`)).status).to.equal(404);
    });
  });

  describe('pretty output', () => {
    const indented = /^\{\n {2}"/;

    it('indents JSON for curl, Wget and browsers, and not for other clients', async () => {
      const name = uniqueName('pretty');
      await gh.request('POST', cms, { body: cm(name) });
      for (const agent of ['curl/8.5.0', 'Wget/1.21.4', 'Mozilla/5.0 (X11; Linux x86_64)']) {
        const res = await gh.request('GET', `${cms}/${name}`, { headers: { 'user-agent': agent } });
        expect(res.body, agent).to.match(indented);
        // As Go's MarshalIndent: no closing newline.
        expect(res.body.endsWith('}'), agent).to.equal(true);
      }
      const kubectl = await gh.request('GET', `${cms}/${name}`, {
        headers: { 'user-agent': 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc' },
      });
      expect(kubectl.body).to.match(/^\{"/);
      // Errors and discovery too.
      const missing = await gh.request('GET', `${cms}/absent`, { headers: { 'user-agent': 'curl/8.5.0' } });
      expect(missing.status).to.equal(404);
      expect(missing.body).to.match(indented);
      expect((await gh.request('GET', '/api', { headers: { 'user-agent': 'curl/8.5.0' } })).body).to.match(indented);
    });

    it('lets the pretty parameter override the user agent, read strictly (pretty=yes is false)', async () => {
      const name = uniqueName('param');
      await gh.request('POST', cms, { body: cm(name) });
      const get = (query: string, agent = 'kubectl/v1.32.0') =>
        gh.request('GET', `${cms}/${name}${query}`, { headers: { 'user-agent': agent } });
      expect((await get('?pretty=true')).body).to.match(indented);
      expect((await get('?pretty=1')).body).to.match(indented);
      expect((await get('?pretty=yes')).body).to.match(/^\{"/);
      expect((await get('?pretty=false', 'curl/8.5.0')).body).to.match(/^\{"/);
      expect((await get('?pretty=yes', 'curl/8.5.0')).body).to.match(/^\{"/);
      expect((await get('?pretty=', 'curl/8.5.0')).body).to.match(indented);
    });

    it('indents for the media-type parameter pretty=1', async () => {
      const name = uniqueName('media');
      await gh.request('POST', cms, { body: cm(name) });
      const res = await gh.request('GET', `${cms}/${name}`, { headers: { accept: 'application/json;pretty=1' } });
      expect(res.body).to.match(indented);
      expect(res.headers['content-type']).to.equal('application/json');
    });
  });

  describe('a body of another kind', () => {
    it('says which kind cannot be handled as which, as the decoder does', async () => {
      const wrong = await gh.request('POST', '/api/v1/namespaces', { body: cm(uniqueName('cm')) });
      expect(wrong.status).to.equal(400);
      expect(wrong.json()).to.include({
        reason: 'BadRequest',
        message:
          'ConfigMap in version "v1" cannot be handled as a Namespace: converting (v1.ConfigMap) to (core.Namespace): unknown conversion',
      });
      const named = await gh.request('POST', `/apis/rbac.authorization.platform.io/v1/namespaces/${ns}/roles`, {
        body: { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'RoleBinding', metadata: { name: 'x' } },
      });
      expect(named.json().message).to.equal(
        'RoleBinding in version "v1" cannot be handled as a Role: converting (v1.RoleBinding) to (rbac.Role): unknown conversion',
      );
      const update = await gh.request('PUT', `/api/v1/namespaces/${ns}`, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: ns } },
      });
      expect(update.json().message).to.match(/^Secret in version "v1" cannot be handled as a Namespace: /);
    });

    it("calls a body whose type cannot be read unrecognized, and takes a body naming no kind as the endpoint's", async () => {
      const list = await gh.request('POST', cms, { body: [1] });
      expect(list.status).to.equal(400);
      expect(list.json().message).to.match(
        /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: json: cannot unmarshal array into Go value of type struct /,
      );
      const numericKind = await gh.request('POST', cms, { body: { kind: 5, metadata: { name: 'n' } } });
      expect(numericKind.json().message).to.equal(
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5,"metadata":{"name":" ...)',
      );
      const name = uniqueName('kindless');
      const kindless = await gh.request('POST', cms, { body: { metadata: { name }, data: { a: 'b' } } });
      expect(kindless.status).to.equal(201);
      expect(kindless.json()).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
    });
  });
});
