// --proxy-client-cert-file and --proxy-client-key-file, reloaded while the server runs, as kube-apiserver's dynamic
// certificate content is: a rotated pair is presented from the next connection to an upstream on (the proxy, the
// availability checks, merged discovery), without a restart. A pair that does not load (a file missing or
// half-written, a key that does not match the certificate) is logged and the last good pair kept; a later good
// write is taken.
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { watchFiles } from '../server/watched-files.js';
import type { ClientCertificate, ClientCertificateSource } from './upstream-tls.js';

export interface ReloadingClientCertificate extends ClientCertificateSource {
  /** Reads the files now (the watch and the period call it too). */
  reload(): void;
  close(): void;
}

export function startProxyClientCertificate(
  certFile: string,
  keyFile: string,
  opts: { initial: ClientCertificate; log: (line: string) => void; pollMs?: number },
): ReloadingClientCertificate {
  let pair = opts.initial;
  // What the files held when last read, loaded or not: the same bad content is reported once, not at every poll.
  let lastRead = `${pair.cert}\0${pair.key}`;
  const name = `aggregator-proxy-cert::${certFile}::${keyFile}`;

  const reload = (): void => {
    let read: ClientCertificate;
    try {
      read = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
    } catch (e) {
      const text = `\0unreadable: ${(e as Error).message}`;
      if (text === lastRead) return;
      lastRead = text;
      opts.log(`warning: ${name}: reading the pair failed, keeping the previous one: ${(e as Error).message}`);
      return;
    }
    const text = `${read.cert}\0${read.key}`;
    if (text === lastRead) return;
    lastRead = text;
    try {
      // Fails on a PEM that does not parse and on a key that is not the certificate's.
      tls.createSecureContext(read);
    } catch (e) {
      opts.log(`warning: ${name}: the new pair does not load, keeping the previous one: ${(e as Error).message}`);
      return;
    }
    pair = read;
    opts.log(`loaded a new cert/key pair ${name}`);
  };

  const watched = watchFiles([certFile, keyFile], reload, { log: opts.log, pollMs: opts.pollMs });
  return {
    current: () => pair,
    reload,
    close: () => watched.close(),
  };
}
