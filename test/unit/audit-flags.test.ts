// The audit flags as kube-apiserver 1.32 takes them: its defaults for each backend, and refusals that name the flag.
// As upstream, a value that does not parse is always refused, but a range is checked only for a backend that is on.
import { expect } from 'chai';
import { parseOptions } from '../../gateway/server/options.js';
import { optionsError } from '../helpers/options.js';

const LOG = '--audit-log-path=logs/a.log';
const WEBHOOK = '--audit-webhook-config-file=hook.yaml';
const audit = (...argv: string[]) => parseOptions(argv, '/srv').audit;

describe('audit flags', () => {
  it("takes upstream's defaults: the log unbatched and unthrottled, the webhook batched and throttled", () => {
    const opts = audit(LOG, '--audit-log-maxsize=2');
    expect(opts).to.deep.include({ logPath: '/srv/logs/a.log', logFormat: 'json' });
    expect(opts.logRotation.maxSizeBytes).to.equal(2 * 1024 * 1024);
    expect(opts.log).to.deep.equal({
      mode: 'blocking',
      batch: { bufferSize: 10000, maxSize: 1, maxWaitMs: 0 },
      version: 'audit.k8s.io/v1',
    });
    expect(opts.webhook).to.deep.equal({
      mode: 'batch',
      batch: { bufferSize: 10000, maxSize: 400, maxWaitMs: 30_000, throttle: { qps: 10, burst: 15 } },
      version: 'audit.k8s.io/v1',
    });
    expect(opts.webhookInitialBackoffMs).to.equal(10_000);
    expect(audit('--audit-log-path=-').logPath).to.equal('-');
  });

  it('reads the format, version, batch, throttle and truncation flags', () => {
    const opts = audit(
      LOG,
      '--audit-log-format=legacy',
      '--audit-log-mode=batch',
      '--audit-log-batch-max-size=50',
      '--audit-log-batch-max-wait=1500ms',
      '--audit-log-batch-throttle-enable',
      '--audit-log-batch-throttle-qps=2.5',
      '--audit-log-batch-throttle-burst=3',
      '--audit-log-truncate-enabled=true',
      '--audit-log-truncate-max-event-size=2048',
      '--audit-log-truncate-max-batch-size=4096',
      '--audit-log-version=audit.platform.io/v1',
      WEBHOOK,
      '--audit-webhook-batch-throttle-enable=false',
      '--audit-webhook-initial-backoff=250ms',
    );
    expect(opts.logFormat).to.equal('legacy');
    expect(opts.log).to.deep.equal({
      mode: 'batch',
      batch: { bufferSize: 10000, maxSize: 50, maxWaitMs: 1500, throttle: { qps: 2.5, burst: 3 } },
      truncate: { maxEventBytes: 2048, maxBatchBytes: 4096 },
      version: 'audit.platform.io/v1',
    });
    expect(opts.webhook.batch).to.deep.equal({ bufferSize: 10000, maxSize: 400, maxWaitMs: 30_000 });
    expect(opts.webhookInitialBackoffMs).to.equal(250);
  });

  it('refuses bad values of a backend that is on, naming the flag', () => {
    const refusals: [string[], RegExp][] = [
      [[LOG, '--audit-log-format=xml'], /"--audit-log-format" flag: allowed formats are "legacy,json"/],
      [
        [LOG, '--audit-log-mode=sometimes'],
        /"--audit-log-mode" flag: allowed modes are "batch,blocking,blocking-strict"/,
      ],
      [[LOG, '--audit-log-maxbackup=-1'], /"--audit-log-maxbackup" flag: must not be negative/],
      [
        [LOG, '--audit-log-version=audit.k8s.io/v1beta1'],
        /"--audit-log-version" flag: invalid group version, allowed versions are \["audit.k8s.io\/v1" "audit.platform.io\/v1"\]/,
      ],
      [[WEBHOOK, '--audit-webhook-version=v1'], /"--audit-webhook-version" flag: invalid group version/],
      [
        [WEBHOOK, '--audit-webhook-batch-max-size=0'],
        /"--audit-webhook-batch-max-size" flag: must be a positive number/,
      ],
      [
        [WEBHOOK, '--audit-webhook-batch-buffer-size=-5'],
        /"--audit-webhook-batch-buffer-size" flag: must be a positive number/,
      ],
      [
        [WEBHOOK, '--audit-webhook-batch-throttle-qps=0'],
        /"--audit-webhook-batch-throttle-qps" flag: must be a positive number/,
      ],
      [
        [WEBHOOK, '--audit-webhook-batch-throttle-burst=0'],
        /"--audit-webhook-batch-throttle-burst" flag: must be a positive number/,
      ],
      [
        [WEBHOOK, '--audit-webhook-truncate-max-event-size=0'],
        /"--audit-webhook-truncate-max-event-size" flag: must be a positive number/,
      ],
      [
        [LOG, '--audit-log-truncate-max-event-size=2048', '--audit-log-truncate-max-batch-size=1024'],
        /"--audit-log-truncate-max-batch-size" flag: must not be less than --audit-log-truncate-max-event-size \(2048\)/,
      ],
    ];
    for (const [argv, message] of refusals) expect(optionsError(argv).message, argv.join(' ')).to.match(message);
  });

  it('lets pass what upstream does not check: an unused backend, or batch settings outside batch mode', () => {
    expect(audit('--audit-webhook-batch-max-size=0', '--audit-log-format=xml').webhook.batch.maxSize).to.equal(0);
    expect(audit(LOG, '--audit-log-batch-max-size=0').log.mode).to.equal('blocking');
    // Throttle values only count with the throttle on.
    expect(
      audit(WEBHOOK, '--audit-webhook-batch-throttle-enable=false', '--audit-webhook-batch-throttle-qps=0'),
    ).to.have.nested.property('webhook.batch.maxSize', 400);
  });

  it('always refuses a value that does not parse', () => {
    expect(optionsError(['--audit-webhook-batch-throttle-qps=fast']).message).to.match(
      /"--audit-webhook-batch-throttle-qps" flag: strconv.ParseFloat/,
    );
    expect(optionsError(['--audit-log-batch-max-wait=soon']).message).to.match(/"--audit-log-batch-max-wait" flag/);
    expect(optionsError(['--audit-log-truncate-enabled=maybe']).message).to.match(/"--audit-log-truncate-enabled"/);
  });
});
