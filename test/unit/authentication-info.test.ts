// The data of platform-system/extension-apiserver-authentication (gateway/controllers/authentication-info.ts): the
// keys kube-apiserver writes in its kube-system map, present only for what is configured.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { authenticationInfoData } from '../../gateway/controllers/authentication-info.js';

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
