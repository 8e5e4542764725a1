// The logger: klog verbosity onto pino levels, klog's text shape, the JSON keys, redaction, and one logger per
// server (two in one process keep their own level and destination).
import { expect } from 'chai';
import {
  createLogger,
  lineLog,
  pinoLevelForVerbosity,
  verbosityOfLevel,
  type LoggerOptions,
} from '../../gateway/server/logger.js';
import { formatKlogText, klogHeader } from '../../gateway/server/klog-text.js';
import { parseOptions } from '../../gateway/server/options.js';
import { parseEntry } from '../helpers/klog.js';

function capture(opts: Omit<LoggerOptions, 'sink'> = {}) {
  const entries: string[] = [];
  return { logger: createLogger({ ...opts, sink: (entry) => entries.push(entry) }), entries };
}

describe('logger', () => {
  describe('verbosity', () => {
    it('maps klog levels onto pino levels: 0-1 info, 2-4 debug, 5 and above trace', () => {
      expect([0, 1, 2, 3, 4, 5, 6, 10].map(pinoLevelForVerbosity)).to.deep.equal([
        'info',
        'info',
        'debug',
        'debug',
        'debug',
        'trace',
        'trace',
        'trace',
      ]);
      expect(['trace', 'debug', 'info', 'warn', 'error'].map(verbosityOfLevel)).to.deep.equal([
        5,
        2,
        0,
        undefined,
        undefined,
      ]);
    });

    it('writes errors and warnings at -v 0, and debug and trace entries only from -v 2 and -v 5', () => {
      for (const [verbosity, expected] of [
        [0, ['E', 'W', 'info']],
        [2, ['E', 'W', 'info', 'debug']],
        [5, ['E', 'W', 'info', 'debug', 'trace']],
      ] as const) {
        const { logger, entries } = capture({ verbosity });
        logger.error('E');
        logger.warn('W');
        logger.info('info');
        logger.debug('debug');
        logger.trace('trace');
        expect(
          entries.map((e) => parseEntry(e)?.message),
          `-v ${verbosity}`,
        ).to.deep.equal(expected);
      }
    });

    it('takes -v N, -vN, -v=N and --v N, defaulting to 0 and text', () => {
      expect(parseOptions([], '/tmp')).to.include({ verbosity: 0, loggingFormat: 'text' });
      for (const argv of [['-v', '4'], ['-v4'], ['-v=4'], ['--v', '4'], ['--v=4']]) {
        expect(parseOptions(argv, '/tmp').verbosity, argv.join(' ')).to.equal(4);
      }
      expect(parseOptions(['--logging-format=json'], '/tmp').loggingFormat).to.equal('json');
      expect(() => parseOptions(['--logging-format=yaml'], '/tmp')).to.throw(
        'invalid argument "yaml" for "--logging-format" flag',
      );
      expect(() => parseOptions(['-v', '-1'], '/tmp')).to.throw('"--v" flag');
    });
  });

  describe('text format', () => {
    it("writes klog's header: severity, month and day, local time to the microsecond, padded pid", () => {
      const at = new Date(2026, 10, 27, 1, 2, 3, 456);
      const seconds = at.getTime() / 1000 + 0.000789;
      expect(klogHeader('I', seconds, 12345)).to.equal('I1127 01:02:03.456789   12345] ');
    });

    it('quotes the message and string values, leaves numbers bare, and shows an error by its message', () => {
      const ts = new Date(2026, 0, 2, 3, 4, 5).getTime() / 1000;
      expect(
        formatKlogText(
          { level: 'info', v: 0, ts, msg: 'HTTP', verb: 'GET', URI: '/api?x="y"', resp: 200, ok: true },
          7,
        ),
      ).to.equal('I0102 03:04:05.000000       7] "HTTP" verb="GET" URI="/api?x=\\"y\\"" resp=200 ok=true');
      expect(formatKlogText({ level: 'warn', ts, msg: 'careful' }, 7)).to.equal(
        'W0102 03:04:05.000000       7] "careful"',
      );
      expect(
        formatKlogText(
          { level: 'error', ts, msg: 'Unable to authenticate the request', err: 'invalid bearer token' },
          7,
        ),
      ).to.equal('E0102 03:04:05.000000       7] "Unable to authenticate the request" err="invalid bearer token"');
    });

    it("puts a stack trace on klog's multi-line form, so the entry's first line stays one line", () => {
      const ts = new Date(2026, 0, 2, 3, 4, 5).getTime() / 1000;
      const text = formatKlogText(
        {
          level: 'error',
          ts,
          msg: 'internal error',
          err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (x.ts:1:2)' },
        },
        7,
      );
      expect(text).to.equal(
        'E0102 03:04:05.000000       7] "internal error" err="boom" stack=<\n\tError: boom\n\t    at f (x.ts:1:2)\n >',
      );
    });

    it('formats what the logger writes', () => {
      const { logger, entries } = capture();
      logger.error({ err: new Error('boom'), verb: 'POST' }, 'internal error');
      expect(entries).to.have.length(1);
      expect(entries[0]).to.match(
        /^E\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+\] "internal error" err="boom" stack=<\n\tError: boom\n/,
      );
      expect(entries[0]).to.contain(' verb="POST"');
    });
  });

  describe('json format', () => {
    it("writes one object per entry with klog's keys: ts in seconds, v for info lines, msg", () => {
      const { logger, entries } = capture({ format: 'json', verbosity: 2 });
      const before = Date.now() / 1000;
      logger.info({ resp: 200 }, 'HTTP');
      logger.debug('detail');
      logger.warn('careful');
      const [info, debug, warn] = entries.map((e) => JSON.parse(e));
      expect(info).to.include({ level: 'info', v: 0, msg: 'HTTP', resp: 200 });
      expect(info.ts).to.be.within(before - 1, Date.now() / 1000 + 1);
      expect(debug).to.include({ level: 'debug', v: 2, msg: 'detail' });
      expect(warn).to.include({ level: 'warn', msg: 'careful' }).and.not.have.property('v');
      expect(entries.every((e) => !e.includes('\n'))).to.equal(true);
    });
  });

  it('redacts credential-bearing keys, at the top and one level down, in both formats', () => {
    for (const format of ['text', 'json'] as const) {
      const { logger, entries } = capture({ format });
      logger.info(
        {
          headers: {
            authorization: 'Bearer s3cr3t-1',
            cookie: 'session=s3cr3t-2',
            'proxy-authorization': 'Basic s3cr3t-3',
            accept: 'application/json',
          },
          token: 's3cr3t-4',
          password: 's3cr3t-5',
          key: 's3cr3t-6',
        },
        'request',
      );
      expect(entries).to.have.length(1);
      expect(entries[0], format).to.not.match(/s3cr3t/);
      expect(entries[0], format).to.contain('application/json').and.contain('[REDACTED]');
    }
  });

  it("turns a module's `error: ` and `warning: ` lines into errors and warnings, and the rest into info", () => {
    const { logger, entries } = capture();
    const log = lineLog(logger);
    log('error: postgres storage: write batch failed: gone');
    log('warning: no private key');
    log('reloaded the configuration');
    expect(entries.map(parseEntry)).to.deep.equal([
      { severity: 'E', message: 'postgres storage: write batch failed: gone' },
      { severity: 'W', message: 'no private key' },
      { severity: 'I', message: 'reloaded the configuration' },
    ]);
  });

  it('keeps each logger to its own level and destination', () => {
    const quiet = capture({ verbosity: 0 });
    const chatty = capture({ verbosity: 4, format: 'json' });
    quiet.logger.debug('quiet debug');
    chatty.logger.debug('chatty debug');
    quiet.logger.info('quiet info');
    expect(quiet.entries.map((e) => parseEntry(e)?.message)).to.deep.equal(['quiet info']);
    expect(chatty.entries.map((e) => JSON.parse(e).msg)).to.deep.equal(['chatty debug']);
  });
});
