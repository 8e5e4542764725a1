// Child process for the kill -9 test in embedded-storage.test.ts: opens the embedded store in the given dir and
// updates a few keys from concurrent writers until it is killed, printing each acknowledged write as
// "ack <key> <seq> <revision>". Every object carries a payload and its digest, so the test can tell a whole object
// from a torn one.
import { createHash } from 'node:crypto';
import { createEmbeddedStorage } from './embedded-storage.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: kill-test-writer.ts <data-dir>');
const storage = await createEmbeddedStorage({ dataDir, rewriteMinBytes: 256 << 10, log: () => undefined });

async function writer(id: number): Promise<void> {
  const key = `/registry/configmaps/crash/w${id}`;
  for (let seq = 1; ; seq++) {
    // Large, varying objects make it likely that the kill lands in the middle of a write.
    const payload = String(seq % 10).repeat(8_192 + ((seq * 977) % 8_192));
    const digest = createHash('sha256').update(payload).digest('hex');
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `w${id}`, namespace: 'crash' },
      data: { seq: String(seq), payload, digest },
    };
    const stored = await storage.guaranteedUpdate(key, () => object, { createFrom: () => object });
    process.stdout.write(`ack ${key} ${seq} ${stored.metadata.resourceVersion}\n`);
  }
}

await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(writer));
