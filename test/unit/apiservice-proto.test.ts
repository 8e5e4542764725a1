// APIService's protobuf form: kube-aggregator's field numbers (a round trip alone would not notice a wrong one).
import { expect } from 'chai';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';

const apiService = {
  apiVersion: 'apiregistration.k8s.io/v1',
  kind: 'APIService',
  metadata: { name: 'v1.g', creationTimestamp: '2024-05-01T10:00:00Z' },
  spec: {
    service: { namespace: 'n', name: 's', port: 443 },
    group: 'g',
    version: 'v1',
    caBundle: 'AAEC',
    groupPriorityMinimum: 100,
    versionPriority: 15,
  },
  status: {
    conditions: [
      {
        type: 'Available',
        status: 'False',
        lastTransitionTime: '2024-05-02T11:30:15Z',
        reason: 'FailedDiscoveryCheck',
        message: 'timed out',
      },
    ],
  },
};

describe('APIService protobuf', () => {
  it('writes the spec with upstream field numbers, caBundle as raw bytes', () => {
    const spec = Buffer.from([
      ...[0x0a, 0x09, 0x0a, 0x01, 0x6e, 0x12, 0x01, 0x73, 0x18, 0xbb, 0x03], // 1 service {1 namespace, 2 name, 3 port}
      ...[0x12, 0x01, 0x67], // 2 group
      ...[0x1a, 0x02, 0x76, 0x31], // 3 version
      ...[0x2a, 0x03, 0x00, 0x01, 0x02], // 5 caBundle
      ...[0x38, 0x64], // 7 groupPriorityMinimum
      ...[0x40, 0x0f], // 8 versionPriority
    ]);
    const bytes = encodeProtobufObject(apiService);
    expect(bytes.includes(Buffer.concat([Buffer.from([0x12, spec.length]), spec]))).to.equal(true);
  });

  it('comes back identical, list included, and keeps zero priorities', () => {
    expect(decodeProtobufObject(encodeProtobufObject(apiService))).to.deep.equal(apiService);
    const zero = { ...apiService, spec: { group: 'g', version: 'v1', groupPriorityMinimum: 0, versionPriority: 0 } };
    expect(decodeProtobufObject(encodeProtobufObject(zero))).to.deep.equal(zero);
    const list = {
      apiVersion: 'apiregistration.platform.io/v1',
      kind: 'APIServiceList',
      metadata: { resourceVersion: '7' },
      items: [{ metadata: apiService.metadata, spec: apiService.spec, status: apiService.status }],
    };
    expect(decodeProtobufObject(encodeProtobufObject(list))).to.deep.equal(list);
  });
});
