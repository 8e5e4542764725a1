import { expect } from 'chai';
import { parseRequestInfo, queryBool } from '../../gateway/request/request-info.js';

const q = (s = '') => new URLSearchParams(s);

describe('request info', () => {
  it('parses a namespaced item with a subresource', () => {
    const info = parseRequestInfo('PUT', '/apis/apps/v1/namespaces/ns1/replicasets/rs/status', q());
    expect(info).to.include({
      isResourceRequest: true,
      verb: 'update',
      apiGroup: 'apps',
      apiVersion: 'v1',
      namespace: 'ns1',
      resource: 'replicasets',
      name: 'rs',
      subresource: 'status',
    });
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
  it('reads watch as every boolean parameter: anything but 0 and false (any case) is true', () => {
    for (const v of ['true', 'True', '1', 'yes', ''])
      expect(parseRequestInfo('GET', '/api/v1/nodes', q(`watch=${v}`)).verb, v).to.equal('watch');
    for (const v of ['false', 'False', 'FALSE', '0'])
      expect(parseRequestInfo('GET', '/api/v1/nodes', q(`watch=${v}`)).verb, v).to.equal('list');
  });
  it('parses boolean parameters as upstream converts them', () => {
    expect(queryBool(q(), 'force')).to.equal(undefined);
    for (const v of ['true', 'True', 'TRUE', '1', 'yes', 'on', ''])
      expect(queryBool(q(`force=${v}`), 'force'), v).to.equal(true);
    for (const v of ['false', 'False', 'fAlSe', '0']) expect(queryBool(q(`force=${v}`), 'force'), v).to.equal(false);
  });
  it('treats the deprecated /watch/ prefix as the watch verb, for collections and items in any scope', () => {
    expect(parseRequestInfo('GET', '/api/v1/watch/namespaces/ns/configmaps/cm', q())).to.include({
      isResourceRequest: true,
      verb: 'watch',
      namespace: 'ns',
      resource: 'configmaps',
      name: 'cm',
      subresource: '',
    });
    expect(parseRequestInfo('GET', '/api/v1/watch/namespaces/ns/configmaps', q())).to.include({
      verb: 'watch',
      namespace: 'ns',
      resource: 'configmaps',
      name: '',
    });
    expect(parseRequestInfo('GET', '/api/v1/watch/configmaps', q())).to.include({
      verb: 'watch',
      namespace: '',
      resource: 'configmaps',
    });
    expect(parseRequestInfo('GET', '/api/v1/watch/namespaces/ns', q())).to.include({
      verb: 'watch',
      resource: 'namespaces',
      name: 'ns',
      namespace: 'ns',
    });
    expect(parseRequestInfo('GET', '/apis/rbac.authorization.platform.io/v1/watch/clusterroles/admin', q())).to.include(
      {
        verb: 'watch',
        apiGroup: 'rbac.authorization.platform.io',
        resource: 'clusterroles',
        name: 'admin',
      },
    );
    // The prefix decides the verb whatever the method and the watch parameter.
    expect(parseRequestInfo('POST', '/api/v1/watch/namespaces/ns/configmaps', q()).verb).to.equal('watch');
    expect(parseRequestInfo('GET', '/api/v1/watch/configmaps', q('watch=false')).verb).to.equal('watch');
  });
  it('leaves discovery and other paths as non-resource requests', () => {
    expect(parseRequestInfo('GET', '/apis/apps/v1', q()).isResourceRequest).to.equal(false);
    expect(parseRequestInfo('GET', '/readyz', q()).verb).to.equal('get');
  });
});
