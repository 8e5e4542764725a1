import { expect } from 'chai';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  clusterDnsResolver,
  EndpointsFileError,
  parseEndpointsFile,
  serviceServerName,
  startEndpointsFileResolver,
  type FileServiceResolver,
} from '../../gateway/aggregator/service-resolver.js';

const metrics = { namespace: 'monitoring', name: 'metrics', port: 443 };
const entry = (url: string, extra: Record<string, unknown> = {}) => ({ ...metrics, url, ...extra });
const yamlList = (...entries: Record<string, unknown>[]) => JSON.stringify(entries);

function parseError(text: string): string {
  try {
    parseEndpointsFile(text, '/etc/gh/endpoints.yaml');
  } catch (e) {
    expect(e).to.be.instanceOf(EndpointsFileError);
    return (e as Error).message;
  }
  return expect.fail('parsed');
}

describe('service resolver', () => {
  it('answers the cluster DNS name without an endpoints file', () => {
    expect(clusterDnsResolver().resolve({ ...metrics, port: 8443 })?.href).to.equal(
      'https://metrics.monitoring.svc:8443/',
    );
    expect(serviceServerName(metrics)).to.equal('metrics.monitoring.svc');
  });

  describe('endpoints file', () => {
    it('maps each namespace, name and port to its URL', () => {
      const table = parseEndpointsFile(
        [
          '- {namespace: monitoring, name: metrics, port: 443, url: "https://10.0.0.7:6443"}',
          '- namespace: monitoring',
          '  name: metrics',
          '  port: 8443',
          '  url: https://metrics.internal:8443/base',
        ].join('\n'),
        'f',
      );
      expect([...table].map(([k, u]) => [k, u.href])).to.deep.equal([
        ['monitoring/metrics:443', 'https://10.0.0.7:6443/'],
        ['monitoring/metrics:8443', 'https://metrics.internal:8443/base'],
      ]);
      expect(parseEndpointsFile('', 'f').size).to.equal(0);
    });

    it('names the file and the entry of every problem', () => {
      const message = parseError(
        yamlList(
          entry('https://ok:1'),
          { namespace: 'Bad_NS', port: 0, url: 'http://plain:80', extra: 1 },
          entry('https://again:2'),
          entry('https://x/?q=1', { port: 444 }),
        ),
      );
      expect(message).to.match(/^aggregator endpoints file \/etc\/gh\/endpoints\.yaml: /);
      expect(message).to.include('entry 1: extra: unknown field');
      expect(message).to.include('entry 1: namespace: Invalid value: "Bad_NS"');
      expect(message).to.include('entry 1: name: Required value');
      expect(message).to.include('entry 1: port: Invalid value: 0: must be between 1 and 65535, inclusive');
      expect(message).to.include('entry 1: url: Invalid value: "http://plain:80": must be an https URL');
      expect(message).to.include(
        'entry 2 (monitoring/metrics:443): Duplicate value: the service and port are listed before',
      );
      expect(message).to.include('entry 3: url: Invalid value: "https://x/?q=1": may not have user info');
    });

    it('refuses a document that is not a list, and says where YAML syntax breaks', () => {
      expect(parseError('namespace: a')).to.match(/must be a list of \{namespace, name, port, url\}$/);
      expect(parseError('- a: [1\n- b')).to.match(/endpoints\.yaml: line \d+ column \d+: /);
    });
  });

  describe('reloading', () => {
    let dir: string;
    let file: string;
    let resolver: FileServiceResolver | undefined;
    const logs: string[] = [];
    // Replaced by rename, as editors and ConfigMap mounts do: the watch must survive the file changing inode.
    const replace = async (text: string) => {
      await writeFile(`${file}.tmp`, text);
      await rename(`${file}.tmp`, file);
    };

    beforeEach(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'gh-endpoints-'));
      file = path.join(dir, 'endpoints.yaml');
      await writeFile(file, yamlList(entry('https://127.0.0.1:1')));
      logs.length = 0;
    });
    afterEach(async () => {
      resolver?.close();
      resolver = undefined;
      await rm(dir, { recursive: true, force: true });
    });

    it('picks up a changed file, telling subscribers', async () => {
      resolver = startEndpointsFileResolver(file, { log: (l) => logs.push(l) });
      let changes = 0;
      resolver.onChange(() => changes++);
      expect(resolver.resolve(metrics)?.href).to.equal('https://127.0.0.1:1/');
      const reloaded = resolver.nextReload();
      await replace(yamlList(entry('https://127.0.0.1:2')));
      expect(await reloaded).to.deep.equal({ ok: true });
      expect(resolver.resolve(metrics)?.href).to.equal('https://127.0.0.1:2/');
      expect(resolver.resolve({ ...metrics, port: 444 })).to.equal(undefined);
      expect(changes).to.equal(1);
      // The same content read again (a poll, a touch) changes nothing and tells nobody.
      resolver.reload();
      expect(changes).to.equal(1);
    });

    it('keeps the last good table when a reload is bad, with a warning, and recovers', async () => {
      resolver = startEndpointsFileResolver(file, { log: (l) => logs.push(l) });
      const bad = resolver.nextReload();
      await replace(yamlList({ namespace: 'monitoring' }));
      const result = await bad;
      expect(result.ok).to.equal(false);
      expect(result.error).to.include(`${file}: entry 0: name: Required value`);
      expect(resolver.resolve(metrics)?.href).to.equal('https://127.0.0.1:1/');
      expect(logs.filter((l) => l.startsWith('warning: '))).to.have.length(1);
      expect(logs[0]).to.include('keeping the previous service endpoints');

      const fixed = resolver.nextReload();
      await replace(yamlList());
      expect(await fixed).to.deep.equal({ ok: true });
      expect(resolver.resolve(metrics)).to.equal(undefined);
    });

    it('refuses to start on a bad file', () => {
      expect(() => startEndpointsFileResolver(path.join(dir, 'missing.yaml'), { log: () => {} })).to.throw(
        EndpointsFileError,
        /missing\.yaml: ENOENT/,
      );
    });
  });
});
