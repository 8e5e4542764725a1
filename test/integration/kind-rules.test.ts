// Kind rules kube-apiserver applies and clients rely on: the keys a typed Secret must carry (under both spellings of
// its type), base64 that Go cannot decode, Node allocatable defaulted from capacity, and the namespace name label.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('kind rules', function () {
  let gh: TestGatehouse;
  const ns = 'kind-rules';
  const secrets = `/api/v1/namespaces/${ns}/secrets`;
  let counter = 0;
  const createSecret = (type: string, data: Record<string, string>, annotations?: Record<string, string>) =>
    gh.request('POST', secrets, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${++counter}`, annotations }, type, data },
    });

  before(async () => {
    gh = await startTestGatehouse();
    expect((await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).to.equal(201);
  });
  after(async () => gh.close());

  for (const prefix of ['kubernetes.io', 'platform.io']) {
    describe(`Secret types spelled ${prefix}/`, () => {
      const causes = async (type: string, data: Record<string, string>, annotations?: Record<string, string>) => {
        const res = await createSecret(`${prefix}/${type}`, data, annotations);
        expect(res.status, res.body).to.equal(422);
        expect(res.json()).to.include({ reason: 'Invalid', code: 422 });
        return res.json().message as string;
      };

      it('requires tls.crt and tls.key in a tls Secret, and accepts both present', async () => {
        expect(await causes('tls', {})).to.equal(
          `Secret "s${counter}" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]`,
        );
        expect(await causes('tls', { 'tls.crt': b64('c') })).to.equal(
          `Secret "s${counter}" is invalid: data[tls.key]: Required value`,
        );
        expect((await createSecret(`${prefix}/tls`, { 'tls.crt': b64('c'), 'tls.key': b64('k') })).status).to.equal(
          201,
        );
      });

      it('requires well-formed JSON under .dockerconfigjson and .dockercfg', async () => {
        expect(await causes('dockerconfigjson', {})).to.match(/: data\[\.dockerconfigjson\]: Required value$/);
        expect(await causes('dockerconfigjson', { '.dockerconfigjson': b64('{"auths":') })).to.match(
          /: data\[\.dockerconfigjson\]: Invalid value: "<secret contents redacted>": unexpected end of JSON input$/,
        );
        expect(await causes('dockercfg', { '.dockercfg': b64('[]') })).to.match(
          /: data\[\.dockercfg\]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map\[string\]interface \{\}$/,
        );
        expect(await causes('dockercfg', {})).to.match(/: data\[\.dockercfg\]: Required value$/);
        expect(
          (await createSecret(`${prefix}/dockerconfigjson`, { '.dockerconfigjson': b64('{"auths":{}}') })).status,
        ).to.equal(201);
      });

      it('requires a username or a password in a basic-auth Secret', async () => {
        expect(await causes('basic-auth', {})).to.match(
          /is invalid: \[data\[username\]: Required value, data\[password\]: Required value\]$/,
        );
        expect((await createSecret(`${prefix}/basic-auth`, { password: '' })).status).to.equal(201);
      });

      it('requires a non-empty ssh-privatekey in an ssh-auth Secret', async () => {
        expect(await causes('ssh-auth', { 'ssh-privatekey': '' })).to.match(
          /: data\[ssh-privatekey\]: Required value$/,
        );
      });

      it('requires the service account name annotation in a service-account-token Secret', async () => {
        expect(await causes('service-account-token', {})).to.match(
          new RegExp(
            `: metadata\\.annotations\\[${prefix.replace('.', '\\.')}/service-account\\.name\\]: Required value$`,
          ),
        );
        expect(
          (
            await createSecret(
              `${prefix}/service-account-token`,
              {},
              { 'kubernetes.io/service-account.name': 'default' },
            )
          ).status,
        ).to.equal(201);
      });
    });
  }

  it('keeps a Secret type immutable on update', async () => {
    const created = await createSecret('Opaque', { a: b64('x') });
    const body = { ...created.json(), type: 'platform.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } };
    const res = await gh.request('PUT', `${secrets}/${body.metadata.name}`, { body });
    expect(res.status).to.equal(422);
    expect(res.json().message).to.include('type: Invalid value: "platform.io/tls": field is immutable');
  });

  it("answers 400 with the decoder's message for data that is not base64, on create and on patch", async () => {
    const res = await createSecret('Opaque', { a: '!!' });
    expect(res.status).to.equal(400);
    expect(res.json()).to.include({
      reason: 'BadRequest',
      code: 400,
      message: 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0',
    });
    const created = await createSecret('Opaque', { a: b64('x') });
    const patched = await gh.request('PATCH', `${secrets}/${created.json().metadata.name}`, {
      body: { data: { b: 'eA=' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).to.equal(400);
    expect(patched.json().message).to.equal(
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3',
    );
  });

  it('defaults Node status.allocatable from capacity, and keeps an allocatable that was given', async () => {
    const capacity = { cpu: '4', memory: '8Gi' };
    const created = await gh.request('POST', '/api/v1/nodes', {
      body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { capacity } },
    });
    expect(created.status).to.equal(201);
    expect(created.json().status.allocatable).to.deep.equal(capacity);
    const given = { cpu: '3500m', memory: '7Gi' };
    const status = await gh.request('PUT', '/api/v1/nodes/n1/status', {
      body: { ...created.json(), status: { capacity: { cpu: '8' }, allocatable: given } },
    });
    expect(status.status).to.equal(200);
    expect(status.json().status.allocatable).to.deep.equal(given);
    const cleared = await gh.request('PUT', '/api/v1/nodes/n1/status', {
      body: { ...status.json(), status: { capacity: { cpu: '16' } } },
    });
    expect(cleared.json().status.allocatable).to.deep.equal({ cpu: '16' });
  });

  it('labels a namespace with its name on create (generateName included) and restores the label on update', async () => {
    const created = await gh.request('POST', '/api/v1/namespaces', {
      body: { metadata: { generateName: 'labelled-', labels: { 'platform.io/metadata.name': 'other', team: 'a' } } },
    });
    expect(created.status).to.equal(201);
    const name = created.json().metadata.name as string;
    expect(created.json().metadata.labels).to.deep.equal({ 'platform.io/metadata.name': name, team: 'a' });
    const updated = await gh.request('PUT', `/api/v1/namespaces/${name}`, {
      body: { ...created.json(), metadata: { ...created.json().metadata, labels: { team: 'b' } } },
    });
    expect(updated.status).to.equal(200);
    expect(updated.json().metadata.labels).to.deep.equal({ team: 'b', 'platform.io/metadata.name': name });
    const patched = await gh.request('PATCH', `/api/v1/namespaces/${name}`, {
      body: { metadata: { labels: { 'platform.io/metadata.name': null } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.json().metadata.labels).to.include({ 'platform.io/metadata.name': name });
    const selected = await gh.request('GET', `/api/v1/namespaces?labelSelector=platform.io/metadata.name=${name}`);
    expect(selected.json().items.map((n: { metadata: { name: string } }) => n.metadata.name)).to.deep.equal([name]);
  });
});
