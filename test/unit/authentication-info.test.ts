// The data of platform-system/extension-apiserver-authentication (gateway/controllers/authentication-info.ts): the
// keys kube-apiserver writes in its kube-system map, present only for what is configured, merged with what the map
// already holds as upstream's trust controller merges them.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { authenticationInfoData } from '../../gateway/controllers/authentication-info.js';
import { mergeAuthenticationInfo } from '../../gateway/controllers/authentication-info-merge.js';
import { makeCA } from '../helpers/pki.js';

describe('extension-apiserver-authentication data', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gh-authn-info-'));
    await writeFile(path.join(dir, 'client-ca.crt'), 'CLIENT CA PEM\n');
    await writeFile(path.join(dir, 'proxy-ca.crt'), 'PROXY CA PEM\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('is empty with neither CA configured', () => {
    expect(authenticationInfoData({})).to.deep.equal({});
  });

  it('holds the client CA alone, and the request-header keys as JSON arrays beside the proxy CA', () => {
    expect(authenticationInfoData({ clientCaFile: path.join(dir, 'client-ca.crt') })).to.deep.equal({
      'client-ca-file': 'CLIENT CA PEM\n',
    });
    const data = authenticationInfoData({
      clientCaFile: path.join(dir, 'client-ca.crt'),
      requestHeader: {
        clientCaFile: path.join(dir, 'proxy-ca.crt'),
        allowedNames: [],
        usernameHeaders: ['X-Remote-User'],
        groupHeaders: ['X-Remote-Group', 'X-Other-Group'],
        extraHeaderPrefixes: ['X-Remote-Extra-'],
      },
    });
    expect(data).to.deep.equal({
      'client-ca-file': 'CLIENT CA PEM\n',
      'requestheader-client-ca-file': 'PROXY CA PEM\n',
      // No allowed names (any CN the proxy CA signed) is an empty array.
      'requestheader-allowed-names': '[]',
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-group-headers': '["X-Remote-Group","X-Other-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    });
  });
});

describe('extension-apiserver-authentication merged with what the map holds', () => {
  let ours: string;
  let theirs: string;
  let expired: string;
  // Each certificate as the merge writes it: one canonical PEM block.
  const pem = (text: string) => new X509Certificate(text).toString();
  const requestHeader = (ca: string) => ({
    'requestheader-client-ca-file': ca,
    'requestheader-allowed-names': '["front-proxy-client"]',
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
  });

  before(async () => {
    ours = (await makeCA('our-front-proxy-ca')).certPem;
    theirs = (await makeCA('their-front-proxy-ca')).certPem;
    // Expired an hour ago: past the five minutes of slack.
    expired = (await makeCA('expired-front-proxy-ca', { notAfter: new Date(Date.now() - 3_600_000) })).certPem;
  });

  it('puts the certificates and names already there first, ours after them, each once', () => {
    const { data, warnings } = mergeAuthenticationInfo(
      {
        'requestheader-client-ca-file': `${theirs}\n${ours}`,
        'requestheader-allowed-names': '["aggregator","front-proxy-client"]',
        'requestheader-username-headers': '["X-Remote-User","X-Other-User"]',
        'client-ca-file': theirs,
        note: 'not ours',
      },
      requestHeader(ours),
      Date.now(),
    );
    expect(warnings).to.deep.equal([]);
    expect(data).to.deep.equal({
      'requestheader-client-ca-file': pem(theirs) + pem(ours),
      'requestheader-allowed-names': '["aggregator","front-proxy-client"]',
      'requestheader-username-headers': '["X-Remote-User","X-Other-User"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    });
    // What it wrote, merged again, is what it wrote: the controller then leaves the map alone.
    expect(mergeAuthenticationInfo(data, requestHeader(ours), Date.now()).data).to.deep.equal(data);
  });

  it('adds ours back after someone removed them', () => {
    const { data } = mergeAuthenticationInfo(
      { ...requestHeader(theirs), 'requestheader-allowed-names': '["someone-else"]' },
      requestHeader(ours),
      Date.now(),
    );
    expect(data['requestheader-client-ca-file']).to.equal(pem(theirs) + pem(ours));
    expect(data['requestheader-allowed-names']).to.equal('["someone-else","front-proxy-client"]');
  });

  it('drops certificates expired more than five minutes ago, keeping those just expired', () => {
    const existing = { 'client-ca-file': `${expired}${theirs}` };
    expect(mergeAuthenticationInfo(existing, { 'client-ca-file': ours }, Date.now()).data).to.deep.equal({
      'client-ca-file': pem(theirs) + pem(ours),
    });
    const expiredAt = Date.parse(new X509Certificate(expired).validTo);
    expect(
      mergeAuthenticationInfo(existing, { 'client-ca-file': ours }, expiredAt + 4 * 60_000).data['client-ca-file'],
    ).to.equal(pem(expired) + pem(theirs) + pem(ours));
  });

  it('replaces a value there that does not parse with ours, and says so', () => {
    const { data, warnings } = mergeAuthenticationInfo(
      { 'requestheader-client-ca-file': 'not a bundle', 'requestheader-group-headers': '{"a":1}' },
      requestHeader(ours),
      Date.now(),
    );
    expect(data['requestheader-client-ca-file']).to.equal(pem(ours));
    expect(data['requestheader-group-headers']).to.equal('["X-Remote-Group"]');
    expect(warnings).to.deep.equal([
      'requestheader-client-ca-file: the bundle there does not parse, replacing it: data does not contain any PEM certificate',
      'requestheader-group-headers: the value there does not parse, replacing it: not a JSON array of strings',
    ]);
  });
});
