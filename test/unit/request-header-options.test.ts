// The --requestheader-* flags: parsed into options only with a CA bundle, list flags repeatable and comma-separated,
// bad values refused naming the flag and the value.
import { expect } from 'chai';
import { optionsError } from '../helpers/options.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseOptions } from '../../gateway/server/options.js';
import { caBundle, makeCA } from '../helpers/pki.js';

describe('--requestheader-* options', () => {
  let dir: string;
  let caFile: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-rh-options-'));
    caFile = path.join(dir, 'proxy-ca.crt');
    await writeFile(caFile, caBundle(await makeCA('proxy-ca')));
    await writeFile(path.join(dir, 'junk.crt'), 'not a certificate\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const refused = (argv: string[]): string => optionsError(argv, dir).message;

  it('configures no proxy without the CA file, even with header flags', () => {
    expect(parseOptions(['--requestheader-username-headers=X-Remote-User'], dir).requestHeader).to.equal(undefined);
  });

  it('resolves the CA path and collects repeated, comma-separated lists', () => {
    const o = parseOptions(
      [
        '--requestheader-client-ca-file=proxy-ca.crt',
        '--requestheader-username-headers',
        'X-Remote-User, X-Forwarded-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-group-headers=X-Groups',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        '--requestheader-allowed-names=front-proxy,aggregator',
      ],
      dir,
    );
    expect(o.requestHeader).to.deep.equal({
      clientCaFile: caFile,
      usernameHeaders: ['X-Remote-User', 'X-Forwarded-User'],
      groupHeaders: ['X-Remote-Group', 'X-Groups'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
      allowedNames: ['front-proxy', 'aggregator'],
    });
  });

  it('allows any CN when --requestheader-allowed-names is empty or absent', () => {
    expect(
      parseOptions(['--requestheader-client-ca-file', caFile, '--requestheader-allowed-names='], dir).requestHeader
        ?.allowedNames,
    ).to.deep.equal([]);
    expect(parseOptions(['--requestheader-client-ca-file', caFile], dir).requestHeader?.allowedNames).to.deep.equal([]);
  });

  it('refuses a CA file without certificates, a missing one, blank header names and blank allowed names', () => {
    expect(refused(['--requestheader-client-ca-file=junk.crt'])).to.match(
      /^invalid argument ".*junk\.crt" for "--requestheader-client-ca-file" flag: .*PEM/,
    );
    expect(refused(['--requestheader-client-ca-file=missing.crt'])).to.contain('--requestheader-client-ca-file');
    expect(refused(['--requestheader-client-ca-file='])).to.equal(
      'invalid argument "" for "--requestheader-client-ca-file" flag: must not be empty',
    );
    expect(refused(['--requestheader-username-headers=X-Remote-User, ,X-Other'])).to.equal(
      'invalid argument "X-Remote-User, ,X-Other" for "--requestheader-username-headers" flag: empty header name',
    );
    expect(refused(['--requestheader-allowed-names=a,,b'])).to.contain('--requestheader-allowed-names');
  });

  it('is listed in --help', async () => {
    const { usage } = await import('../../gateway/server/options.js');
    for (const flag of [
      'client-ca-file',
      'allowed-names',
      'username-headers',
      'group-headers',
      'extra-headers-prefix',
    ]) {
      expect(usage()).to.contain(`--requestheader-${flag}`);
    }
  });
});
