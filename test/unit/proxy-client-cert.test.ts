// The reloading front-proxy client pair (gateway/aggregator/proxy-client-cert.ts), driven by reload() directly: the
// watch and the period only decide when it runs.
import { expect } from 'chai';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  startProxyClientCertificate,
  type ReloadingClientCertificate,
} from '../../gateway/aggregator/proxy-client-cert.js';
import { issueClientCert, makeCA } from '../helpers/pki.js';

describe('the proxy client certificate, reloaded', () => {
  let dir: string;
  let source: ReloadingClientCertificate;
  const logs: string[] = [];
  const certFile = () => path.join(dir, 'proxy.crt');
  const keyFile = () => path.join(dir, 'proxy.key');
  const issue = async (cn: string) => {
    const ca = await makeCA(`${cn}-ca`);
    const issued = await issueClientCert(ca, { cn });
    return { cert: issued.certPem, key: issued.keyPem };
  };

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gh-proxy-cert-'));
    const first = await issue('first');
    await writeFile(certFile(), first.cert);
    await writeFile(keyFile(), first.key);
    source = startProxyClientCertificate(certFile(), keyFile(), { initial: first, log: (l) => logs.push(l) });
  });
  after(async () => {
    source?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the pair while the files hold it', () => {
    const before = source.current();
    source.reload();
    expect(source.current()).to.equal(before);
    expect(logs).to.deep.equal([]);
  });

  it('takes a new pair that loads', async () => {
    const second = await issue('second');
    await writeFile(certFile(), second.cert);
    await writeFile(keyFile(), second.key);
    source.reload();
    expect(source.current()).to.deep.equal(second);
    // The directory watch may have looked between the two writes, and warned of a mismatched pair, first.
    expect(logs.splice(0).at(-1)).to.equal(
      `loaded a new cert/key pair aggregator-proxy-cert::${certFile()}::${keyFile()}`,
    );
  });

  it("keeps the last good pair when the key is not the certificate's, and says so once", async () => {
    const good = source.current();
    await writeFile(keyFile(), (await issue('third')).key);
    source.reload();
    source.reload();
    expect(source.current()).to.equal(good);
    expect(logs.splice(0))
      .to.have.length(1)
      .and.satisfy(
        (l: string[]) =>
          l[0].startsWith('warning: ') && l[0].includes('the new pair does not load, keeping the previous one'),
      );
  });

  it('keeps the last good pair while a file is missing', async () => {
    const good = source.current();
    await unlink(certFile());
    source.reload();
    expect(source.current()).to.equal(good);
    expect(logs.splice(0))
      .to.have.length(1)
      .and.satisfy((l: string[]) => l[0].includes('reading the pair failed, keeping the previous one'));
  });
});
