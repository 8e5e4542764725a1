// How a request becomes metric label values: upstream's verb, scope and dryRun cleaning and user name compression.
import { expect } from 'chai';
import { cleanDryRun, cleanScope, cleanVerb, compressUsername } from '../../gateway/metrics/request-labels.js';
import { parseRequestInfo, type RequestInfo } from '../../gateway/request/request-info.js';

describe('request metric labels', () => {
  const info = (overrides: Partial<RequestInfo>): RequestInfo => ({
    ...parseRequestInfo('GET', '/api/v1/namespaces/default/configmaps', new URLSearchParams()),
    ...overrides,
  });

  it('reports verbs as upstream: LIST and GET apart, WATCH, APPLY, CONNECT, DELETECOLLECTION, else "other"', () => {
    const verb = (method: string, url: string, contentType?: string): string => {
      const [p, q] = url.split('?');
      return cleanVerb(parseRequestInfo(method, p, new URLSearchParams(q)), method, contentType);
    };
    expect(verb('GET', '/api/v1/namespaces/default/configmaps')).to.equal('LIST');
    expect(verb('GET', '/api/v1/namespaces/default/configmaps/a')).to.equal('GET');
    expect(verb('GET', '/api/v1/namespaces/default/configmaps?watch=true')).to.equal('WATCH');
    expect(verb('GET', '/api/v1/watch/namespaces/default/configmaps')).to.equal('WATCH');
    expect(verb('PATCH', '/api/v1/namespaces/default/configmaps/a', 'application/apply-patch+yaml')).to.equal('APPLY');
    expect(verb('PATCH', '/api/v1/namespaces/default/configmaps/a', 'application/merge-patch+json')).to.equal('PATCH');
    expect(verb('DELETE', '/api/v1/namespaces/default/configmaps')).to.equal('DELETECOLLECTION');
    expect(verb('POST', '/api/v1/namespaces/default/pods/a/exec')).to.equal('CONNECT');
    expect(verb('PROPFIND', '/api/v1/namespaces/default/configmaps')).to.equal('other');
    expect(verb('GET', '/healthz')).to.equal('GET');
  });

  it('scopes a named object or a create as resource, then namespace, then cluster', () => {
    expect(cleanScope(info({ name: 'a' }))).to.equal('resource');
    expect(cleanScope(info({ verb: 'create' }))).to.equal('resource');
    expect(cleanScope(info({}))).to.equal('namespace');
    expect(cleanScope(info({ namespace: '' }))).to.equal('cluster');
    expect(cleanScope(parseRequestInfo('GET', '/version', new URLSearchParams()))).to.equal('');
  });

  it('cleans dryRun and compresses user names', () => {
    expect(cleanDryRun(new URLSearchParams('dryRun=All&dryRun=All'))).to.equal('All');
    expect(cleanDryRun(new URLSearchParams('dryRun=Nope'))).to.equal('invalid');
    expect(cleanDryRun(new URLSearchParams(''))).to.equal('');
    expect(['system:admin', 'kubelet', 'jane@example.com', 'jane'].map(compressUsername)).to.deep.equal([
      'system:admin',
      'kubelet',
      'email_id',
      'other',
    ]);
  });
});
