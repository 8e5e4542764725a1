// The failures no client is told the details of reach the server's configured log, not the console: a 500 (the
// status filter) and a watch that breaks after its headers were sent. The gateway runs over a storage that fails
// on purpose.
import { expect } from 'chai';
import { createGateway } from '../../gateway/app.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import type { Storage, StorageEvent } from '../../backends/storage.js';
import { builtinKinds } from '../../api/register.js';
import { createHealthChecks } from '../../gateway/handlers/health.js';
import { parseFeatureGates } from '../../gateway/server/feature-gates.js';
import { createLogger } from '../../gateway/server/logger.js';
import type { Authenticator } from '../../gateway/authn/authenticator.js';
import type { Authorizer } from '../../policies/authorizer.js';
import { serveKoa, type TestServer } from '../helpers/koa-server.js';
import { TEST_VERSION } from '../helpers/version-info.js';

const admin: Authenticator = {
  name: 'admin',
  authenticate: async () => ({ user: { name: 'admin', groups: ['system:masters'] } }),
};
const allowAll: Authorizer = { name: 'allow', authorize: async () => ({ decision: 'Allow', reason: '' }) };

/** The memory storage, except that reading a ConfigMap and watching anything throw what no Status describes. */
function failingStorage(): Storage {
  const storage = createMemoryStorage();
  return Object.assign(Object.create(storage) as Storage, {
    get: async (key: string, ...rest: unknown[]) => {
      if (key.includes('/configmaps/')) throw new Error('disk on fire');
      return (storage.get as (...args: unknown[]) => unknown)(key, ...rest);
    },
    watch: (): AsyncIterable<StorageEvent> => ({
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          throw new Error('watch stream exploded');
        },
      }),
    }),
  });
}

describe('failures withheld from clients go to the configured log', () => {
  let server: TestServer;
  let entries: string[];
  const printed: unknown[][] = [];
  const consoleError = console.error;
  const shutdown = new AbortController();

  before(async () => {
    entries = [];
    const { app } = createGateway({
      storage: failingStorage(),
      kinds: builtinKinds,
      authenticator: admin,
      authorizer: allowAll,
      health: createHealthChecks(),
      features: parseFeatureGates([]),
      maxRequestBodyBytes: 3 << 20,
      shutdownSignal: shutdown.signal,
      logger: createLogger({ sink: (entry) => entries.push(entry) }),
      version: TEST_VERSION,
    });
    server = await serveKoa(app);
    console.error = (...args: unknown[]) => {
      printed.push(args);
    };
  });
  after(async () => {
    console.error = consoleError;
    shutdown.abort();
    await server?.close();
  });
  afterEach(() => {
    entries.length = 0;
  });

  it('logs a 500 as an error entry with its cause, and answers it without the cause', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/configmaps/cm');
    expect(res.status).to.equal(500);
    expect(res.text).to.not.contain('disk on fire');
    expect(entries).to.have.length(1);
    expect(entries[0]).to.match(
      /^E\d{4} [\d:.]+ +\d+\] "internal error: the request is answered 500 without details" err="disk on fire" stack=</,
    );
    expect(entries[0]).to.contain('verb="GET" URI="/api/v1/namespaces/default/configmaps/cm"');
    expect(printed, 'printed to the console').to.deep.equal([]);
  });

  it('logs a watch that broke after its headers as an error entry, and ends the stream with an ERROR event', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=1');
    expect(res.status).to.equal(200);
    const event = JSON.parse(res.text.trim().split('\n').at(-1)!);
    expect(event).to.deep.include({ type: 'ERROR' });
    expect(event.object).to.include({ kind: 'Status', code: 500 });
    expect(entries).to.have.length(1);
    expect(entries[0]).to.match(/^E\d{4} [\d:.]+ +\d+\] "watch failed" err="watch stream exploded"/);
    expect(printed, 'printed to the console').to.deep.equal([]);
  });
});
