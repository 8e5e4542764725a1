// The string formats kube-apiserver validates in custom resource schemas (kube-openapi's strfmt registry): any other
// format is accepted as a plain string, as upstream ignores formats it does not know. The checks follow what upstream's
// Go functions accept (net/mail for email, url.ParseRequestURI for uri, sloppy IPv4 with leading zeros, UUIDs with or
// without dashes, durations in Go's form or with day and week units), so an object valid there is valid here.
import { isIPv6 } from 'node:net';
import type { Ajv } from 'ajv';
import { parseGoDuration } from '../meta/go-duration.js';

const IPV4_SLOPPY = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
// RFC 1034 labels, digits first allowed (RFC 1123), symbols and letters of any script, a top-level label of letters.
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const MAC_COLON_OR_DASH =
  /^[0-9a-f]{2}(?:([:-])[0-9a-f]{2})(?:\1[0-9a-f]{2}){4}(?:(?:\1[0-9a-f]{2}){2}(?:(?:\1[0-9a-f]{2}){12})?)?$/i;
const MAC_DOTTED = /^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}(?:\.[0-9a-f]{4}(?:\.[0-9a-f]{4}){6})?$/i;
const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const HEX_COLOR = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;
const OCTET = '\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*';
const RGB_COLOR = new RegExp(`^rgb\\(${OCTET},${OCTET},${OCTET}\\)$`);
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const BSON_OBJECT_ID = /^[0-9a-f]{24}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// An address as net/mail reads it: a bare addr-spec, or one in angle brackets after a display name.
const ADDR_SPEC =
  "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*";
const EMAIL = new RegExp(`^(?:${ADDR_SPEC}|(?:"[^"]*"|[^<>"@]*)<${ADDR_SPEC}>)$`);
// strfmt's fallback duration form: signed integers each followed by a unit word (`3d`, `1 week`, `5min`).
const LOOSE_DURATION_TERM = /((?:-\s?)?\d+)\s*([A-Za-zµ]+)/g;
const LOOSE_DURATION_UNITS: [string[], number][] = [
  [['ns', 'nano'], 1e-6],
  [['us', 'µs', 'micro'], 1e-3],
  [['ms', 'milli'], 1],
  [['s', 'sec'], 1000],
  [['m', 'min'], 60_000],
  [['h', 'hr', 'hour'], 3_600_000],
  [['d', 'day'], 86_400_000],
  [['w', 'wk', 'week'], 604_800_000],
];

function isIPv4Sloppy(text: string): boolean {
  const m = IPV4_SLOPPY.exec(text);
  if (m) return m.slice(1).every((octet) => Number(octet) <= 255);
  // Go's ParseIP reads an IPv4-mapped IPv6 address too, and the check asks only for a dot.
  return text.includes('.') && isIPv6(text);
}

function isCidrSloppy(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  if (IPV4_SLOPPY.test(address)) return isIPv4Sloppy(address) && Number(prefix) <= 32;
  return isIPv6(address) && Number(prefix) <= 128;
}

function isRequestUri(text: string): boolean {
  // url.ParseRequestURI refuses control characters anywhere.
  if (text === '' || [...text].some((c) => c < ' ' || c === '\x7f')) return false;
  if (text.startsWith('/')) return true;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

function isFullDate(text: string): boolean {
  const m = FULL_DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Milliseconds of a duration as upstream's strfmt reads it: Go's form first, else terms with unit words. */
export function parseOpenApiDuration(text: string): number {
  try {
    return parseGoDuration(text);
  } catch (goError) {
    let total = 0;
    let matched = false;
    for (const [, rawValue, rawUnit] of text.matchAll(LOOSE_DURATION_TERM)) {
      const value = Number(rawValue.replace(/\s/g, ''));
      const unit = rawUnit.toLowerCase();
      for (const [variants, ms] of LOOSE_DURATION_UNITS) {
        const last = variants.length - 1;
        if (variants.some((variant, i) => variant === unit || (i === last && unit.startsWith(variant)))) {
          matched = true;
          total += value * ms;
        }
      }
    }
    if (!matched) throw goError;
    return total;
  }
}

function isDuration(text: string): boolean {
  try {
    parseOpenApiDuration(text);
    return true;
  } catch {
    return false;
  }
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function isCreditCard(text: string): boolean {
  const digits = text.replace(/[- ]/g, '');
  return /^\d{13,19}$/.test(digits) && luhn(digits);
}

function isIsbn10(text: string): boolean {
  const s = text.replace(/[\s-]/g, '');
  if (!/^\d{9}[\dX]$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (s[i] === 'X' ? 10 : Number(s[i])) * (i + 1);
  return sum % 11 === 0;
}

function isIsbn13(text: string): boolean {
  const s = text.replace(/[\s-]/g, '');
  if (!/^\d{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(s[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(s[12]);
}

const STRING_FORMATS: Record<string, (text: string) => boolean> = {
  bsonobjectid: (s) => BSON_OBJECT_ID.test(s),
  uri: isRequestUri,
  email: (s) => EMAIL.test(s),
  hostname: (s) => s.length <= 255 && HOSTNAME.test(s) && s.split('.').every((label) => label.length <= 63),
  ipv4: isIPv4Sloppy,
  ipv6: (s) => isIPv6(s),
  cidr: isCidrSloppy,
  mac: (s) => MAC_COLON_OR_DASH.test(s) || MAC_DOTTED.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isIsbn10(s) || isIsbn13(s),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: isCreditCard,
  ssn: (s) => SSN.test(s),
  hexcolor: (s) => HEX_COLOR.test(s),
  rgbcolor: (s) => RGB_COLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isFullDate,
  duration: isDuration,
};

/** The format names upstream validates; every other format name is ignored, as upstream ignores it. */
export const VALIDATED_STRING_FORMATS: readonly string[] = [...Object.keys(STRING_FORMATS), 'date-time', 'datetime'];

/** Teaches an ajv instance upstream's string formats, with date-time's check given by the caller (built-in kinds use it too). */
export function addOpenApiFormats(ajv: Ajv, dateTime: (text: string) => boolean): void {
  for (const [name, validate] of Object.entries(STRING_FORMATS)) {
    if (!ajv.formats[name]) ajv.addFormat(name, { type: 'string', validate });
  }
  if (!ajv.formats.datetime) ajv.addFormat('datetime', { type: 'string', validate: dateTime });
}
