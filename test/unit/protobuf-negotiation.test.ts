// Negotiation with the protobuf codec in the table: chosen only for kinds it covers, echoed under the name the client
// used, never for Tables, and `;stream=watch` for watches.
import { expect } from 'chai';
import { defaultSerializers, negotiateRequest, negotiateResponse } from '../../gateway/negotiation/negotiate.js';
import { encodeProtobufObject } from '../../api/proto/object-codec.js';
import { statusErrorOf } from '../helpers/assertions.js';

const serializers = defaultSerializers();
const CLIENT_GO = 'application/vnd.kubernetes.protobuf,application/json';
const configMap = { apiVersion: 'v1', kind: 'ConfigMap' };
const custom = { apiVersion: 'stable.example.com/v1', kind: 'CronTab' };

describe('protobuf negotiation', () => {
  it('answers protobuf for built-in kinds and Status, under the name the client asked for', () => {
    const kube = negotiateResponse(CLIENT_GO, { allowTable: true, encodes: configMap, serializers });
    expect(kube.contentType).to.equal('application/vnd.kubernetes.protobuf');
    expect(kube.serializer.mediaType).to.equal('application/vnd.platform.protobuf');
    const platform = negotiateResponse('application/vnd.platform.protobuf', {
      allowTable: false,
      encodes: { apiVersion: 'v1', kind: 'Status' },
      serializers,
    });
    expect(platform.contentType).to.equal('application/vnd.platform.protobuf');
  });

  it('falls back to the next entry for kinds without a protobuf form, and is 406 when nothing else is accepted', () => {
    expect(negotiateResponse(CLIENT_GO, { allowTable: true, encodes: custom, serializers }).contentType).to.equal(
      'application/json',
    );
    expect(negotiateResponse(CLIENT_GO, { allowTable: true, serializers }).contentType).to.equal('application/json');
    const e = statusErrorOf(() =>
      negotiateResponse('application/vnd.kubernetes.protobuf', { allowTable: true, encodes: custom, serializers }),
    );
    expect(e.code).to.equal(406);
    expect(e.message).to.not.include('protobuf');
    // A wildcard never picks protobuf ahead of JSON.
    expect(negotiateResponse('*/*', { allowTable: true, encodes: configMap, serializers }).contentType).to.equal(
      'application/json',
    );
  });

  it('never answers a Table in protobuf', () => {
    const accept =
      'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const target = negotiateResponse(accept, { allowTable: true, encodes: configMap, serializers });
    expect(target.contentType).to.equal('application/json;as=Table;v=v1;g=meta.k8s.io');
    const only = 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io';
    expect(
      statusErrorOf(() => negotiateResponse(only, { allowTable: true, encodes: configMap, serializers })).code,
    ).to.equal(406);
  });

  it('streams watches as `;stream=watch` under the requested name', () => {
    const target = negotiateResponse(CLIENT_GO, { allowTable: true, streaming: true, encodes: configMap, serializers });
    expect(target.contentType).to.equal('application/vnd.kubernetes.protobuf;stream=watch');
    expect(
      negotiateResponse(CLIENT_GO, { allowTable: true, streaming: true, encodes: custom, serializers }).contentType,
    ).to.equal('application/json');
  });

  it('ignores parameters such as stream=watch on the Accept entry', () => {
    const target = negotiateResponse('application/vnd.kubernetes.protobuf;stream=watch', {
      allowTable: true,
      streaming: true,
      encodes: configMap,
      serializers,
    });
    expect(target.contentType).to.equal('application/vnd.kubernetes.protobuf;stream=watch');
  });

  it('reads protobuf request bodies under both names, and refuses them for kinds without a protobuf form with 415', () => {
    const codec = negotiateRequest('application/vnd.kubernetes.protobuf', serializers);
    expect(codec.mediaType).to.equal('application/vnd.platform.protobuf');
    expect(negotiateRequest('application/vnd.platform.protobuf', serializers)).to.equal(codec);
    const body = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(codec.decode(body, { expected: { group: '', version: 'v1', kind: 'ConfigMap' } }).value).to.deep.equal({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x' },
    });
    const e = statusErrorOf(() =>
      codec.decode(body, { expected: { group: 'stable.example.com', version: 'v1', kind: 'CronTab' } }),
    );
    expect(e.code).to.equal(415);
  });
});
