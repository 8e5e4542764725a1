// The string formats custom resource schemas check, with what upstream's Go functions accept and refuse for each:
// a value valid against kube-apiserver must be valid here, and the common mistakes refused.
import { expect } from 'chai';
import { sharedAjv } from '../../api/validation/ajv-instance.js';
import { parseOpenApiDuration, VALIDATED_STRING_FORMATS } from '../../api/validation/openapi-formats.js';
import { re2PatternError } from '../../api/validation/re2-pattern.js';

const CASES: Record<string, { valid: string[]; invalid: string[] }> = {
  bsonobjectid: {
    valid: ['507f1f77bcf86cd799439011'],
    invalid: ['507f1f77bcf86cd79943901', 'zz7f1f77bcf86cd799439011'],
  },
  uri: {
    valid: ['https://example.com/a?b=c', '/just/a/path', 'urn:isbn:0451450523'],
    invalid: ['example.com', 'a b', ''],
  },
  email: { valid: ['ops@example.com', 'Ops Team <ops@example.com>'], invalid: ['ops', 'ops@', '@example.com'] },
  hostname: {
    valid: ['example.com', 'node1', 'node-1.example.io', '1example.io', 'bücher.de'],
    invalid: ['-bad.com', 'under_score.com', 'a.'.repeat(130) + 'com'],
  },
  ipv4: { valid: ['10.0.0.1', '010.001.0.1', '::ffff:10.0.0.1'], invalid: ['10.0.0.256', '10.0.0', 'fe80::1'] },
  ipv6: { valid: ['fe80::1', '::1', '2001:db8::8a2e:370:7334'], invalid: ['10.0.0.1', 'fe80:::1'] },
  cidr: { valid: ['10.0.0.0/8', '010.0.0.0/8', 'fd00::/64'], invalid: ['10.0.0.0/33', '10.0.0.0', 'fd00::/129'] },
  mac: {
    valid: ['00:1a:2b:3c:4d:5e', '00-1A-2B-3C-4D-5E', '001a.2b3c.4d5e', '00:1a:2b:3c:4d:5e:6f:70'],
    invalid: ['00:1a:2b:3c:4d', '00:1a-2b:3c:4d:5e'],
  },
  uuid: {
    valid: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000'],
    invalid: ['123e4567-e89b-12d3-a456-42661417400'],
  },
  uuid3: { valid: ['a3bb189e-8bf9-3888-9912-ace4e6543002'], invalid: ['a3bb189e-8bf9-4888-9912-ace4e6543002'] },
  uuid4: { valid: ['9b2c6b1e-4c2d-4b8e-9f1a-2d3c4b5a6f70'], invalid: ['9b2c6b1e-4c2d-4b8e-7f1a-2d3c4b5a6f70'] },
  uuid5: { valid: ['74738ff5-5367-5958-9aee-98fffdcd1876'], invalid: ['74738ff5-5367-4958-9aee-98fffdcd1876'] },
  isbn: { valid: ['0-306-40615-2', '978-0-306-40615-7'], invalid: ['0-306-40615-3'] },
  isbn10: { valid: ['080442957X'], invalid: ['9780306406157'] },
  isbn13: { valid: ['9780306406157'], invalid: ['9780306406158', '0306406152'] },
  creditcard: { valid: ['4111 1111 1111 1111'], invalid: ['4111 1111 1111 1112', '1234'] },
  ssn: { valid: ['123-45-6789', '123456789'], invalid: ['123-456-789'] },
  hexcolor: { valid: ['#fff', 'A0B1C2'], invalid: ['#ffff', 'ggg'] },
  rgbcolor: { valid: ['rgb(0, 128, 255)'], invalid: ['rgb(0,128,256)', 'rgba(0,0,0,1)'] },
  byte: { valid: ['aGVsbG8=', ''], invalid: ['hello!'] },
  password: { valid: ['anything at all'], invalid: [] },
  date: { valid: ['2026-11-27', '2024-02-29'], invalid: ['2026-02-30', '2026-11-27T00:00:00Z', '27/11/2026'] },
  'date-time': { valid: ['2026-11-27T10:00:00Z', '2026-11-27T10:00:00.5+01:00'], invalid: ['2026-11-27', 'now'] },
  duration: { valid: ['1h30m', '90s', '2d', '1w', '3 days', '-5min'], invalid: ['soon', '5', ''] },
};

describe('OpenAPI string formats of custom resource schemas', () => {
  for (const [format, { valid, invalid }] of Object.entries(CASES)) {
    it(`${format}: accepts what upstream accepts and refuses the rest`, () => {
      const check = sharedAjv().compile({ type: 'string', format });
      for (const value of valid) expect(check(value), `${format} ${JSON.stringify(value)}`).to.equal(true);
      for (const value of invalid) expect(check(value), `${format} ${JSON.stringify(value)}`).to.equal(false);
    });
  }

  it('covers every format upstream validates, and ignores names it does not know', () => {
    for (const format of VALIDATED_STRING_FORMATS) {
      if (format === 'datetime') continue;
      expect(CASES, format).to.have.property(format);
    }
    expect(sharedAjv().compile({ type: 'string', format: 'not-a-format' })('whatever')).to.equal(true);
  });

  it('reads durations with day and week units as upstream does', () => {
    expect(parseOpenApiDuration('1h30m')).to.equal(5_400_000);
    expect(parseOpenApiDuration('2d')).to.equal(172_800_000);
    expect(parseOpenApiDuration('1 week')).to.equal(604_800_000);
    expect(() => parseOpenApiDuration('soon')).to.throw('invalid duration');
  });
});

describe('schema patterns on RE2', () => {
  it('match anywhere unless anchored, and read RE2 syntax JavaScript lacks', () => {
    expect(sharedAjv().compile({ type: 'string', pattern: 'b+' })('abbc')).to.equal(true);
    expect(sharedAjv().compile({ type: 'string', pattern: '(?i)^abc$' })('ABC')).to.equal(true);
    expect(sharedAjv().compile({ type: 'string', pattern: '^[a-z]+$' })('ab1')).to.equal(false);
  });

  it('run in time linear in the input, so a nested repetition cannot stall the event loop', () => {
    const check = sharedAjv().compile({ type: 'string', pattern: '^(a+)+$' });
    // A backtracking engine takes about 2^40 steps on this value; RE2 answers in microseconds.
    expect(check(`${'a'.repeat(40)}b`)).to.equal(false);
    expect(check('a'.repeat(40))).to.equal(true);
  });

  it('refuse what RE2 refuses, with Go’s message', () => {
    expect(re2PatternError('(?=a)')).to.match(/^error parsing regexp: invalid or unsupported Perl syntax/);
    expect(re2PatternError('+')).to.equal('error parsing regexp: missing argument to repetition operator: `+`');
    expect(re2PatternError('^[a-z]+$')).to.equal(undefined);
  });
});
