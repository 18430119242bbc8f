/**
 * The P0 procedures on an hdfs:// warehouse: Paimon Java 1.4.2 writes a table history straight
 * to the single-node HDFS peer (tests/setup/hdfs.sh; Paimon's HadoopFileIO over the HDFS client in
 * its own class path), the warehouse is copied twice on HDFS, Paimon Java runs its own
 * procedure on one copy and our executor (catalog on the WebHDFS FileIO) runs ours on the other:
 * compact, expire_snapshots, remove_orphan_files and rollback_to. After each, the name node lists
 * the same files in both tables (compact: the same rows, as file names are new), Java's `check`
 * passes on ours and Java reads the same rows from both.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compact } from '../../procedures/compaction/compact.js';
import { removeOrphanFiles } from '../../procedures/files/remove-orphan-files.js';
import { expireSnapshots } from '../../procedures/snapshots/expire-snapshots.js';
import { rollbackTo } from '../../procedures/snapshots/rollback-to.js';
import { ProcedureExecutor } from '../../procedures/framework/executor.js';
import { ProcedureRegistry } from '../../procedures/framework/registry.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../src/catalogs.js';
import { configSchema } from '../../src/config-schema.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import { callNamed, firstRow, javaAvailable, javaBatch, writeSchema } from './procedures-support.js';
import { copyTree, hdfsFileIO, hdfsPeer, setModificationTime, treeFiles, type HdfsPeer } from './hdfs/hdfs-warehouse.js';

const V = '1.4.2';
const TABLE = 'interop.db/t';
const DAY_MS = 86_400_000;

// Paimon passes `hadoop.*` catalog options into its Hadoop configuration: one data node holds one
// replica, so the Java client asks for one instead of the default three.
process.env.PAIMON_CATALOG_OPTIONS = JSON.stringify({ 'hadoop.dfs.replication': '1' });

/** Our executor over one filesystem catalog `paimon` on an hdfs:// warehouse, through the WebHDFS FileIO. */
function hdfsExecutor(warehouse: string, io: FileIO): ProcedureExecutor {
  return new ProcedureExecutor({
    registry: new ProcedureRegistry([compact, expireSnapshots, removeOrphanFiles, rollbackTo]),
    catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', warehouse, io)]),
    limits: configSchema.parse({}).procedures,
  });
}

const sortedLines = (stdout: string): string[] => stdout.split('\n').filter((l) => l.trim() !== '').sort();

describe(`P0 procedures on hdfs:// vs Paimon ${V}`, () => {
  let peer: HdfsPeer;
  let io: FileIO;
  let base: string;
  const wh = (name: string): string => `${base}/${name}`;
  let plantedOld: string;
  let plantedYoung: string;
  const ourFailures = new Map<string, unknown>();
  const views = new Map<string, { java: string[]; ours: string[]; checkOk: boolean }>();

  before(async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built (tests/setup/paimon-java.sh)`);
    peer = hdfsPeer();
    io = hdfsFileIO(peer);
    base = `${peer.uri}/p0-${process.pid}-${Date.now().toString(36)}`;
    const origin = wh('origin');
    const schema = writeSchema(origin, {
      fields: [
        { name: 'id', type: 'INT NOT NULL' },
        { name: 'dt', type: 'DATE NOT NULL' },
        { name: 'v', type: 'STRING' },
      ],
      primaryKeys: ['dt', 'id'],
      partitionKeys: ['dt'],
      options: { bucket: '2', 'write-only': 'true' },
    });
    // 1-4 insert, tag2 on 2, 5-7 write the same keys again, 8 compacts, 9-10 insert more.
    await javaBatch(V, [
      ['create-table', origin, 'interop', 't', schema],
      ['write-loop', origin, 'interop', 't', '4', '0', '0'],
      ['create-tag', origin, 'interop', 't', 'tag2', '2'],
      ['write-loop', origin, 'interop', 't', '3', '0', '0'],
      ['compact', origin, 'interop', 't'],
      ['write-loop', origin, 'interop', 't', '2', '0', '100'],
    ]);
    const originFiles = await treeFiles(peer, `${origin}/${TABLE}`);
    assert.ok(originFiles.includes('snapshot/snapshot-10'), `Java wrote ten snapshots to HDFS: ${originFiles.filter((f) => f.startsWith('snapshot/')).join(', ')}`);

    await Promise.all(['compact', 'expire', 'orphan', 'rollback'].flatMap((name) => [copyTree(peer, io, origin, wh(`java-${name}`)), copyTree(peer, io, origin, wh(`ours-${name}`))]));
    // Orphans for remove_orphan_files, beside a data file: one two days old, one just written.
    const dataDir = originFiles.find((f) => /\/bucket-0\/data-.*\.parquet$/.test(f))!.replace(/\/[^/]+$/, '');
    plantedOld = `${dataDir}/data-planted-old.parquet`;
    plantedYoung = `${dataDir}/data-planted-young.parquet`;
    for (const side of ['java-orphan', 'ours-orphan']) {
      await io.writeFile(`${wh(side)}/${TABLE}/${plantedOld}`, 'not referenced by any snapshot');
      await setModificationTime(peer, `${wh(side)}/${TABLE}/${plantedOld}`, Date.now() - 2 * DAY_MS);
      await io.writeFile(`${wh(side)}/${TABLE}/${plantedYoung}`, 'written a moment ago');
    }

    // Paimon Java's own procedures on its copies, in one JVM.
    const now = Date.now();
    await javaBatch(V, [
      ['compact', wh('java-compact'), 'interop', 't'],
      ['expire', wh('java-expire'), 'interop', 't', '1', '3', String(now), '1000'],
      ['orphan-clean', wh('java-orphan'), 'interop', 't', String(now - DAY_MS), 'false'],
      ['rollback', wh('java-rollback'), 'interop', 't', '6'],
    ]);
    // Ours on the other copies; a failure is kept for its own test to report.
    const calls: Record<string, [string, Record<string, string | number>]> = {
      compact: ['compact', { table: 'interop.t', compact_strategy: 'full' }],
      expire: ['expire_snapshots', { table: 'interop.t', retain_min: 1, retain_max: 3, max_deletes: 1000, older_than: String(now) }],
      orphan: ['remove_orphan_files', { table: 'interop.t' }],
      rollback: ['rollback_to', { table: 'interop.t', snapshot_id: 6 }],
    };
    for (const [name, [procedure, args]] of Object.entries(calls)) {
      try {
        firstRow(await callNamed(hdfsExecutor(wh(`ours-${name}`), io), procedure, args));
      } catch (e) {
        ourFailures.set(name, e);
      }
    }
    // Java's rows of both copies and Java's check on ours, for every procedure in one JVM.
    const names = Object.keys(calls);
    const out = await javaBatch(
      V,
      names.flatMap((name) => [
        ['read', wh(`java-${name}`), 'interop', 't'],
        ['read', wh(`ours-${name}`), 'interop', 't'],
        ['check', wh(`ours-${name}`), 'interop', 't'],
      ]),
    );
    names.forEach((name, i) => {
      const last = out[3 * i + 2].trim().split('\n').pop() ?? '{}';
      views.set(name, { java: sortedLines(out[3 * i]), ours: sortedLines(out[3 * i + 1]), checkOk: (JSON.parse(last) as { ok?: boolean }).ok === true });
    });
  });

  /** Our call of `name` succeeded, and Java reads the same rows from both copies and checks ours. */
  function assertJavaReadsTheSame(name: string): void {
    if (ourFailures.has(name)) throw ourFailures.get(name);
    const view = views.get(name)!;
    assert.ok(view.java.length > 0, 'Java reads rows');
    assert.deepEqual(view.ours, view.java, 'Java reads the same rows after our procedure as after its own');
    assert.equal(view.checkOk, true, 'Java finds every file our snapshots reference');
  }

  async function assertSameFilesAsJava(name: string): Promise<void> {
    assert.deepEqual(await treeFiles(peer, `${wh(`ours-${name}`)}/${TABLE}`), await treeFiles(peer, `${wh(`java-${name}`)}/${TABLE}`), 'the name node lists the same files as after Paimon Java');
  }

  test('compact (full) on hdfs:// commits a COMPACT snapshot that Java reads as the same rows', async () => {
    assertJavaReadsTheSame('compact');
    const files = await treeFiles(peer, `${wh('ours-compact')}/${TABLE}`);
    assert.ok(files.includes('snapshot/snapshot-11'), 'our compaction committed snapshot 11');
    assert.equal((await io.readFile(`${wh('ours-compact')}/${TABLE}/snapshot/LATEST`)).toString(), '11');
    const snapshot = JSON.parse((await io.readFile(`${wh('ours-compact')}/${TABLE}/snapshot/snapshot-11`)).toString()) as { commitKind: string };
    assert.equal(snapshot.commitKind, 'COMPACT');
  });

  test('expire_snapshots on hdfs:// deletes exactly what Paimon Java deletes', async () => {
    assertJavaReadsTheSame('expire');
    const files = await treeFiles(peer, `${wh('ours-expire')}/${TABLE}`);
    assert.ok(!files.includes('snapshot/snapshot-1') && files.includes('snapshot/snapshot-10'), 'old snapshots expired');
    await assertSameFilesAsJava('expire');
  });

  test('remove_orphan_files on hdfs:// removes the old orphan, keeps the young one, like Paimon Java', async () => {
    assertJavaReadsTheSame('orphan');
    const files = await treeFiles(peer, `${wh('ours-orphan')}/${TABLE}`);
    assert.ok(!files.includes(plantedOld), 'the two-day-old orphan is gone');
    assert.ok(files.includes(plantedYoung), 'a file younger than older_than is kept');
    await assertSameFilesAsJava('orphan');
  });

  test('rollback_to on hdfs:// leaves the same snapshots, files and rows as Paimon Java', async () => {
    assertJavaReadsTheSame('rollback');
    const files = await treeFiles(peer, `${wh('ours-rollback')}/${TABLE}`);
    assert.ok(files.includes('snapshot/snapshot-6') && !files.includes('snapshot/snapshot-7'), 'snapshots after 6 removed');
    await assertSameFilesAsJava('rollback');
  });
});
