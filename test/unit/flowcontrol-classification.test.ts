import { expect } from 'chai';
import { classify, nonResourceURLMatches, sortSchemas, flowDistinguisher } from '../../gateway/flowcontrol/classify.js';
import { parseRequestInfo } from '../../gateway/request/request-info.js';
import type { FlowSchemaObject } from '../../gateway/flowcontrol/types.js';
import type { UserInfo } from '../../api/meta/user.js';
import { estimateWork } from '../../gateway/flowcontrol/work-estimate.js';

const info = (method: string, path: string, query = '') => parseRequestInfo(method, path, new URLSearchParams(query));
const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups: [...groups, 'system:authenticated'] });

function schema(
  name: string,
  precedence: number,
  level: string,
  rules: FlowSchemaObject['spec']['rules'],
): FlowSchemaObject {
  return {
    metadata: { name },
    spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: precedence, rules },
  };
}

const ALL_RESOURCES = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }];
const everyone = [{ kind: 'Group', group: { name: '*' } }];

describe('priority and fairness: classification', () => {
  it('orders schemas by matchingPrecedence, then name, with an unset precedence as 1000', () => {
    const sorted = sortSchemas([
      schema('b', 500, 'x', []),
      schema('a', 500, 'x', []),
      { metadata: { name: 'unset' }, spec: { priorityLevelConfiguration: { name: 'x' } } },
      schema('first', 1, 'x', []),
    ]);
    expect(sorted.map((s) => s.metadata.name)).to.deep.equal(['first', 'a', 'b', 'unset']);
  });

  it('takes the first matching schema and passes over one whose level is missing (dangling)', () => {
    const schemas = sortSchemas([
      schema('dangling', 10, 'gone', [{ subjects: everyone, resourceRules: ALL_RESOURCES }]),
      schema('second', 20, 'level-b', [{ subjects: everyone, resourceRules: ALL_RESOURCES }]),
      schema('third', 30, 'level-c', [{ subjects: everyone, resourceRules: ALL_RESOURCES }]),
    ]);
    const levels = new Set(['level-b', 'level-c']);
    const found = classify(schemas, (n) => levels.has(n), user('alice'), info('GET', '/api/v1/namespaces/a/pods'));
    expect(found?.metadata.name).to.equal('second');
  });

  it('matches users, groups and service accounts by name or "*"', () => {
    const rule = (subject: object) => [{ subjects: [subject as never], resourceRules: ALL_RESOURCES }];
    const get = info('GET', '/api/v1/namespaces/ns/configmaps/x');
    const match = (subject: object, who: UserInfo) =>
      classify([schema('s', 1, 'l', rule(subject))], () => true, who, get) !== undefined;
    expect(match({ kind: 'User', user: { name: 'alice' } }, user('alice'))).to.equal(true);
    expect(match({ kind: 'User', user: { name: 'alice' } }, user('bob'))).to.equal(false);
    expect(match({ kind: 'User', user: { name: '*' } }, user('bob'))).to.equal(true);
    expect(match({ kind: 'Group', group: { name: 'ops' } }, user('bob', 'ops'))).to.equal(true);
    expect(match({ kind: 'Group', group: { name: 'ops' } }, user('bob', 'dev'))).to.equal(false);
    const sa = user('system:serviceaccount:kube-system:builder');
    expect(
      match({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: 'builder' } }, sa),
    ).to.equal(true);
    expect(match({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }, sa)).to.equal(
      true,
    );
    expect(match({ kind: 'ServiceAccount', serviceAccount: { namespace: 'other', name: '*' } }, sa)).to.equal(false);
    expect(
      match({ kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } }, user('builder')),
    ).to.equal(false);
  });

  it('matches resource rules on verbs, groups (served or as asked), resources with subresources, and scope', () => {
    const check = (rule: object, method: string, path: string) =>
      classify(
        [schema('s', 1, 'l', [{ subjects: everyone, resourceRules: [rule] }])],
        () => true,
        user('u'),
        info(method, path),
      ) !== undefined;
    const pods = { verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['team-a'] };
    expect(check(pods, 'GET', '/api/v1/namespaces/team-a/pods/p')).to.equal(true);
    expect(check(pods, 'GET', '/api/v1/namespaces/team-b/pods/p')).to.equal(false);
    expect(check(pods, 'DELETE', '/api/v1/namespaces/team-a/pods/p')).to.equal(false);
    // A subresource needs its own entry; "*" covers every resource and subresource.
    expect(check(pods, 'GET', '/api/v1/namespaces/team-a/pods/p/status')).to.equal(false);
    expect(check({ ...pods, resources: ['pods/status'] }, 'GET', '/api/v1/namespaces/team-a/pods/p/status')).to.equal(
      true,
    );
    expect(check({ ...pods, resources: ['*'] }, 'GET', '/api/v1/namespaces/team-a/pods/p/status')).to.equal(true);
    // Cluster-scoped requests need clusterScope; namespaces "*" covers every namespace but not the cluster scope.
    const nodes = { verbs: ['list'], apiGroups: ['*'], resources: ['nodes'], namespaces: ['*'] };
    expect(check(nodes, 'GET', '/api/v1/nodes')).to.equal(false);
    expect(check({ ...nodes, clusterScope: true }, 'GET', '/api/v1/nodes')).to.equal(true);
    const leases = { verbs: ['*'], apiGroups: ['coordination.platform.io'], resources: ['leases'], namespaces: ['*'] };
    expect(check(leases, 'PUT', '/apis/coordination.platform.io/v1/namespaces/x/leases/l')).to.equal(true);
    expect(check(leases, 'PUT', '/apis/apps/v1/namespaces/x/leases/l')).to.equal(false);
  });

  it('matches non-resource rules with "*" and "/prefix/*" URLs', () => {
    expect(nonResourceURLMatches('*', '/healthz')).to.equal(true);
    expect(nonResourceURLMatches('/healthz', '/healthz')).to.equal(true);
    expect(nonResourceURLMatches('/healthz', '/healthz/etcd')).to.equal(false);
    expect(nonResourceURLMatches('/healthz/*', '/healthz/etcd')).to.equal(true);
    expect(nonResourceURLMatches('/healthz/*', '/livez')).to.equal(false);
    const s = schema('s', 1, 'l', [
      { subjects: everyone, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] },
    ]);
    expect(classify([s], () => true, user('u'), info('GET', '/version'))).to.equal(s);
    expect(classify([s], () => true, user('u'), info('POST', '/version'))).to.equal(undefined);
    // A resource request never matches a non-resource rule.
    expect(classify([s], () => true, user('u'), info('GET', '/api/v1/pods'))).to.equal(undefined);
  });

  it('distinguishes flows by user, by namespace, or not at all', () => {
    const base = schema('s', 1, 'l', []);
    const req = info('GET', '/api/v1/namespaces/team-a/pods');
    expect(
      flowDistinguisher(
        { ...base, spec: { ...base.spec, distinguisherMethod: { type: 'ByUser' } } },
        user('alice'),
        req,
      ),
    ).to.equal('alice');
    expect(
      flowDistinguisher(
        { ...base, spec: { ...base.spec, distinguisherMethod: { type: 'ByNamespace' } } },
        user('alice'),
        req,
      ),
    ).to.equal('team-a');
    expect(flowDistinguisher(base, user('alice'), req)).to.equal('');
  });
});

describe('priority and fairness: work estimates', () => {
  const sources = (objects: number | undefined, watchers = 0) => ({
    objectCount: () => objects,
    watchCount: () => watchers,
  });

  it('costs a list by the objects it goes through: 100 a seat, between 1 and 10 seats', () => {
    const list = info('GET', '/api/v1/namespaces/a/configmaps');
    expect(estimateWork(list, new URLSearchParams(), sources(40)).initialSeats).to.equal(1);
    // From storage a plain list reads about twice what it returns.
    expect(estimateWork(list, new URLSearchParams(), sources(250)).initialSeats).to.equal(5);
    expect(estimateWork(list, new URLSearchParams('limit=100'), sources(250)).initialSeats).to.equal(2);
    expect(
      estimateWork(list, new URLSearchParams('labelSelector=a%3Db&limit=100'), sources(250)).initialSeats,
    ).to.equal(4);
    expect(estimateWork(list, new URLSearchParams('resourceVersion=0'), sources(250)).initialSeats).to.equal(3);
    expect(estimateWork(list, new URLSearchParams(), sources(100_000)).initialSeats).to.equal(10);
    // Capped by what the level can give, and the minimum for a resource not counted.
    expect(estimateWork(list, new URLSearchParams(), sources(100_000), 3).initialSeats).to.equal(3);
    expect(estimateWork(list, new URLSearchParams(), sources(undefined)).initialSeats).to.equal(1);
  });

  it('costs a watch like its initial list only when it sends initial events', () => {
    const watch = (q: string) =>
      estimateWork(info('GET', '/api/v1/configmaps', `watch=1&${q}`), new URLSearchParams(q), sources(900));
    expect(watch('').initialSeats).to.equal(10);
    expect(watch('resourceVersion=0').initialSeats).to.equal(9);
    expect(watch('resourceVersion=42').initialSeats).to.equal(1);
  });

  it('gives a write final seats for its watch fan-out: one per 10 watchers, 5 ms, capped with the work kept', () => {
    const create = info('POST', '/api/v1/namespaces/a/configmaps');
    expect(estimateWork(create, new URLSearchParams(), sources(0, 9))).to.deep.equal({
      initialSeats: 1,
      finalSeats: 0,
      additionalLatencyMs: 0,
    });
    expect(estimateWork(create, new URLSearchParams(), sources(0, 35))).to.deep.equal({
      initialSeats: 1,
      finalSeats: 4,
      additionalLatencyMs: 5,
    });
    expect(estimateWork(create, new URLSearchParams(), sources(0, 1000))).to.deep.equal({
      initialSeats: 1,
      finalSeats: 10,
      additionalLatencyMs: 50,
    });
    expect(
      estimateWork(info('GET', '/api/v1/namespaces/a/configmaps/x'), new URLSearchParams(), sources(5000, 1000))
        .initialSeats,
    ).to.equal(1);
  });
});
