// One line per request at debug (-v 2 and above), in kube-apiserver's httplog shape ("HTTP" verb URI latency
// userAgent srcIP resp), written when the response ends so that a watch is logged with its whole duration. At
// trace (-v 5 and above) the request headers are added: the logger redacts authorization and cookies. Bodies are
// never logged: a Secret's data or a TokenReview's token travel in them.
import type { Context, Next } from 'koa';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../server/logger.js';

function milliseconds(ms: number): string {
  return `${ms.toFixed(3)}ms`;
}

export function createHttpLogFilter(logger: Logger) {
  const withHeaders = logger.isLevelEnabled('trace');
  return async function httpLog(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const { req, res } = ctx;
    // Read now: once an HTTP/2 stream has closed, its request no longer reaches the socket.
    const srcIP = `${req.socket?.remoteAddress}:${req.socket?.remotePort}`;
    // As the client sent them: authentication removes the credential headers it consumed.
    const headers = withHeaders ? { ...req.headers } : undefined;
    res.once('close', () => {
      logger.debug(
        {
          verb: req.method,
          URI: req.url,
          latency: milliseconds(performance.now() - started),
          userAgent: req.headers['user-agent'] ?? '',
          srcIP,
          // 0: the client went away before any answer was sent (the status set meanwhile never left).
          resp: res.headersSent ? res.statusCode : 0,
          headers,
        },
        'HTTP',
      );
    });
    await next();
  };
}
