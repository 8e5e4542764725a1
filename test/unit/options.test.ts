import { expect } from 'chai';
import { optionsError } from '../helpers/options.js';
import path from 'node:path';
import { defaultMaxConnections } from '../../gateway/server/connection-guards.js';
import { parseOptions, usage } from '../../gateway/server/options.js';
import { parseDuration } from '../../gateway/server/flag-primitives.js';
import { parseFeatureGates } from '../../gateway/server/feature-gates.js';
import { parseRuntimeConfig } from '../../gateway/server/runtime-config.js';

const cwd = '/srv/gh';

describe('options', () => {
  it('defaults like kube-apiserver', () => {
    const o = parseOptions([], cwd);
    expect(o).to.include({
      securePort: 6443,
      bindAddress: '0.0.0.0',
      dataDir: path.join(cwd, '.data'),
      anonymousAuth: true,
      maxRequestBodyBytes: 3145728,
      historyWindowMs: 300_000,
      shutdownDelayMs: 0,
      livezGracePeriodMs: 0,
      storageBackend: 'embedded',
      help: false,
      eventTtlMs: 3_600_000,
    });
    expect(o.certDir).to.equal(path.join(cwd, '.data', 'pki'));
    expect(o.authorizationModes).to.deep.equal(['AlwaysAllow']);
    expect(o.featureGates.enabled('APIResponseCompression')).to.equal(true);
    expect(o.tokenAuthFile).to.equal(undefined);
  });

  it('accepts --flag=value and --flag value, last one wins, paths resolved against cwd', () => {
    const o = parseOptions(
      ['--secure-port', '0', '--data-dir=d', '--secure-port=7443', '--token-auth-file', '/etc/t.csv'],
      cwd,
    );
    expect(o.securePort).to.equal(7443);
    expect(o.dataDir).to.equal(path.join(cwd, 'd'));
    expect(o.certDir).to.equal(path.join(cwd, 'd', 'pki'));
    expect(o.tokenAuthFile).to.equal('/etc/t.csv');
  });

  it('treats a bare boolean flag as true and accepts an explicit false', () => {
    expect(parseOptions(['--anonymous-auth=false'], cwd).anonymousAuth).to.equal(false);
    expect(parseOptions(['--anonymous-auth'], cwd).anonymousAuth).to.equal(true);
    expect(parseOptions(['--help'], cwd).help).to.equal(true);
    expect(parseOptions(['-h'], cwd).help).to.equal(true);
  });

  it('takes the AdmissionReview group of --admission-review-api-group, k8s.io by default', () => {
    expect(parseOptions([], cwd).admissionReviewApiGroup).to.equal('k8s.io');
    expect(parseOptions(['--admission-review-api-group=platform.io'], cwd).admissionReviewApiGroup).to.equal(
      'platform.io',
    );
    expect(() => parseOptions(['--admission-review-api-group=admission.k8s.io'], cwd)).to.throw(
      'invalid argument "admission.k8s.io" for "--admission-review-api-group" flag: must be one of k8s.io, platform.io',
    );
  });

  it('parses Go durations', () => {
    expect(parseDuration('10s')).to.equal(10_000);
    expect(parseDuration('500ms')).to.equal(500);
    expect(parseDuration('1m30s')).to.equal(90_000);
    expect(parseDuration('1.5h')).to.equal(5_400_000);
    expect(parseDuration('0')).to.equal(0);
    expect(() => parseDuration('10')).to.throw('invalid duration');
    expect(() => parseDuration('-1s')).to.throw('invalid duration');
    const o = parseOptions(['--shutdown-delay-duration=2s', '--history-window', '90s', '--livez-grace-period=1m'], cwd);
    expect(o).to.include({ shutdownDelayMs: 2000, historyWindowMs: 90_000, livezGracePeriodMs: 60_000 });
    expect(parseOptions(['--etcd-compaction-interval=1m'], cwd).historyWindowMs).to.equal(60_000);
    expect(parseOptions(['--event-ttl=1h30m'], cwd).eventTtlMs).to.equal(5_400_000);
    expect(parseOptions(['--event-ttl', '250ms'], cwd).eventTtlMs).to.equal(250);
    expect(() => parseOptions(['--event-ttl=soon'], cwd)).to.throw(/event-ttl/);
  });

  it('refuses unknown flags, naming them', () => {
    expect(optionsError(['--secure-prot=1']).message).to.equal('unknown flag: --secure-prot');
    expect(optionsError(['serve']).message).to.contain('"serve"');
  });

  it('refuses bad values, naming flag and value', () => {
    const port = optionsError(['--secure-port=http']);
    expect(port.message).to.contain('"http"').and.contain('--secure-port');
    expect(optionsError(['--secure-port=70000']).message).to.contain('between 0 and 65535');
    expect(optionsError(['--bind-address=localhost']).message).to.contain('--bind-address');
    expect(optionsError(['--shutdown-delay-duration=soon']).message)
      .to.contain('"soon"')
      .and.contain('--shutdown-delay-duration');
    expect(optionsError(['--max-request-body-bytes=0']).message).to.contain('--max-request-body-bytes');
    expect(optionsError(['--storage-backend=etcd']).message)
      .to.contain('"etcd"')
      .and.contain('--storage-backend');
    expect(optionsError(['--storage-backend=postgres']).message)
      .to.contain('--storage-url')
      .and.contain('GATEHOUSE_STORAGE_URL');
    const badUrl = optionsError(['--storage-backend=postgres', '--storage-url=mysql://u:secret@h/db']).message;
    expect(badUrl).to.contain('--storage-url').and.not.contain('secret');
    expect(optionsError(['--anonymous-auth=maybe']).message).to.contain('"maybe"');
    expect(optionsError(['--secure-port']).message).to.equal('flag needs an argument: --secure-port');
  });

  it('takes the storage URL from the flag or the environment, for the postgres backend only, never showing the password', () => {
    const env = { GATEHOUSE_STORAGE_URL: 'postgres://gh:fromenv@db:5432/gh' };
    const refused = (argv: string[], withEnv: NodeJS.ProcessEnv = {}): string => {
      try {
        parseOptions(argv, cwd, withEnv);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error(`expected ${argv.join(' ')} to be refused`);
    };
    expect(parseOptions(['--storage-backend=postgres'], cwd, env)).to.deep.include({
      storageUrl: env.GATEHOUSE_STORAGE_URL,
      warnings: [],
    });
    expect(
      parseOptions(['--storage-backend=postgres', '--storage-url=postgresql://a:b@h/x'], cwd, env).storageUrl,
    ).to.equal('postgresql://a:b@h/x');

    // A URL flag with another backend was meant for a database: refused rather than silently unused.
    for (const argv of [
      ['--storage-url=postgres://gh:secret@db/gh'],
      ['--storage-backend=memory', '--storage-url=postgres://gh:secret@db/gh'],
    ]) {
      const message = refused(argv);
      expect(message)
        .to.contain('--storage-url')
        .and.contain('--storage-backend=postgres')
        .and.contain('postgres://gh:***@db/gh');
      expect(message).not.to.contain('secret');
    }
    // The environment variable may be set for the whole host: another backend only warns.
    expect(parseOptions([], cwd, env)).to.deep.include({
      storageBackend: 'embedded',
      storageUrl: undefined,
      warnings: ['GATEHOUSE_STORAGE_URL is set but the storage backend is embedded: the URL is not used'],
    });
    expect(parseOptions([], cwd, {}).warnings).to.deep.equal([]);

    // A value that is not a URL may be a password pasted alone: nothing of it is shown.
    expect(refused(['--storage-backend=postgres', '--storage-url=hunter2secret'])).to.equal(
      'invalid argument for "--storage-url" flag: not a URL (expected postgres://user:password@host:port/database; the value is not shown, as it may hold a password)',
    );
    const masked = refused(['--storage-backend=postgres', '--storage-url=gh:secret@db:5432/gh']);
    expect(masked).to.contain('"***@db:5432/gh"').and.not.contain('secret');
    expect(refused(['--storage-backend=embedded', '--storage-url=hunter2secret']))
      .to.contain('"(value not shown)"')
      .and.not.contain('hunter2');
    // A bad value from the environment names the variable, not the flag.
    const fromEnv = refused(['--storage-backend=postgres'], { GATEHOUSE_STORAGE_URL: 'mysql://gh:secret@db/gh' });
    expect(fromEnv).to.equal(
      'invalid argument "mysql://***@db/gh" in GATEHOUSE_STORAGE_URL: must be a postgres:// or postgresql:// URL',
    );
  });

  it("takes the HTTP/2 flags with kube-apiserver's defaults and bounds", () => {
    expect(parseOptions([], cwd)).to.include({ http2MaxStreamsPerConnection: 1000, goawayChance: 0 });
    expect(parseOptions(['--goaway-chance=.001', '--http2-max-streams-per-connection=250'], cwd)).to.include({
      goawayChance: 0.001,
      http2MaxStreamsPerConnection: 250,
    });
    expect(parseOptions(['--goaway-chance=2e-2'], cwd).goawayChance).to.equal(0.02);
    expect(optionsError(['--goaway-chance=0.03']).message).to.equal(
      '--goaway-chance can not be less than 0 or greater than 0.02',
    );
    expect(optionsError(['--goaway-chance=-0.01']).message).to.equal(
      '--goaway-chance can not be less than 0 or greater than 0.02',
    );
    expect(optionsError(['--goaway-chance=often']).message).to.equal(
      'invalid argument "often" for "--goaway-chance" flag: strconv.ParseFloat: parsing "often": invalid syntax',
    );
    expect(optionsError(['--http2-max-streams-per-connection=-1']).message).to.contain(
      '--http2-max-streams-per-connection',
    );
  });

  it("takes the in-flight limits with kube-apiserver's defaults, 0 for no limit, and refuses negative ones as it does", () => {
    expect(parseOptions([], cwd)).to.include({ maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 });
    expect(parseOptions(['--max-requests-inflight=0', '--max-mutating-requests-inflight=7'], cwd)).to.include({
      maxRequestsInflight: 0,
      maxMutatingRequestsInflight: 7,
    });
    expect(optionsError(['--max-requests-inflight=-1']).message).to.equal(
      '--max-requests-inflight can not be negative value',
    );
    expect(optionsError(['--max-mutating-requests-inflight=-5']).message).to.equal(
      '--max-mutating-requests-inflight can not be negative value',
    );
    expect(parseOptions([], cwd)).to.include({ enablePriorityAndFairness: true });
    expect(parseOptions(['--enable-priority-and-fairness=false'], cwd)).to.include({
      enablePriorityAndFairness: false,
    });
    // With priority and fairness the two limits are the server's seats, which cannot be none.
    expect(optionsError(['--max-requests-inflight=0', '--max-mutating-requests-inflight=0']).message).to.equal(
      '--max-requests-inflight=0 and --max-mutating-requests-inflight=0 yield a server concurrency limit of 0; it must be positive while --enable-priority-and-fairness is true',
    );
    expect(
      parseOptions(
        ['--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--enable-priority-and-fairness=false'],
        cwd,
      ),
    ).to.include({ maxRequestsInflight: 0, maxMutatingRequestsInflight: 0 });
    expect(optionsError(['--max-requests-inflight=many']).message).to.equal(
      'invalid argument "many" for "--max-requests-inflight" flag: strconv.ParseInt: parsing "many": invalid syntax',
    );
  });

  it('takes the connection bounds: 32 s for a request head, 32 s for a body, half the open-file limit in connections; 0 disables each', () => {
    expect(parseOptions([], cwd)).to.include({
      readHeaderTimeoutMs: 32_000,
      readBodyTimeoutMs: 32_000,
      maxConnections: undefined,
    });
    expect(
      defaultMaxConnections(
        'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 4096                 files     \n',
      ),
    ).to.equal(512);
    expect(defaultMaxConnections('')).to.equal(512);
    expect(
      parseOptions(['--read-header-timeout=250ms', '--read-body-timeout=1m', '--max-connections=0'], cwd),
    ).to.include({ readHeaderTimeoutMs: 250, readBodyTimeoutMs: 60_000, maxConnections: 0 });
    expect(optionsError(['--max-connections=-1']).message).to.equal(
      'invalid argument "-1" for "--max-connections" flag: must be between 0 and 2147483647',
    );
    expect(optionsError(['--read-header-timeout=soon']).message).to.equal(
      'invalid argument "soon" for "--read-header-timeout" flag: time: invalid duration "soon"',
    );
  });

  it('requires the TLS pair together', () => {
    expect(optionsError(['--tls-cert-file=a.crt']).message).to.contain('--tls-private-key-file');
    const o = parseOptions(['--tls-cert-file=a.crt', '--tls-private-key-file=a.key'], cwd);
    expect(o.tlsCertFile).to.equal(path.join(cwd, 'a.crt'));
  });

  it('requires the proxy client pair together, and a pair that loads', () => {
    expect(optionsError(['--proxy-client-cert-file=p.crt']).message).to.contain('--proxy-client-key-file');
    expect(optionsError(['--proxy-client-key-file=p.key']).message).to.contain('--proxy-client-cert-file');
    const missing = optionsError([
      '--proxy-client-cert-file=/nonexistent/p.crt',
      '--proxy-client-key-file=/nonexistent/p.key',
    ]);
    expect(missing.message).to.contain('--proxy-client-cert-file').and.contain('/nonexistent/p.crt');
    const o = parseOptions([], cwd);
    expect(o.proxyClientCertFile).to.equal(undefined);
    expect(o.proxyClientKeyFile).to.equal(undefined);
  });

  it('takes an ordered list of authorization modes and refuses unknown ones and modes missing their files', () => {
    expect(parseOptions(['--authorization-mode=AlwaysDeny,AlwaysAllow'], cwd).authorizationModes).to.deep.equal([
      'AlwaysDeny',
      'AlwaysAllow',
    ]);
    expect(optionsError(['--authorization-mode=Magic']).message).to.contain('"Magic" is not a valid mode');
    expect(optionsError(['--authorization-mode=ABAC']).message).to.contain('authorization policy file not passed');
    expect(optionsError(['--authorization-mode=AlwaysAllow,AlwaysAllow']).message).to.contain('more than once');
    expect(optionsError(['--authorization-mode=']).message).to.contain('--authorization-mode');
  });

  it('reports feature gate errors through the flag', () => {
    expect(optionsError(['--feature-gates=NoSuchGate=true']).message).to.contain(
      'unrecognized feature gate: NoSuchGate',
    );
    expect(optionsError(['--feature-gates=APIResponseCompression=yes']).message).to.contain(
      'APIResponseCompression=yes',
    );
    const o = parseOptions(
      ['--feature-gates=APIResponseCompression=false', '--feature-gates', 'CBORServingAndStorage=true'],
      cwd,
    );
    expect(o.featureGates.enabled('APIResponseCompression')).to.equal(false);
    expect(o.featureGates.enabled('CBORServingAndStorage')).to.equal(true);
  });

  it('lists every flag in the usage text', () => {
    for (const flag of [
      '--secure-port',
      '--bind-address',
      '--tls-cert-file',
      '--tls-private-key-file',
      '--cert-dir',
      '--data-dir',
      '--token-auth-file',
      '--authorization-mode',
      '--runtime-config',
      '--feature-gates',
      '--shutdown-delay-duration',
    ]) {
      expect(usage()).to.contain(flag);
    }
  });

  it('sets every description apart from its flag, in one column, however long the flag', () => {
    const rows = usage()
      .split('\n')
      .filter((line) => line.startsWith('      --'));
    const columns = new Set(rows.map((line) => /^ {6}--\S+(?: \S+)? {2,}/.exec(line)?.[0].length));
    expect(columns.has(undefined), rows.filter((line) => !/^ {6}--\S+(?: \S+)? {2,}/.test(line)).join('\n')).to.equal(
      false,
    );
    expect(columns.size).to.equal(1);
  });
});

describe('feature gates', () => {
  it('knows defaults by stage', () => {
    const g = parseFeatureGates('');
    expect(g.enabled('APIResponseCompression')).to.equal(true);
    expect(g.enabled('AllowUnsafeMalformedObjectDeletion')).to.equal(false);
    expect(g.enabled('CBORServingAndStorage')).to.equal(false);
    expect(g.enabled('WatchList')).to.equal(true);
  });
  it('applies AllAlpha/AllBeta under explicit settings, whatever the order', () => {
    const g = parseFeatureGates('CBORServingAndStorage=false,AllAlpha=true,AllBeta=false');
    expect(g.enabled('AllowUnsafeMalformedObjectDeletion')).to.equal(true);
    expect(g.enabled('CBORServingAndStorage')).to.equal(false);
    expect(g.enabled('APIResponseCompression')).to.equal(false);
  });
  it('refuses to unlock a GA gate and warns about deprecated ones', () => {
    expect(() => parseFeatureGates('AggregatedDiscoveryEndpoint=false')).to.throw('locked to true');
    expect(parseFeatureGates('KMSv1=true').warnings[0]).to.contain('deprecated feature gate KMSv1');
    expect(() => parseFeatureGates('WatchList')).to.throw('missing bool value');
  });
});

describe('runtime config', () => {
  it('resolves the most specific setting', () => {
    const rc = parseRuntimeConfig(['api/all=false,apps/v1', 'v1/secrets=true,batch/v1/cronjobs=false']);
    expect(rc.enabled('', 'v1', 'configmaps')).to.equal(false);
    expect(rc.enabled('', 'v1', 'secrets')).to.equal(true);
    expect(rc.enabled('apps', 'v1', 'replicasets')).to.equal(true);
    expect(rc.enabled('batch', 'v1', 'cronjobs')).to.equal(false);
    expect(parseRuntimeConfig([]).enabled('batch', 'v1', 'cronjobs')).to.equal(true);
    expect(parseRuntimeConfig('api/v1=false').enabled('', 'v1')).to.equal(false);
    expect(parseRuntimeConfig('api/beta=true').enabled('x.io', 'v1beta1', 'a', false)).to.equal(true);
  });
  it('refuses malformed keys and values through the flag', () => {
    expect(optionsError(['--runtime-config=apps']).message).to.contain('--runtime-config');
    expect(optionsError(['--runtime-config=apps/v1=perhaps']).message).to.contain('perhaps');
    expect(optionsError(['--runtime-config=apps/notaversion']).message).to.contain('not an API version');
  });
});
