// The deployment files (deploy/) against the code they deploy: every command line they give the gateway parses with
// its own flag parser, the storage URL travels in the environment variable the gateway reads, the probes and health
// checks ask the endpoints that tell readiness, and the image copies what exists. A flag renamed or a path moved in
// the code fails here rather than in someone's rollout. (Building the image and running the compose file need a
// container engine, which CI machines lack; deploy/README.md says how they were tried.)
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { Namespace, Service } from 'kubernetes-models/v1';
import { parseOptions, STORAGE_URL_ENV, type GatehouseOptions } from '../../gateway/server/options.js';
import { REDIS_URL_ENV } from '../../gateway/shared-state/flags.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const SAMPLE_URL = 'postgres://gatehouse:secret@postgres:5432/gatehouse';

/** Parses a deployed command line as the gateway would, with the storage URL in the environment. */
function parsed(args: string[]): GatehouseOptions {
  return parseOptions(args, '/', { [STORAGE_URL_ENV]: SAMPLE_URL });
}

/** The value of `--name=value` in a command line (the form the deploy files use throughout). */
function flag(args: string[], name: string): string | undefined {
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

describe('deploy/Dockerfile', () => {
  const lines = read('deploy/Dockerfile')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  const ignored = read('.dockerignore')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));

  it('copies only what the repository has, and nothing the build context leaves out', () => {
    const sources = lines
      .filter((l) => l.startsWith('COPY ') && !l.includes('--from='))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources).to.include.members(['package-lock.json', 'gateway', 'deploy/tsconfig.image.json']);
    for (const source of sources) {
      expect(existsSync(path.join(ROOT, source)), source).to.equal(true);
      // Excluded by a pattern of .dockerignore and not brought back by a later `!` line.
      const excluded = ignored.reduce((out, pattern) => {
        const negated = pattern.startsWith('!');
        const target = negated ? pattern.slice(1) : pattern;
        const matches =
          source === target ||
          source.startsWith(`${target}/`) ||
          (target.startsWith('*.') && source.endsWith(target.slice(1)));
        return matches ? !negated : out;
      }, false);
      expect(excluded, `${source} is excluded by .dockerignore`).to.equal(false);
    }
  });

  it('starts the gateway entry point on the port it serves by default', () => {
    expect(lines.find((l) => l.startsWith('ENTRYPOINT'))).to.equal('ENTRYPOINT ["node", "/app/bin/gatehouse.js"]');
    expect(existsSync(path.join(ROOT, 'bin/gatehouse.js'))).to.equal(true);
    const exposed = Number(lines.find((l) => l.startsWith('EXPOSE'))?.split(/\s+/)[1]);
    expect(exposed).to.equal(parsed([]).securePort);
    const cmd = JSON.parse(lines.find((l) => l.startsWith('CMD'))!.slice(3)) as string[];
    expect(parsed(cmd).storageBackend).to.equal('embedded');
  });

  it('builds the server alone, leaving out the test suites and the helpers they import', () => {
    const config = JSON.parse(read('deploy/tsconfig.image.json')) as { include: string[]; exclude: string[] };
    expect(config.include.map((p) => path.basename(p)).sort()).to.deep.equal([
      'api',
      'backends',
      'gateway',
      'policies',
    ]);
    expect(config.exclude).to.include('../**/*.test.ts');
    // That the server compiles without them is checked by `make test`, which type-checks this configuration.
    expect(read('Makefile')).to.contain('tsc --noEmit -p deploy/tsconfig.image.json');
  });
});

describe('deploy/compose.yaml', () => {
  const compose = yaml.load(read('deploy/compose.yaml')) as { services: Record<string, ComposeService> };
  const replicas = Object.entries(compose.services).filter(([, s]) => s.build?.dockerfile === 'deploy/Dockerfile');

  it('runs two gateway replicas built from the Dockerfile on the one PostgreSQL service', () => {
    expect(replicas.map(([name]) => name)).to.deep.equal(['gatehouse-a', 'gatehouse-b']);
    for (const [name, service] of replicas) {
      const options = parsed(service.command!);
      expect(options.storageBackend, name).to.equal('postgres');
      expect(service.command!.join(' '), name).not.to.contain('postgres://');
      const url = service.environment?.[STORAGE_URL_ENV];
      expect(url, name).to.match(/^postgres:\/\/gatehouse:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/gatehouse$/);
      expect(service.ports?.[0], name).to.match(new RegExp(`:${options.securePort}$`));
      expect(service.healthcheck?.test.join(' '), name).to.contain(`port: ${options.securePort}, path: '/readyz'`);
      expect(service.volumes, name).to.include(`pki:${options.certDir}`);
      expect(options.tokenAuthFile?.startsWith(`${options.certDir}/`), name).to.equal(true);
      expect(service.environment?.[REDIS_URL_ENV], name).to.equal('redis://redis:6379/0');
      expect(options.sharedState.rateLimitReplicas, name).to.equal(replicas.length);
    }
    expect(compose.services.redis.image).to.match(/^redis:/);
    expect(compose.services.postgres.environment).to.include({ POSTGRES_USER: 'gatehouse', POSTGRES_DB: 'gatehouse' });
  });

  it('starts the second replica only once the first is healthy, so that one of them generates the shared PKI', () => {
    expect(compose.services['gatehouse-b'].depends_on).to.deep.equal({
      'gatehouse-a': { condition: 'service_healthy' },
    });
    expect(compose.services['gatehouse-a'].depends_on?.['gatehouse-init']).to.deep.equal({
      condition: 'service_completed_successfully',
    });
    // The token file the init service writes is the one the replicas read.
    const tokenFile = parsed(compose.services['gatehouse-a'].command!).tokenAuthFile!;
    expect(compose.services['gatehouse-init'].entrypoint!.join(' ')).to.contain(`'${tokenFile}'`);
  });
});

describe('deploy/kubernetes/gatehouse.yaml', () => {
  const docs = yaml.loadAll(read('deploy/kubernetes/gatehouse.yaml')) as any[];
  const byKind = (kind: string) => docs.find((d) => d.kind === kind);
  const deployment = byKind('Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const args = container.args as string[];
  let options: GatehouseOptions;
  // In a hook, so that a flag the gateway does not know fails these tests instead of the whole run.
  before(() => {
    options = parsed(args);
  });

  it('holds objects that the Kubernetes API schemas accept (which do catch a field of the wrong type)', () => {
    const models: Record<string, new (doc: never) => { validate(): void }> = {
      Namespace,
      Deployment,
      Service,
      PodDisruptionBudget,
    };
    expect(docs.map((d) => d.kind)).to.deep.equal(['Namespace', 'Deployment', 'Service', 'PodDisruptionBudget']);
    for (const doc of docs) expect(() => new models[doc.kind](doc as never).validate(), doc.kind).not.to.throw();
    const broken = structuredClone(deployment);
    broken.spec.template.spec.containers[0].readinessProbe.httpGet.port = { name: 'https' };
    expect(() => new Deployment(broken).validate()).to.throw(/readinessProbe\/httpGet\/port/);
  });

  it('runs several replicas on PostgreSQL, the URL from a Secret in the environment variable the gateway reads', () => {
    expect(deployment.spec.replicas).to.be.greaterThan(1);
    expect(options.storageBackend).to.equal('postgres');
    expect(args.join(' ')).not.to.contain('postgres://');
    expect(container.env).to.deep.include({
      name: STORAGE_URL_ENV,
      valueFrom: { secretKeyRef: { name: 'gatehouse-storage', key: 'url' } },
    });
  });

  it('probes liveness and readiness over HTTPS on the port the gateway serves', () => {
    const port = container.ports.find((p: { containerPort: number }) => p.containerPort === options.securePort);
    expect(port, 'a container port for --secure-port').to.not.equal(undefined);
    for (const [probe, endpoint] of [
      ['startupProbe', '/livez'],
      ['livenessProbe', '/livez'],
      ['readinessProbe', '/readyz'],
    ]) {
      expect(container[probe].httpGet, probe).to.deep.equal({ path: endpoint, port: port.name, scheme: 'HTTPS' });
    }
    expect(byKind('Service').spec.ports[0].targetPort).to.equal(port.name);
  });

  it('reads every file it is given from a mounted volume, and those volumes exist', () => {
    const mounts = container.volumeMounts as { name: string; mountPath: string }[];
    const volumes = new Set((pod.volumes as { name: string }[]).map((v) => v.name));
    for (const mount of mounts) expect(volumes.has(mount.name), mount.name).to.equal(true);
    const files = [
      'tls-cert-file',
      'tls-private-key-file',
      'service-account-key-file',
      'token-auth-file',
      'data-dir',
    ].map((name) => flag(args, name));
    for (const file of files) {
      expect(file).to.be.a('string');
      expect(
        mounts.some((m) => file === m.mountPath || file!.startsWith(`${m.mountPath}/`)),
        file,
      ).to.equal(true);
    }
    expect(options.serviceAccounts.keyFiles).to.deep.equal([flag(args, 'service-account-key-file')]);
  });

  it('gives a terminating pod the time its shutdown sequence takes', () => {
    const drainSeconds = (options.shutdownDelayMs + options.shutdownWatchTerminationGracePeriodMs) / 1000;
    expect(drainSeconds).to.be.greaterThan(0);
    expect(pod.terminationGracePeriodSeconds).to.be.greaterThan(drainSeconds);
  });

  it('selects its own pods from the Service and the disruption budget', () => {
    const labels = deployment.spec.template.metadata.labels;
    expect(deployment.spec.selector.matchLabels).to.deep.equal(labels);
    expect(byKind('Service').spec.selector).to.deep.equal(labels);
    expect(byKind('PodDisruptionBudget').spec.selector.matchLabels).to.deep.equal(labels);
    for (const doc of docs.filter((d) => d.kind !== 'Namespace'))
      expect(doc.metadata.namespace, doc.kind).to.equal(byKind('Namespace').metadata.name);
  });
});
