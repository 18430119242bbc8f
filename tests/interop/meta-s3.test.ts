/**
 * Our S3 FileIO against Paimon Java 1.4.2 (paimon-s3) on the same S3-compatible store (moto):
 * Java writes a table into an s3:// warehouse; our catalog lists it and reads its snapshots,
 * schema, tag, consumer and hints equal to Java's dump; then we create a tag, a branch and a
 * consumer through S3 and Java sees them and reads the right rows.
 * (2.0.0 has no paimon-s3 on Maven Central, so only 1.4.2 runs here.)
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileSystemCatalog } from '../../src/paimon/catalog/filesystem-catalog.js';
import { snapshotToJson } from '../../src/paimon/spec/snapshot.js';
import { tableSchemaToJson } from '../../src/paimon/spec/table-schema.js';
import { createBucket, startS3Peer, type S3Peer } from '../unit/paimon/fs/s3-peer.js';
import { canonicalSort, java, parseJson, parseJsonLines, s3CatalogOptions, tempWarehouse, toComparable, type Row, type TableDump } from './peers.js';

let peer: S3Peer;
before(async () => {
  peer = await startS3Peer();
});
after(async () => {
  await peer?.stop();
});

test('Java 1.4.2 table on S3: our catalog reads it like Java; Java reads the tag, branch and consumer we write', async () => {
  const bucket = `meta-s3-${Date.now().toString(36)}`;
  await createBucket(peer, bucket);
  const options = s3CatalogOptions(peer);
  const j = java('1.4').withCatalogOptions(options);
  const wh = `s3://${bucket}/wh`;
  const dir = tempWarehouse('meta-s3');
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
  const rows = (n: number) => {
    const f = join(dir, `rows${n}.jsonl`);
    writeFileSync(f, [`{"dt":"a","id":${n},"v":"v${n}"}`, `{"dt":"b","id":9007199254740993,"v":"big${n}"}`].join('\n'));
    return f;
  };
  const steps = [
    ['create-table', wh, 'db', 't', schema],
    ['write', wh, 'db', 't', rows(1)],
    ['write', wh, 'db', 't', rows(2)],
    ['create-tag', wh, 'db', 't', 'java_t1', '1'],
    ['write', wh, 'db', 't', rows(3)],
    ['create-consumer', wh, 'db', 't', 'jc', '2'],
    ['dump', wh, 'db', 't'],
  ];
  const res = await j.batch(steps);
  for (const [i, r] of res.entries()) assert.ok(r.ok, `step ${steps[i][0]}: ${r.error ?? ''}`);
  const dump = parseJson(res[6].stdout) as unknown as TableDump;

  const catalog = FileSystemCatalog.open(wh, options);
  try {
    assert.deepEqual(await catalog.listDatabases(), ['db']);
    assert.deepEqual(await catalog.listTables('db'), ['t']);
    const table = await catalog.getTable('db.t');
    assert.equal(table.path, dump.location);
    const sm = table.snapshotManager();
    assert.equal(await sm.latestSnapshotId(), Number(dump.latestSnapshotId));
    assert.equal(String(await sm.readLatestHint()), dump.hints.LATEST);
    const ours: unknown[] = [];
    for await (const s of sm.snapshots()) ours.push(toComparable(parseJson(snapshotToJson(s))));
    assert.deepEqual(ours, toComparable(dump.snapshots));
    assert.deepEqual(
      (await table.schemaManager().listAll()).map((s) => toComparable(parseJson(tableSchemaToJson(s)))),
      toComparable(dump.schemas),
    );
    assert.deepEqual((await table.tagManager().listTags()).map((t) => [t.name, t.tag.id]), [['java_t1', 1]]);
    assert.deepEqual([...(await table.consumerManager().consumers())], [['jc', 2]]);

    // Our writes over S3.
    await table.tagManager().createTag(await sm.snapshot(2), 'our_t2', { timeRetainedMs: 86_400_000 });
    await table.branchManager().createBranchFromTag('our_b', 'our_t2');
    await table.consumerManager().resetConsumer('our_c', { nextSnapshot: 3 });
  } finally {
    await catalog.close();
  }

  const after = await j.batch([
    ['dump', wh, 'db', 't'],
    ['read', wh, 'db', 't', '2'],
    ['read', wh, 'db', 't', 'tag:our_t2'],
    ['read', wh, 'db', 't', 'branch:our_b'],
  ]);
  for (const [i, r] of after.entries()) assert.ok(r.ok, `step ${i}: ${r.error ?? ''}`);
  const d2 = parseJson(after[0].stdout) as unknown as TableDump;
  assert.deepEqual(d2.tags.map((t) => [t.name, Number(t.snapshotId), t.tagTimeRetainedMillis === null ? null : Number(t.tagTimeRetainedMillis)]).sort(), [
    ['java_t1', 1, null],
    ['our_t2', 2, 86_400_000],
  ]);
  assert.deepEqual([...d2.branches], ['our_b']);
  assert.deepEqual(toComparable(d2.consumers), { jc: { nextSnapshot: 2 }, our_c: { nextSnapshot: 3 } });
  const at2 = canonicalSort(parseJsonLines(after[1].stdout) as Row[]);
  assert.equal(at2.length, 3);
  assert.deepEqual(canonicalSort(parseJsonLines(after[2].stdout) as Row[]), at2);
  assert.deepEqual(canonicalSort(parseJsonLines(after[3].stdout) as Row[]), at2);
});
