// One event as each backend writes it: JSON in the backend's group version, or the log's legacy line of text, after
// the backend's truncation (upstream's plugin/pkg/audit/truncate, which wraps each backend). Every form is encoded at
// most once per event however many backends want it, and only while the event is emitted: the record goes on
// changing afterwards (the next stage, late annotations).
import type { AuditEvent } from './event.js';
import { serializeEvent } from './event.js';
import { levelAtLeast } from './policy.js';
import type { AuditLogFormat, TruncateSettings } from './audit-flags.js';

const TRUNCATED_ANNOTATION = 'audit.k8s.io/truncated';

export class TooLargeError extends Error {}

export class OutgoingEvent {
  private json?: string;
  private jsonVersion?: string;
  private shortened?: string;
  private shortenedVersion?: string;
  private text?: string;

  constructor(
    readonly event: AuditEvent,
    private readonly requestObject?: string,
    private readonly responseObject?: string,
  ) {}

  /** The whole event as one JSON line, written as `version`. */
  jsonAs(version: string): string {
    if (this.json === undefined || this.jsonVersion !== version) {
      this.json = this.encode(version, this.requestObject, this.responseObject, this.event.annotations);
      this.jsonVersion = version;
    }
    return this.json;
  }

  /** Without its bodies, marked as upstream marks what it truncated. */
  withoutBodiesAs(version: string): string {
    if (this.shortened === undefined || this.shortenedVersion !== version) {
      this.shortened = this.encode(version, undefined, undefined, {
        ...this.event.annotations,
        [TRUNCATED_ANNOTATION]: 'true',
      });
      this.shortenedVersion = version;
    }
    return this.shortened;
  }

  legacy(): string {
    return (this.text ??= legacyLine(this.event));
  }

  private encode(
    version: string,
    requestObject: string | undefined,
    responseObject: string | undefined,
    annotations: Record<string, string> | undefined,
  ): string {
    const event = this.event;
    const { apiVersion, annotations: own } = event;
    event.apiVersion = version;
    event.annotations = annotations;
    try {
      return serializeEvent(event, requestObject, responseObject);
    } finally {
      event.apiVersion = apiVersion;
      event.annotations = own;
    }
  }
}

export interface EventFormat {
  format: AuditLogFormat;
  version: string;
  truncate?: TruncateSettings;
}

/**
 * The line a backend writes for `out`. With truncation, the JSON size decides as upstream's does (whatever the log's
 * format): past the bound an event of level Request or more loses its bodies; one still past it is refused.
 */
export function encodeFor(out: OutgoingEvent, as: EventFormat): string {
  if (as.truncate) {
    const max = as.truncate.maxEventBytes;
    let size = Buffer.byteLength(out.jsonAs(as.version));
    let shortened = false;
    if (size > max && levelAtLeast(out.event.level, 'Request')) {
      size = Buffer.byteLength(out.withoutBodiesAs(as.version));
      shortened = true;
    }
    if (size > max) throw new TooLargeError('event is too large even after truncating');
    if (shortened && as.format === 'json') return out.withoutBodiesAs(as.version);
  }
  return as.format === 'legacy' ? out.legacy() : out.jsonAs(as.version);
}

/** Go's %q of a string: the escapes strconv.Quote writes where JSON's differ (control characters). */
function goQuote(s: string): string {
  const quoted = JSON.stringify(s);
  // JSON escapes every control character but DEL: no escape in its output and no DEL means nothing differs.
  if (!quoted.includes('\\u00') && !s.includes('\u007f')) return quoted;
  return (
    quoted
      // An escaped backslash is matched whole, so that the text after it is never read as an escape.
      .replace(/\\(\\|u00([01][0-9a-f]))/g, (escape: string, _: string, hex: string | undefined) => {
        if (hex === undefined) return escape;
        const code = parseInt(hex, 16);
        if (code === 7) return '\\a';
        if (code === 11) return '\\v';
        return `\\x${hex}`;
      })
      .replace(/\u007f/g, '\\x7f')
  );
}

/** time.RFC3339Nano: the fraction without its trailing zeros, none at all for a whole second. */
function rfc3339Nano(microTime: string): string {
  return microTime.replace(/\.(\d*?)0*Z$/, (_, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** upstream's audit.EventString: the fields it picks, with its placeholders for those missing. */
export function legacyLine(ev: AuditEvent): string {
  let user = '<none>';
  let groups = '<none>';
  if (ev.user.username) {
    user = ev.user.username;
    if (ev.user.groups && ev.user.groups.length > 0) groups = ev.user.groups.map(goQuote).join(',');
  }
  let as = '<self>';
  let asGroups = '<lookup>';
  if (ev.impersonatedUser) {
    as = ev.impersonatedUser.username ?? '';
    if (ev.impersonatedUser.groups) asGroups = ev.impersonatedUser.groups.map(goQuote).join(',');
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus ? String(ev.responseStatus.code) : '<deferred>';
  const ip = ev.sourceIPs?.[0] ?? '<unknown>';
  return (
    `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${goQuote(ev.auditID)} stage=${goQuote(ev.stage)} ` +
    `ip=${goQuote(ip)} method=${goQuote(ev.verb)} user=${goQuote(user)} groups=${goQuote(groups)} as=${goQuote(as)} ` +
    `asgroups=${goQuote(asGroups)} user-agent=${goQuote(ev.userAgent ?? '')} namespace=${goQuote(namespace)} ` +
    `uri=${goQuote(ev.requestURI)} response="${response}"`
  );
}
