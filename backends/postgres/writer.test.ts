// The group commit's batching, seen from the writer itself (its commit callback gets each batch's rows), against a
// real server: a small batch waits while writes keep coming, a large one or a lone one goes at once.
import { expect } from 'chai';
import postgres from 'postgres';
import type { Db } from './queries.js';
import { clientOptions, createSessions, type Sessions } from './transaction.js';
import { createWriter, type Writer } from './writer.js';
import { freshDatabase, open } from './test-support.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('postgres writer: batches of the group commit', function () {
  this.timeout(30_000);
  let sql: Db;
  let sessions: Sessions;
  let writer: Writer;
  /** Rows committed per batch, in commit order. */
  let batches: number[];
  let written = 0;

  before(async () => {
    const url = await freshDatabase();
    // A storage instance creates the schema; the writer under test then works on its own.
    await (await open(url)).close();
    sql = postgres(url, { ...clientOptions('writer-test'), max: 2 });
    sessions = createSessions({ url });
    writer = createWriter({
      sql,
      sessions,
      now: Date.now,
      log: () => undefined,
      onCommit: (_revision, rows) => batches.push(rows.length),
    });
  });
  after(async () => {
    writer.close();
    await sessions.close();
    await sql.end({ timeout: 1 });
  });
  beforeEach(() => {
    batches = [];
  });

  const write = (): Promise<unknown> =>
    writer.write({ key: `/registry/configmaps/ns1/w-${++written}`, expect: 'absent', value: '{}' });

  it('a small batch takes in the writes of the next turns of the event loop while each turn adds some', async () => {
    const writes: Promise<unknown>[] = [];
    for (let t = 0; t < 3; t++) {
      if (t > 0) await turn();
      writes.push(write(), write());
    }
    await Promise.all(writes);
    expect(batches).to.deep.equal([6]);
  });

  it('a write that finds the writer idle and nothing following goes alone, without waiting for later writes', async () => {
    // Were it waiting for a later write, this would never resolve: the next one is only made once it did.
    await write();
    // The writer is idle again by the time the caller of the first write runs (the drain ends in the turn that
    // resolved the batch), so the second finds it idle too.
    await write();
    expect(batches).to.deep.equal([1, 1]);
  });

  it('a batch that is large enough goes at once: 16 writes in one turn and 2 in the next are two batches', async () => {
    const full = Array.from({ length: 16 }, () => write());
    await turn();
    const next = [write(), write()];
    await Promise.all([...full, ...next]);
    expect(batches).to.deep.equal([16, 2]);
  });
});
