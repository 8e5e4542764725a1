// The --rate-limit-config document and the shared-state flags: what a valid file becomes, every mistake reported at
// once with its line and field, and the Redis URL taken from the flag or the environment without showing its password.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parseRateLimitConfig, RateLimitConfigError } from '../../gateway/shared-state/rate-limit-config.js';
import { limitMatches } from '../../gateway/shared-state/rate-limiter.js';
import { rateLimitMessage } from '../../gateway/filters/rate-limit.js';
import { OptionsError, parseOptions } from '../../gateway/server/options.js';
import { REDIS_URL_ENV } from '../../gateway/shared-state/flags.js';

const HEAD = 'apiVersion: gatehouse.platform.io/v1alpha1\nkind: RateLimitConfiguration\n';

function refusal(text: string): string {
  try {
    parseRateLimitConfig(text, 'limits.yaml');
  } catch (e) {
    expect(e).to.be.instanceOf(RateLimitConfigError);
    return (e as Error).message;
  }
  return expect.fail('accepted');
}

describe('rate limit configuration', () => {
  it('reads limits from YAML, with ByUser by default', () => {
    const config = parseRateLimitConfig(
      `${HEAD}limits:
- name: tenant-a
  namespaces: [tenant-a]
  requestsPerSecond: 50
  burst: 100
  distinguisher: ByNamespace
- name: robots
  serviceAccounts: [{namespace: ci}, {namespace: ops, name: deployer}]
  groups: [robots]
  requestsPerSecond: 0.5
  burst: 1
`,
      'limits.yaml',
    );
    expect(config.limits).to.deep.equal([
      {
        name: 'tenant-a',
        users: [],
        groups: [],
        serviceAccounts: [],
        namespaces: ['tenant-a'],
        requestsPerSecond: 50,
        burst: 100,
        distinguisher: 'ByNamespace',
      },
      {
        name: 'robots',
        users: [],
        groups: ['robots'],
        serviceAccounts: [{ namespace: 'ci' }, { namespace: 'ops', name: 'deployer' }],
        namespaces: [],
        requestsPerSecond: 0.5,
        burst: 1,
        distinguisher: 'ByUser',
      },
    ]);
  });

  it('reads JSON, and an empty list of limits', () => {
    const json = JSON.stringify({ apiVersion: 'gatehouse.platform.io/v1alpha1', kind: 'RateLimitConfiguration' });
    expect(parseRateLimitConfig(json, 'limits.json').limits).to.deep.equal([]);
  });

  it('reports every mistake at once, each with its line and field', () => {
    const message = refusal(`${HEAD}limits:
- name: ok
  users: [alice]
  requestsPerSecond: 1
  burst: 1
- name: Bad_Name
  requestsPerSecond: 0
  burst: 1.5
  distinguisher: ByFlow
  color: red
- name: ok
  users: [bob, '']
  requestsPerSecond: 1
  burst: 2
`);
    expect(message).to.equal(
      'limits.yaml: ' +
        [
          `line 8: limits[1].color: unknown field`,
          `line 8: limits[1].name: Invalid value: "Bad_Name": must be lower-case letters, digits, '-' or '.', start and end with a letter or digit, at most 63 characters`,
          'line 8: limits[1].users: Required value: at least one of users, groups, serviceAccounts or namespaces must be given',
          'line 8: limits[1].requestsPerSecond: Invalid value: 0: must be a number greater than 0 and at most 1000000',
          'line 8: limits[1].burst: Invalid value: 1.5: must be an integer from 1 to 1000000',
          'line 8: limits[1].distinguisher: Unsupported value: "ByFlow": supported values: "ByUser", "ByNamespace", "None"',
          'line 13: limits[2].users[1]: must be a non-empty string',
        ].join('; '),
    );
  });

  it('names a duplicate name, the version and the kind', () => {
    expect(
      refusal(
        `apiVersion: v1\nkind: Policy\nlimits:\n- {name: a, users: [x], requestsPerSecond: 1, burst: 1}\n- {name: a, users: [y], requestsPerSecond: 1, burst: 1}\n`,
      ),
    ).to.equal(
      'limits.yaml: line 1: apiVersion: Unsupported value: "v1": supported values: "gatehouse.platform.io/v1alpha1"; line 1: kind: Unsupported value: "Policy": supported values: "RateLimitConfiguration"; line 5: limits[1].name: Duplicate value: "a"',
    );
  });

  it('names the line of a syntax error, and refuses what is not a document', () => {
    expect(refusal(`${HEAD}limits:\n  - name: a\n bad: [\n`)).to.match(/^limits\.yaml: line \d+ column \d+: /);
    expect(refusal('just a string')).to.equal('limits.yaml: <document>: must be a RateLimitConfiguration object');
    expect(refusal(`${HEAD}limits: {name: a}\n`)).to.equal('limits.yaml: line 1: limits: must be a list');
  });

  it('matches users, groups, service accounts and namespaces', () => {
    const [limit] = parseRateLimitConfig(
      `${HEAD}limits:\n- {name: l, users: [alice], groups: [g], serviceAccounts: [{namespace: ci}, {namespace: ops, name: d}], namespaces: [team], requestsPerSecond: 1, burst: 1, distinguisher: None}\n`,
      'x',
    ).limits;
    const user = (name: string, groups: string[] = []) => ({ name, groups });
    expect(limitMatches(limit, user('alice'), '')).to.equal(true);
    expect(limitMatches(limit, user('bob', ['g']), '')).to.equal(true);
    expect(limitMatches(limit, user('bob'), 'team')).to.equal(true);
    expect(limitMatches(limit, user('system:serviceaccount:ci:any'), '')).to.equal(true);
    expect(limitMatches(limit, user('system:serviceaccount:ops:d'), '')).to.equal(true);
    expect(limitMatches(limit, user('system:serviceaccount:ops:other'), '')).to.equal(false);
    expect(limitMatches(limit, user('bob'), 'elsewhere')).to.equal(false);
    expect(rateLimitMessage(limit)).to.equal(
      'rate limit l exceeded: at most 1 requests per second (burst 1), please try again later',
    );
  });
});

describe('shared-state flags', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-rate-limits-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const refused = (argv: string[], env: NodeJS.ProcessEnv = {}): string => {
    try {
      parseOptions(argv, dir, env);
    } catch (e) {
      expect(e).to.be.instanceOf(OptionsError);
      return (e as Error).message;
    }
    return expect.fail('accepted');
  };

  it('takes the Redis URL from the flag, else the environment, and never shows its password', () => {
    expect(parseOptions([], dir, {}).sharedState).to.deep.equal({
      redisUrl: undefined,
      redisTimeoutMs: 100,
      rateLimits: undefined,
      rateLimitReplicas: 1,
    });
    const env = { [REDIS_URL_ENV]: 'redis://:fromenv@r:6379/0' };
    expect(parseOptions([], dir, env).sharedState.redisUrl).to.equal('redis://:fromenv@r:6379/0');
    expect(parseOptions(['--redis-url=rediss://r'], dir, env).sharedState.redisUrl).to.equal('rediss://r');
    expect(refused(['--redis-url=http://:secret@r'])).to.equal(
      'invalid argument "http://***@r" for "--redis-url" flag: must be a redis:// or rediss:// URL',
    );
    expect(refused([], { [REDIS_URL_ENV]: 'secret' })).to.equal(
      `invalid argument in ${REDIS_URL_ENV}: not a URL (expected redis://[:password@]host:port[/db]; the value is not shown, as it may hold a password)`,
    );
    expect(refused(['--redis-url=redis://:secret@r/zero'])).to.not.contain('secret');
    expect(refused(['--redis-timeout=0'])).to.equal(
      'invalid argument "0" for "--redis-timeout" flag: must be greater than 0',
    );
    expect(refused(['--rate-limit-replicas=0'])).to.contain('--rate-limit-replicas');
  });

  it('reads the rate limit file at parse time and stops on a bad one', async () => {
    await writeFile(
      path.join(dir, 'good.yaml'),
      `${HEAD}limits:\n- {name: a, users: [x], requestsPerSecond: 2, burst: 3}\n`,
    );
    await writeFile(path.join(dir, 'bad.yaml'), `${HEAD}limits:\n- {name: a, users: [x], burst: 3}\n`);
    const options = parseOptions(['--rate-limit-config=good.yaml', '--rate-limit-replicas=2'], dir, {});
    expect(options.sharedState.rateLimits?.limits.map((l) => l.name)).to.deep.equal(['a']);
    expect(options.sharedState.rateLimitReplicas).to.equal(2);
    expect(refused(['--rate-limit-config=bad.yaml'])).to.equal(
      `invalid argument "bad.yaml" for "--rate-limit-config" flag: ${path.join(dir, 'bad.yaml')}: line 4: limits[0].requestsPerSecond: Required value`,
    );
    expect(refused(['--rate-limit-config=missing.yaml'])).to.contain('ENOENT');
  });
});
