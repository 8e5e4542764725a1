// Sessions and pooled reads against a real server: the driver defect they work around (rows of a failed statement
// counted into the next one on the same connection) must not reach a caller, whichever way the failed statement
// ended.
import { expect } from 'chai';
import postgres from 'postgres';
import { startPostgres, type TestPostgres } from '../../test/helpers/postgres.js';
import { StaleRowCountError } from './errors.js';
import { readBounds, type Db } from './queries.js';
import { migrate } from './schema.js';
import { clientOptions, createSessions, readRetryingLostConnection, type Sessions } from './transaction.js';

// Three rows go out before the fourth divides by zero, so the error arrives in the middle of the result.
const FAILS_AFTER_THREE_ROWS = 'SELECT i, 1 / (4 - i) AS boom FROM generate_series(1, 10) AS i';
const STALLS_AFTER_THREE_ROWS =
  'SELECT i, CASE WHEN i = 4 THEN pg_sleep(60) END AS stall FROM generate_series(1, 10) AS i';
const MARK = 'gatehouse-stalled-statement';

describe('postgres sessions', function () {
  this.timeout(30_000);
  let pg: TestPostgres;
  let sessions: Sessions;

  before(async function () {
    this.timeout(60_000);
    pg = await startPostgres({ fast: true });
  });
  after(async () => {
    await pg?.stop();
  });
  beforeEach(() => {
    sessions = createSessions({ url: pg.url });
  });
  afterEach(async () => {
    await sessions.close();
  });

  it('gives the statement after one that failed mid-result its own rows only', async () => {
    let failure: unknown;
    await sessions.statement((db) => db.unsafe(FAILS_AFTER_THREE_ROWS)).catch((e: unknown) => (failure = e));
    expect((failure as { code?: string } | undefined)?.code).to.equal('22012');
    const rows = await sessions.statement((db) => db`SELECT 1 AS one`);
    expect(rows.length).to.equal(1);
    expect(rows[0]).to.deep.equal({ one: 1 });
  });

  it('does the same after the connection was lost mid-result, as when the database restarts', async () => {
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      // Three rows, then a sleep at the fourth: the server sends what it has when its backend is terminated.
      const stalled = sessions
        .statement((db) => db.unsafe(`${STALLS_AFTER_THREE_ROWS} /* ${MARK} */`))
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // Polled: where another backend of the database server stands shows in pg_stat_activity only, and PostgreSQL has
      // nothing to wait on for it.
      for (let tries = 0; ; tries++) {
        const [{ n }] = await admin<
          { n: number }[]
        >`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
          WHERE query LIKE ${`%/* ${MARK} */%`} AND pid <> pg_backend_pid() AND wait_event = 'PgSleep'`;
        if (n === 1) break;
        if (tries > 100) expect.fail('the stalled statement never reached its sleep');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await stalled).to.be.instanceOf(Error);
      const rows = await sessions.statement((db) => db`SELECT 1 AS one`);
      expect(rows.length).to.equal(1);
    } finally {
      await admin.end({ timeout: 1 });
    }
  });

  it("repeats a pooled read whose rows the driver numbered from a failed statement's count", async () => {
    await migrate(sessions, () => undefined);
    const pool = postgres(pg.url, { ...clientOptions('transaction-test'), max: 1 }) as unknown as Db;
    try {
      const poison = (): Promise<unknown> => pool.unsafe(FAILS_AFTER_THREE_ROWS).catch((e: unknown) => e);
      await poison();
      let caught: unknown;
      await readBounds(pool).catch((e: unknown) => (caught = e));
      expect(caught).to.be.instanceOf(StaleRowCountError);
      await poison();
      expect((await readRetryingLostConnection(() => readBounds(pool))).current).to.equal(1n);
    } finally {
      await pool.end({ timeout: 1 });
    }
  });

  it('still reuses a session whose work succeeded', async () => {
    const pid = async (): Promise<number> =>
      (await sessions.statement((db) => db<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`))[0].pid;
    expect(await pid()).to.equal(await pid());
  });
});
