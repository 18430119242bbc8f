/**
 * The peers on an S3-compatible store (moto: the one tests/setup/moto.sh started, S3_ENDPOINT, or one
 * started here when the file runs on its own): Paimon Java 1.4.2 (paimon-s3) writes a table into an s3:// warehouse and
 * pypaimon reads the same rows and history from it. 2.0.0 has no paimon-s3 on Maven Central.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBucket, startS3Peer, type S3Peer } from '../unit/paimon/fs/s3-peer.js';
import { canonicalJson, java, parseJson, parseJsonLines, pypaimon, s3CatalogOptions, tempWarehouse, toComparable, type Row, type TableDump } from './peers.js';

let s3: S3Peer;
before(async () => {
  s3 = await startS3Peer();
});
after(async () => {
  await s3?.stop();
});

test('Paimon Java 1.4.2 writes an s3:// warehouse; pypaimon reads the same rows and history', async () => {
  const bucket = `interop-peers-${Date.now().toString(36)}`;
  await createBucket(s3, bucket);
  const options = s3CatalogOptions(s3);
  const j = java('1.4').withCatalogOptions(options);
  const py = pypaimon.withCatalogOptions(options);
  const wh = `s3://${bucket}/wh`;

  const dir = tempWarehouse('s3-steps');
  const schema = join(dir, 'schema.json');
  writeFileSync(
    schema,
    JSON.stringify({
      fields: [
        { name: 'dt', type: 'STRING NOT NULL' },
        { name: 'id', type: 'BIGINT NOT NULL' },
        { name: 'v', type: 'STRING' },
      ],
      primaryKeys: ['dt', 'id'],
      partitionKeys: ['dt'],
      options: { bucket: '2', 'write-only': 'true' },
    }),
  );
  const rows1 = join(dir, 'rows1.jsonl');
  const rows2 = join(dir, 'rows2.jsonl');
  writeFileSync(rows1, ['{"dt":"a","id":1,"v":"x"}', '{"dt":"a","id":9007199254740993,"v":"big"}', '{"dt":"b","id":2,"v":"y"}'].join('\n'));
  writeFileSync(rows2, ['{"dt":"a","id":1,"v":"x2"}', '{"dt":"b","id":2,"_rowKind":"-D","v":null}'].join('\n'));
  // One JVM for the whole history: JVM starts are the slow part.
  const results = await j.batch([
    ['create-table', wh, 'db', 't', schema],
    ['write', wh, 'db', 't', rows1],
    ['create-tag', wh, 'db', 't', 'first', '1'],
    ['write', wh, 'db', 't', rows2],
    ['create-consumer', wh, 'db', 't', 'c', '2'],
    ['read', wh, 'db', 't'],
    ['dump', wh, 'db', 't'],
  ]);
  for (const [i, r] of results.entries()) assert.ok(r.ok, `step ${i}: ${r.error ?? ''}`);
  assert.equal(results.length, 7);
  const javaRows = parseJsonLines((results[5] as { stdout: string }).stdout) as Row[];
  assert.deepEqual(
    javaRows.map((r) => canonicalJson(r)),
    ['{"dt":"a","id":1,"v":"x2"}', '{"dt":"a","id":9007199254740993,"v":"big"}'],
  );
  const dump = parseJson((results[6] as { stdout: string }).stdout) as unknown as TableDump;
  assert.equal(dump.location, `${wh}/db.db/t`);
  assert.equal(Number(dump.latestSnapshotId), 2);

  assert.deepEqual(toComparable(await py.read(wh, 'db', 't')), toComparable(javaRows));
  assert.deepEqual((await py.read(wh, 'db', 't', 'tag:first')).length, 3);
  const seen = await py.dumpSnapshots(wh, 'db', 't');
  assert.equal(Number(seen.latestSnapshotId), 2);
  assert.deepEqual(seen.tags.map((t) => [t.name, Number(t.snapshotId)]), [['first', 1]]);
  assert.deepEqual(toComparable(seen.consumers), { c: { nextSnapshot: 2 } });
  // And Java's own integrity check passes over S3.
  assert.equal((await j.check(wh, 'db', 't')).ok, true);
});
