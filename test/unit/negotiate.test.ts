import { expect } from 'chai';
import {
  defaultSerializers,
  isPrettyPrint,
  negotiateRequest,
  negotiateResponse,
  parseAccept,
} from '../../gateway/negotiation/negotiate.js';
import type { Serializer } from '../../gateway/negotiation/serializer.js';
import { statusErrorOf } from '../helpers/assertions.js';

const serializers = defaultSerializers();
const table = { allowTable: true, serializers };
const plain = { allowTable: false, serializers };

describe('Accept parsing', () => {
  it('orders by q, then specificity, then header order, dropping q=0 and junk', () => {
    const ranges = parseAccept(
      '*/*;q=0.1, application/yaml;q=0.5, text/html;q=0, application/*, application/json, nonsense, */json',
    );
    expect(ranges.map((r) => `${r.type}/${r.subtype};q=${r.q}`)).to.deep.equal([
      'application/json;q=1',
      'application/*;q=1',
      'application/yaml;q=0.5',
      '*/*;q=0.1',
    ]);
  });

  it('lowercases parameter names and unquotes values', () => {
    expect(parseAccept('application/json; AS="Table"; g=meta.k8s.io')[0].params).to.deep.equal({
      as: 'Table',
      g: 'meta.k8s.io',
    });
  });
});

describe('response negotiation', () => {
  it('answers JSON for a missing, empty or wildcard Accept header', () => {
    for (const accept of [undefined, '', '*/*', 'application/*']) {
      const t = negotiateResponse(accept, plain);
      expect(t.serializer.mediaType, String(accept)).to.equal('application/json');
      expect(t.contentType).to.equal('application/json');
      expect(t.as).to.equal(undefined);
    }
  });

  it('honours q-values between JSON and YAML', () => {
    expect(negotiateResponse('application/json;q=0.5, application/yaml', plain).contentType).to.equal(
      'application/yaml',
    );
    expect(negotiateResponse('application/yaml;q=0.2, */*;q=0.9', plain).contentType).to.equal('application/json');
  });

  it('serves Tables in meta.k8s.io and meta.platform.io, v1 and v1beta1', () => {
    const t = negotiateResponse('application/json;as=Table;v=v1;g=meta.k8s.io, application/json', table);
    expect(t).to.include({
      as: 'Table',
      tableApiVersion: 'meta.k8s.io/v1',
      contentType: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(negotiateResponse('application/json;as=Table;v=v1beta1;g=meta.k8s.io', table).tableApiVersion).to.equal(
      'meta.k8s.io/v1beta1',
    );
    const p = negotiateResponse('application/json;as=Table;g=meta.platform.io;v=v1', table);
    expect(p).to.include({
      tableApiVersion: 'meta.platform.io/v1',
      contentType: 'application/json;as=Table;v=v1;g=meta.platform.io',
    });
    expect(negotiateResponse('application/yaml;as=Table;g=meta.platform.io;v=v1beta1', table).contentType).to.equal(
      'application/yaml;as=Table;v=v1beta1;g=meta.platform.io',
    );
  });

  it('skips Table entries it cannot serve and falls back to the next entry', () => {
    const kubectl =
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const t = negotiateResponse(kubectl, plain);
    expect(t.as).to.equal(undefined);
    expect(t.contentType).to.equal('application/json');
    expect(negotiateResponse('application/json, application/json;as=Table;g=meta.k8s.io;v=v1', table).as).to.equal(
      undefined,
    );
    expect(negotiateResponse('application/json;as=Table;g=foo, application/json', table).as).to.equal(undefined);
    expect(
      negotiateResponse('application/json;as=Table;g=meta.k8s.io;v=v2, application/yaml', table).contentType,
    ).to.equal('application/yaml');
    expect(negotiateResponse('application/json;as=Widget;g=meta.k8s.io;v=v1, application/json', table).as).to.equal(
      undefined,
    );
  });

  it('answers 406 when nothing acceptable remains', () => {
    const e = statusErrorOf(() => negotiateResponse('application/json;as=Table;g=foo;v=v1', table));
    expect(e.code).to.equal(406);
    expect(e.reason).to.equal('NotAcceptable');
    expect(e.message).to.equal('only the following media types are accepted: application/json, application/yaml');
    expect(statusErrorOf(() => negotiateResponse('text/html, application/xml;q=0.9', plain)).code).to.equal(406);
    expect(statusErrorOf(() => negotiateResponse('application/json;q=0', plain)).code).to.equal(406);
  });

  it('serves PartialObjectMetadata only when the handler allows it', () => {
    const accept = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json';
    expect(negotiateResponse(accept, plain).as).to.equal(undefined);
    const t = negotiateResponse(accept, { ...plain, allowPartialObjectMetadata: true });
    expect(t).to.include({
      as: 'PartialObjectMetadataList',
      asApiVersion: 'meta.k8s.io/v1',
      contentType: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
    });
  });

  it('never streams YAML: a watch accepting only YAML is 406, with JSON as the fallback', () => {
    const e = statusErrorOf(() => negotiateResponse('application/yaml', { ...plain, streaming: true }));
    expect(e.code).to.equal(406);
    expect(e.message).to.equal('only the following media types are accepted: application/json');
    expect(
      negotiateResponse('application/yaml, application/json;q=0.1', { ...plain, streaming: true }).contentType,
    ).to.equal('application/json');
    expect(negotiateResponse('*/*', { ...table, streaming: true }).serializer.mediaType).to.equal('application/json');
    expect(
      negotiateResponse('application/json;as=Table;g=meta.k8s.io;v=v1', { ...table, streaming: true }).contentType,
    ).to.equal('application/json;as=Table;v=v1;g=meta.k8s.io');
  });

  it('uses the serializer table, aliases included', () => {
    const extra: Serializer = {
      ...serializers[0],
      mediaType: 'application/vnd.test',
      aliases: ['application/x-test'],
      streamMediaType: 'application/vnd.test;stream=watch',
    };
    const opts = { allowTable: false, serializers: [...serializers, extra] };
    expect(negotiateResponse('application/x-test', opts).serializer).to.equal(extra);
    expect(negotiateResponse('application/vnd.test', { ...opts, streaming: true }).contentType).to.equal(
      'application/vnd.test;stream=watch',
    );
  });
});

describe('request negotiation', () => {
  it('reads JSON and YAML bodies, ignoring parameters and case', () => {
    expect(negotiateRequest('application/json', serializers).mediaType).to.equal('application/json');
    expect(negotiateRequest('application/json; charset=utf-8', serializers).mediaType).to.equal('application/json');
    expect(negotiateRequest('Application/YAML', serializers).mediaType).to.equal('application/yaml');
  });

  it('treats a missing Content-Type as JSON', () => {
    expect(negotiateRequest(undefined, serializers).mediaType).to.equal('application/json');
    expect(negotiateRequest('  ', serializers).mediaType).to.equal('application/json');
  });

  it('answers 415 listing the supported types for anything else', () => {
    const e = statusErrorOf(() => negotiateRequest('text/plain', serializers));
    expect(e.code).to.equal(415);
    expect(e.reason).to.equal('UnsupportedMediaType');
    expect(e.message).to.equal(
      'the body of the request was in an unknown format (text/plain) - accepted media types include: application/json, application/yaml, application/vnd.platform.protobuf',
    );
    expect(statusErrorOf(() => negotiateRequest('application/merge-patch+json', serializers)).code).to.equal(415);
    expect(statusErrorOf(() => negotiateRequest('garbage', serializers)).code).to.equal(415);
  });
});

describe('pretty output', () => {
  const q = (s = '') => new URLSearchParams(s);

  it('indents for curl, Wget and browsers, not for other clients', () => {
    expect(isPrettyPrint(q(), 'curl/8.5.0')).to.equal(true);
    expect(isPrettyPrint(q(), 'Wget/1.21')).to.equal(true);
    expect(isPrettyPrint(q(), 'Mozilla/5.0 (X11; Linux x86_64)')).to.equal(true);
    expect(isPrettyPrint(q(), 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc')).to.equal(false);
    expect(isPrettyPrint(q(), 'OpenAPI-Generator/22.6.0/python')).to.equal(false);
  });

  it("lets a non-empty pretty parameter decide, read strictly as Go's ParseBool", () => {
    for (const v of ['1', 't', 'T', 'true', 'TRUE', 'True'])
      expect(isPrettyPrint(q(`pretty=${v}`), 'kubectl'), v).to.equal(true);
    for (const v of ['0', 'false', 'yes', 'on', 'tRuE'])
      expect(isPrettyPrint(q(`pretty=${v}`), 'curl/8.5.0'), v).to.equal(false);
    // An empty value says nothing: the user agent decides.
    expect(isPrettyPrint(q('pretty='), 'curl/8.5.0')).to.equal(true);
    expect(isPrettyPrint(q('pretty='), 'kubectl')).to.equal(false);
  });

  it('reads pretty=1 on the accepted media type', () => {
    const serializers = defaultSerializers();
    expect(negotiateResponse('application/json;pretty=1', { allowTable: false, serializers }).pretty).to.equal(true);
    expect(negotiateResponse('application/json;pretty=true', { allowTable: false, serializers }).pretty).to.equal(
      undefined,
    );
    expect(negotiateResponse('application/json', { allowTable: false, serializers }).pretty).to.equal(undefined);
  });
});
