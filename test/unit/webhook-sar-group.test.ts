// The group a webhook's SubjectAccessReview is sent in: an API server's access-review endpoint refuses a body whose
// apiVersion is not its path's, so a webhook aimed at /apis/authorization.k8s.io/... must get that group.
import { expect } from 'chai';
import { sarBody, sarGroupFor } from '../../policies/webhook/subject-access-review.js';

describe('webhook SubjectAccessReview group', () => {
  it('is authorization.k8s.io for a URL at that group, as another Gatehouse or kube-apiserver serves it', () => {
    const group = sarGroupFor(new URL('https://front:6443/apis/authorization.k8s.io/v1/subjectaccessreviews'));
    expect(sarBody({ user: 'alice' }, 'v1', group)).to.deep.equal({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'alice' },
    });
  });

  it('stays authorization.platform.io for any other URL', () => {
    for (const url of [
      'https://hook.example/authorize',
      'https://front:6443/apis/authorization.platform.io/v1/subjectaccessreviews',
    ])
      expect(sarGroupFor(new URL(url)), url).to.equal('authorization.platform.io');
    expect(sarBody({}, 'v1beta1').apiVersion).to.equal('authorization.platform.io/v1beta1');
  });
});
