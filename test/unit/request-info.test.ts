import { expect } from 'chai';
import { parseRequestInfo } from '../../gateway/filters/request-info.js';

const q = (s = '') => new URLSearchParams(s);

describe('request info', () => {
  it('parses a namespaced item with a subresource', () => {
    const info = parseRequestInfo('PUT', '/apis/apps/v1/namespaces/ns1/replicasets/rs/status', q());
    expect(info).to.include({ isResourceRequest: true, verb: 'update', apiGroup: 'apps', apiVersion: 'v1', namespace: 'ns1', resource: 'replicasets', name: 'rs', subresource: 'status' });
  });
  it('treats a namespace object as the namespaces resource scoped to itself', () => {
    const info = parseRequestInfo('GET', '/api/v1/namespaces/default', q());
    expect(info).to.include({ verb: 'get', resource: 'namespaces', name: 'default', namespace: 'default' });
  });
  it('turns GET on a collection with watch into a watch', () => {
    expect(parseRequestInfo('GET', '/api/v1/nodes', q('watch=true')).verb).to.equal('watch');
    expect(parseRequestInfo('GET', '/api/v1/nodes', q('watch=false')).verb).to.equal('list');
    expect(parseRequestInfo('DELETE', '/api/v1/namespaces/a/configmaps', q()).verb).to.equal('deletecollection');
  });
  it('leaves discovery and other paths as non-resource requests', () => {
    expect(parseRequestInfo('GET', '/apis/apps/v1', q()).isResourceRequest).to.equal(false);
    expect(parseRequestInfo('GET', '/readyz', q()).verb).to.equal('get');
  });
});
