// An event as a backend writes it: upstream's legacy line (audit.EventString's fields, placeholders and Go quoting),
// the JSON line in the backend's group version, and truncation's choices by the JSON size.
import { expect } from 'chai';
import { encodeFor, legacyLine, OutgoingEvent, TooLargeError } from '../../gateway/audit/encode.js';
import type { AuditEvent } from '../../gateway/audit/event.js';

function event(overrides: Partial<AuditEvent> = {}): AuditEvent {
  return {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'RequestResponse',
    auditID: 'id-1',
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/default/configmaps',
    verb: 'create',
    user: { username: 'alice', groups: ['dev', 'system:authenticated'] },
    sourceIPs: ['10.0.0.1', '127.0.0.1'],
    userAgent: 'kubectl/v1.32.0',
    objectRef: { resource: 'configmaps', namespace: 'default', name: 'c1', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 201 },
    requestReceivedTimestamp: '2026-11-27T04:00:01.120000Z',
    stageTimestamp: '2026-11-27T04:00:01.130000Z',
    ...overrides,
  };
}

describe('audit legacy format', () => {
  it("writes audit.EventString's fields in its order, groups quoted inside the quotes", () => {
    expect(legacyLine(event())).to.equal(
      '2026-11-27T04:00:01.12Z AUDIT: id="id-1" stage="ResponseComplete" ip="10.0.0.1" method="create" ' +
        'user="alice" groups="\\"dev\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" ' +
        'user-agent="kubectl/v1.32.0" namespace="default" uri="/api/v1/namespaces/default/configmaps" response="201"',
    );
  });

  it('uses its placeholders for what is missing, and names the impersonated user', () => {
    const line = legacyLine(
      event({
        user: {},
        impersonatedUser: { username: 'carol', groups: ['ops'] },
        sourceIPs: undefined,
        userAgent: undefined,
        objectRef: { resource: 'namespaces' },
        responseStatus: undefined,
        stage: 'RequestReceived',
        requestReceivedTimestamp: '2026-11-27T04:00:01.000000Z',
      }),
    );
    expect(line).to.equal(
      '2026-11-27T04:00:01Z AUDIT: id="id-1" stage="RequestReceived" ip="<unknown>" method="create" ' +
        'user="<none>" groups="<none>" as="carol" asgroups="\\"ops\\"" user-agent="" namespace="<none>" ' +
        'uri="/api/v1/namespaces/default/configmaps" response="<deferred>"',
    );
  });

  it("quotes control characters as Go's %q does, and leaves a literal backslash-u alone", () => {
    const line = legacyLine(event({ userAgent: 'a\u0007b\u0001c\nd\u007fe\\u0001f' }));
    expect(line).to.include('user-agent="a\\ab\\x01c\\nd\\x7fe\\\\u0001f"');
  });
});

describe('audit event encoding per backend', () => {
  const request = JSON.stringify({ data: { big: 'x'.repeat(2000) } });

  it('writes the JSON in the backend group version, the same event once per version', () => {
    const out = new OutgoingEvent(event(), request, '{"ok":true}');
    const k8s = JSON.parse(encodeFor(out, { format: 'json', version: 'audit.k8s.io/v1' }));
    const ours = JSON.parse(encodeFor(out, { format: 'json', version: 'audit.platform.io/v1' }));
    expect(k8s.apiVersion).to.equal('audit.k8s.io/v1');
    expect(ours.apiVersion).to.equal('audit.platform.io/v1');
    expect(ours.requestObject).to.deep.equal(JSON.parse(request));
    // The record itself is unchanged for the next stage.
    expect(out.event.apiVersion).to.equal('audit.k8s.io/v1');
  });

  it('drops the bodies of an event past the bound and marks it; refuses one still too large', () => {
    const truncate = { maxEventBytes: 1500, maxBatchBytes: 10_000 };
    const out = new OutgoingEvent(event({ annotations: { a: 'b' } }), request, '{"ok":true}');
    const line = encodeFor(out, { format: 'json', version: 'audit.k8s.io/v1', truncate });
    const parsed = JSON.parse(line);
    expect(parsed).not.to.have.property('requestObject');
    expect(parsed).not.to.have.property('responseObject');
    expect(parsed.annotations).to.deep.equal({ a: 'b', 'audit.k8s.io/truncated': 'true' });
    expect(out.event.annotations).to.deep.equal({ a: 'b' });
    // Within the bound, whole.
    const small = new OutgoingEvent(event(), '{}', '{}');
    expect(JSON.parse(encodeFor(small, { format: 'json', version: 'audit.k8s.io/v1', truncate }))).to.have.property(
      'requestObject',
    );
    // A Metadata event has no body to drop: past the bound it is refused, whatever the format.
    const metadata = new OutgoingEvent(event({ level: 'Metadata', requestURI: `/api/${'y'.repeat(2000)}` }));
    expect(() => encodeFor(metadata, { format: 'legacy', version: 'audit.k8s.io/v1', truncate })).to.throw(
      TooLargeError,
      'event is too large even after truncating',
    );
  });

  it('judges a legacy line by its JSON size, as upstream, and writes the line', () => {
    const truncate = { maxEventBytes: 1500, maxBatchBytes: 10_000 };
    const out = new OutgoingEvent(event(), request);
    expect(encodeFor(out, { format: 'legacy', version: 'audit.k8s.io/v1', truncate })).to.match(/ AUDIT: id="id-1"/);
  });
});
