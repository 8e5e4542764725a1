// SelfSubjectReview, the first virtual create-only resource: who the caller
// is, over real HTTPS, for the admin token, a static-token user and anonymous; the verbs it refuses; discovery listing
// it under authentication.platform.io and, after it, the authentication.k8s.io alias; and the stock kubectl's
// `auth whoami`, which POSTs to that alias.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createKubectl, parseColumns } from '../helpers/kubectl.js';
import { expectFailure } from '../helpers/api.js';
import { decodeProtobufObject } from '../../api/proto/object-codec.js';
import { expectProtobufFailure } from '../helpers/protobuf.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

const GROUP = 'authentication.platform.io';
const PATH = `/apis/${GROUP}/v1/selfsubjectreviews`;
const BODY = { apiVersion: `${GROUP}/v1`, kind: 'SelfSubjectReview' };
const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const ALICE_TOKEN = 'alice-token-0123456789';

/** A protobuf envelope as client-go sends it: `k8s\0`, Unknown{1: TypeMeta{1: apiVersion, 2: kind}, 2: raw}. */
function envelope(apiVersion: string, kind: string, raw = Buffer.alloc(0)): Buffer {
  const field = (n: number, bytes: Buffer): Buffer => Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
  const typeMeta = Buffer.concat([field(1, Buffer.from(apiVersion)), field(2, Buffer.from(kind))]);
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), field(1, typeMeta), field(2, raw)]);
}
const PROTOBUF = {
  'content-type': 'application/vnd.kubernetes.protobuf',
  accept: 'application/vnd.kubernetes.protobuf,application/json',
};

describe('SelfSubjectReview', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();

  const review = async (token?: string | null, urlPath = PATH, body: unknown = BODY): Promise<any> => {
    const res = await env.gh.request('POST', urlPath, { body, token });
    expect(res.status, res.body).to.equal(201);
    return res.json();
  };

  describe('over HTTPS', () => {
    it('answers the admin token with system:admin in system:masters and system:authenticated', async () => {
      const r = await review();
      expect(r).to.deep.include({
        apiVersion: `${GROUP}/v1`,
        kind: 'SelfSubjectReview',
        metadata: { creationTimestamp: null },
      });
      expect(r.status.userInfo).to.include({ username: 'system:admin', uid: 'system:admin' });
      expect(r.status.userInfo.groups).to.have.members(['system:masters', 'system:authenticated']);
    });

    it('answers anonymous with system:anonymous in system:unauthenticated', async () => {
      const r = await review(null);
      expect(r.status.userInfo.username).to.equal('system:anonymous');
      expect(r.status.userInfo.groups).to.deep.equal(['system:unauthenticated']);
    });

    it('accepts a body without apiVersion and kind, in YAML too', async () => {
      expect((await review(undefined, PATH, {})).status.userInfo.username).to.equal('system:admin');
      const res = await env.gh.request('POST', PATH, {
        body: `apiVersion: ${GROUP}/v1\nkind: SelfSubjectReview\n`,
        headers: { 'content-type': 'application/yaml' },
      });
      expect(res.status, res.body).to.equal(201);
    });

    it('answers at the authentication.k8s.io aliases with their own apiVersion', async () => {
      for (const version of ['v1', 'v1beta1']) {
        const r = await review(undefined, `/apis/authentication.k8s.io/${version}/selfsubjectreviews`, {
          apiVersion: `authentication.k8s.io/${version}`,
          kind: 'SelfSubjectReview',
        });
        expect(r.apiVersion).to.equal(`authentication.k8s.io/${version}`);
        expect(r.status.userInfo.username).to.equal('system:admin');
      }
      // v1alpha1 is not served: kubectl falls back to it only after v1 and v1beta1.
      expect(
        (await env.gh.request('POST', '/apis/authentication.k8s.io/v1alpha1/selfsubjectreviews', { body: BODY }))
          .status,
      ).to.equal(404);
    });

    it('refuses other verbs with 405, other paths with 404, a mismatched body with 400', async () => {
      expectFailure(await env.gh.request('GET', PATH), 405, 'MethodNotAllowed');
      expectFailure(await env.gh.request('DELETE', PATH), 405, 'MethodNotAllowed');
      expectFailure(await env.gh.request('PUT', PATH, { body: BODY }), 405, 'MethodNotAllowed');
      expectFailure(await env.gh.request('GET', `${PATH}/x`), 404, 'NotFound');
      expectFailure(
        await env.gh.request('POST', `/apis/${GROUP}/v1/namespaces/default/selfsubjectreviews`, { body: BODY }),
        404,
        'NotFound',
      );
      expectFailure(
        await env.gh.request('POST', PATH, { body: { ...BODY, apiVersion: 'authentication.k8s.io/v1' } }),
        400,
        'BadRequest',
      );
      expectFailure(await env.gh.request('POST', PATH, { body: { ...BODY, kind: 'TokenReview' } }), 400, 'BadRequest');
      expectFailure(await env.gh.request('POST', PATH, { body: [] }), 400, 'BadRequest');
      expectFailure(
        await env.gh.request('POST', PATH, { body: 'apiVersion: [', headers: { 'content-type': 'application/yaml' } }),
        400,
        'BadRequest',
      );
    });
  });

  describe('protobuf bodies (what typed clients send)', () => {
    it('reads apiVersion and kind from the envelope and answers in protobuf', async () => {
      const res = await env.gh.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
        body: envelope('authentication.k8s.io/v1', 'SelfSubjectReview', Buffer.from([0x0a, 0x00])),
        headers: PROTOBUF,
      });
      expect(res.status, res.body).to.equal(201);
      expect(String(res.headers['content-type'])).to.equal('application/vnd.kubernetes.protobuf');
      const review = decodeProtobufObject(res.raw) as any;
      expect(review).to.include({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      expect(review.status.userInfo.groups).to.include('system:masters');
    });

    it('refuses a mismatched kind, a missing prefix and a truncated envelope with 400', async () => {
      expectProtobufFailure(
        await env.gh.request('POST', PATH, { body: envelope(`${GROUP}/v1`, 'TokenReview'), headers: PROTOBUF }),
        400,
        'BadRequest',
      );
      expectProtobufFailure(
        await env.gh.request('POST', PATH, { body: Buffer.from('{"kind":"SelfSubjectReview"}'), headers: PROTOBUF }),
        400,
        'BadRequest',
      );
      expectProtobufFailure(
        await env.gh.request('POST', PATH, {
          body: envelope(`${GROUP}/v1`, 'SelfSubjectReview').subarray(0, 10),
          headers: PROTOBUF,
        }),
        400,
        'BadRequest',
      );
    });
  });

  describe('a static-token user', () => {
    let gh2: TestGatehouse;
    before(async () => {
      const file = path.join(env.gh.dataDir, 'tokens.csv');
      await writeFile(file, `${ALICE_TOKEN},alice,alice-uid,"dev,ops"\n`);
      gh2 = await startTestGatehouse(['--token-auth-file', file]);
    });
    after(async () => {
      await gh2?.close();
    });

    it('sees its name, uid and groups', async () => {
      const res = await gh2.request('POST', PATH, { body: BODY, token: ALICE_TOKEN });
      expect(res.status, res.body).to.equal(201);
      const info = res.json().status.userInfo;
      expect(info).to.include({ username: 'alice', uid: 'alice-uid' });
      expect(info.groups).to.have.members(['dev', 'ops', 'system:authenticated']);
    });

    it('is what kubectl auth whoami prints for it', async () => {
      const k = await createKubectl(gh2.kubeconfigPath);
      try {
        const out = await k.ok(['auth', 'whoami', '--token', ALICE_TOKEN, '-o', 'json']);
        const r = JSON.parse(out);
        expect(r.status.userInfo).to.include({ username: 'alice', uid: 'alice-uid' });
      } finally {
        await k.cleanup();
      }
    });
  });

  describe('discovery', () => {
    it('lists selfsubjectreviews under authentication.platform.io/v1 with verbs [create], then under the alias', async () => {
      const groups = (await env.gh.request('GET', '/apis')).json().groups.map((g: any) => g.name);
      expect(groups.indexOf('authentication.k8s.io')).to.be.greaterThan(groups.indexOf(GROUP)).and.greaterThan(-1);
      expect((await env.gh.request('GET', `/apis/${GROUP}`)).json().preferredVersion).to.deep.equal({
        groupVersion: `${GROUP}/v1`,
        version: 'v1',
      });

      const list = (await env.gh.request('GET', `/apis/${GROUP}/v1`)).json();
      expect(list).to.include({ kind: 'APIResourceList', groupVersion: `${GROUP}/v1` });
      expect(list.resources).to.deep.equal([
        {
          name: 'selfsubjectreviews',
          singularName: 'selfsubjectreview',
          namespaced: false,
          kind: 'SelfSubjectReview',
          verbs: ['create'],
        },
      ]);
      for (const version of ['v1', 'v1beta1']) {
        expect(
          (await env.gh.request('GET', `/apis/authentication.k8s.io/${version}`)).json().resources,
          version,
        ).to.deep.equal([
          {
            name: 'selfsubjectreviews',
            singularName: 'selfsubjectreview',
            namespaced: false,
            kind: 'SelfSubjectReview',
            verbs: ['create'],
          },
        ]);
      }

      const res = await env.gh.request('GET', '/apis', { headers: { accept: `${AGGREGATED_V2},application/json` } });
      expect(res.headers['content-type']).to.equal(AGGREGATED_V2);
      const items = res.json().items as any[];
      const names = items.map((g) => g.metadata.name);
      expect(names.indexOf('authentication.k8s.io')).to.be.greaterThan(names.indexOf(GROUP)).and.greaterThan(-1);
      const v1 = items.find((g) => g.metadata.name === GROUP).versions.find((v: any) => v.version === 'v1');
      expect(v1.resources).to.deep.equal([
        {
          resource: 'selfsubjectreviews',
          responseKind: { group: GROUP, version: 'v1', kind: 'SelfSubjectReview' },
          scope: 'Cluster',
          singularResource: 'selfsubjectreview',
          verbs: ['create'],
        },
      ]);
    });
  });

  describe('kubectl', () => {
    it('auth whoami prints the admin user and its groups', async () => {
      const rows = parseColumns(await env.kubectl.ok(['auth', 'whoami']));
      const fields = Object.fromEntries(rows.map((r) => [r.ATTRIBUTE, r.VALUE]));
      expect(fields.Username).to.equal('system:admin');
      expect(fields.UID).to.equal('system:admin');
      expect(fields.Groups).to.equal('[system:masters system:authenticated]');
    });

    it('auth whoami -o json prints the review in the group kubectl asked', async () => {
      const r = JSON.parse(await env.kubectl.ok(['auth', 'whoami', '-o', 'json']));
      expect(r).to.include({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
      expect(r.status.userInfo.username).to.equal('system:admin');
      expect(r.status.userInfo.groups).to.have.members(['system:masters', 'system:authenticated']);
    });

    it('api-resources lists selfsubjectreviews under authentication.platform.io and under the alias', async () => {
      const rows = parseColumns(await env.kubectl.ok(['api-resources']));
      const ssr = rows.filter((r) => r.NAME === 'selfsubjectreviews');
      // kubectl sorts the rows by group.
      expect(ssr.map((r) => [r.APIVERSION, r.NAMESPACED, r.KIND])).to.have.deep.members([
        [`${GROUP}/v1`, 'false', 'SelfSubjectReview'],
        ['authentication.k8s.io/v1', 'false', 'SelfSubjectReview'],
      ]);
      const creatable = parseColumns(await env.kubectl.ok(['api-resources', '--verbs=create', '-o', 'wide'])).map(
        (r) => r.NAME,
      );
      expect(creatable).to.include('selfsubjectreviews');
      const listable = parseColumns(await env.kubectl.ok(['api-resources', '--verbs=list'])).map((r) => r.NAME);
      expect(listable).to.not.include('selfsubjectreviews');
    });
  });
});
