/**
 * Tables as Paimon 1.4.2 and 2.0.0 users build them with Parquet metadata files
 * (`manifest.format` = parquet, every `manifest.compression`): our procedures read Java's
 * Parquet manifests and manifest lists, write theirs in the table's format and codec, and
 * Java reads the result. Against Java's own procedure on a copy (expire_snapshots,
 * remove_orphan_files, rollback_to, rollback_to_as_latest on 2.0), the same files remain; after
 * our compact Java reads the same rows, its `check` passes and it keeps writing and compacting.
 * Snapshots we write carry 2.0's keys (`uuid`). A manifest list that cannot be decoded, and a
 * table whose manifests are ORC or Parquet in Hadoop LZ4, stop every procedure before it changes
 * anything. compact compacts row-tracking, data-evolution and bucket -2 tables (compared with
 * Java and Flink in compact-row-tracking and compact-postpone) and refuses VARIANT tables unless
 * the proxy allows it (compact-variant).
 *
 * One shared Java-written history per version, built in one JVM; Java's checks batched per test.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { compact } from '../../procedures/compaction/compact.js';
import { expireSnapshots } from '../../procedures/snapshots/expire-snapshots.js';
import { rollbackTo } from '../../procedures/snapshots/rollback-to.js';
import { rollbackToAsLatest } from '../../procedures/snapshots/rollback-to-as-latest.js';
import { removeOrphanFiles } from '../../procedures/files/remove-orphan-files.js';
import { tagProcedures } from '../../procedures/tags/index.js';
import { branchProcedures } from '../../procedures/branches/index.js';
import { parseJson, type JsonObject, type JsonValue } from '../../src/paimon/spec/json.js';
import { canonicalSort, java, pypaimon21, sharedDirectory, type Row } from './peers.js';
import {
  PAIMON_VERSIONS,
  ageTree,
  callNamed,
  executorFor,
  firstRow,
  javaAndOurCopies,
  javaBatch,
  listTree,
  ourCopy,
  plant,
  type PaimonVersion,
} from './procedures-support.js';

const DB = 'interop';
const PROCEDURES = [compact, expireSnapshots, rollbackTo, rollbackToAsLatest, removeOrphanFiles];
const LIFECYCLE = [expireSnapshots, ...tagProcedures, ...branchProcedures];
/** manifest.compression of the codec tables (Parquet codec names Paimon passes to parquet-mr). */
const CODECS = ['snappy', 'gzip', 'none'] as const;

function schemaFile(dir: string, name: string, options: Record<string, string>, primaryKeys = ['dt', 'id'], extra: { name: string; type: string }[] = []): string {
  const p = join(dir, `${name}.schema.json`);
  writeFileSync(
    p,
    JSON.stringify({
      fields: [
        { name: 'id', type: 'INT NOT NULL' },
        { name: 'dt', type: 'DATE NOT NULL' },
        { name: 'v', type: 'STRING' },
        ...extra,
      ],
      primaryKeys,
      partitionKeys: ['dt'],
      options: { bucket: '2', 'write-only': 'true', ...options },
    }),
  );
  return p;
}

/**
 * interop.t: Parquet manifests (zstd), snapshots 1-5 insert, tag3 on 3, 6-10 the same keys again,
 * a compaction, 3 more inserts, a compaction (14 snapshots). interop.c_<codec>: four inserts each.
 * interop.orc (ORC manifests) and interop.lz4 (Parquet manifests in Hadoop LZ4): two inserts each.
 * interop.adv: an append table with deletion vectors (4 inserts, then DvTool's delete).
 * interop.rt / de / pp: row tracking, data evolution, bucket -2 (3 inserts, tag2 on 2, 2 inserts);
 * interop.var: a VARIANT column (empty).
 */
async function history(v: PaimonVersion): Promise<string> {
  const dir = await sharedDirectory(`paimon20-${v}`, async (staging) => {
    const wh = join(staging, 'wh');
    const steps: string[][] = [
      ['create-table', wh, DB, 't', schemaFile(staging, 't', { 'manifest.format': 'parquet' })],
      ['write-loop', wh, DB, 't', '5', '0', '0'],
      ['create-tag', wh, DB, 't', 'tag3', '3'],
      ['write-loop', wh, DB, 't', '5', '0', '0'],
      ['compact', wh, DB, 't'],
      ['write-loop', wh, DB, 't', '3', '0', '100'],
      ['compact', wh, DB, 't'],
      ['create-table', wh, DB, 'orc', schemaFile(staging, 'orc', { 'manifest.format': 'orc' })],
      ['write-loop', wh, DB, 'orc', '2', '0', '0'],
      // parquet-mr's LZ4 is Hadoop's framed LZ4, which DuckDB does not read
      ['create-table', wh, DB, 'lz4', schemaFile(staging, 'lz4', { 'manifest.format': 'parquet', 'manifest.compression': 'lz4' })],
      ['write-loop', wh, DB, 'lz4', '2', '0', '0'],
    ];
    for (const c of CODECS) {
      steps.push(
        ['create-table', wh, DB, `c_${c}`, schemaFile(staging, `c_${c}`, { 'manifest.format': 'parquet', 'manifest.compression': c })],
        ['write-loop', wh, DB, `c_${c}`, '2', '0', '0'],
        ['write-loop', wh, DB, `c_${c}`, '2', '0', '0'],
      );
    }
    steps.push(
      ['create-table', wh, DB, 'adv', schemaFile(staging, 'adv', { 'manifest.format': 'parquet', 'bucket-key': 'id', 'deletion-vectors.enabled': 'true' }, [])],
      ['write-loop', wh, DB, 'adv', '4', '0', '0'],
    );
    // Paimon 2.0 table kinds; every procedure runs on them (five commits and a tag each).
    steps.push(
      ['create-table', wh, DB, 'rt', schemaFile(staging, 'rt', { bucket: '-1', 'row-tracking.enabled': 'true' }, [])],
      ['create-table', wh, DB, 'de', schemaFile(staging, 'de', { bucket: '-1', 'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true' }, [])],
      ['create-table', wh, DB, 'pp', schemaFile(staging, 'pp', { bucket: '-2' })],
      ['create-table', wh, DB, 'var', schemaFile(staging, 'var', { bucket: '-1' }, [], [{ name: 'j', type: 'VARIANT' }])],
    );
    for (const t of KINDS) steps.push(['write-loop', wh, DB, t, '3', '0', '0'], ['create-tag', wh, DB, t, 'tag2', '2'], ['write-loop', wh, DB, t, '2', '0', '50']);
    await javaBatch(v, steps);
    // Deletes as Spark's DELETE does: deletion vectors, so a Parquet index manifest.
    await java(v === '1.4.2' ? '1.4' : '2.0').runMain('DvTool', ['delete', wh, DB, 'adv', 'id', '1,2'], { timeoutMs: 300_000 });
  });
  return join(dir, 'wh');
}

function tableDir(wh: string, t: string): string {
  return join(wh, `${DB}.db`, t);
}

function latestId(wh: string, t: string): number {
  return Number(readFileSync(join(tableDir(wh, t), 'snapshot/LATEST'), 'utf8'));
}

function snapshotJson(wh: string, t: string, id: number): JsonObject {
  return parseJson(readFileSync(join(tableDir(wh, t), `snapshot/snapshot-${id}`), 'utf8'), 'snapshot') as JsonObject;
}

/** Every file below the table with its SHA-256: what "nothing changed" compares. */
function checksums(dir: string): string[] {
  return listTree(dir).map((f) => `${f} ${createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')}`);
}

/** Key -> JSON kind of a snapshot (value kinds, not values: ids, names and times differ). */
function keyKinds(s: JsonObject): Record<string, string> {
  const kind = (x: JsonValue): string => (x === null ? 'null' : Array.isArray(x) ? 'array' : typeof x === 'bigint' ? 'number' : typeof x);
  return Object.fromEntries(Object.entries(s).map(([k, x]) => [k, kind(x ?? null)]));
}

/** The two PaimonTool steps that check a table (every snapshot and tag readable) and read its rows. */
function view(wh: string, t: string): string[][] {
  return [['check', wh, DB, t], ['read', wh, DB, t]];
}

/**
 * Runs the steps in one JVM; every `check` among them must pass, and the rows of every `read`
 * come back in order (sorted lines).
 */
async function javaRun(v: PaimonVersion, steps: string[][]): Promise<string[][]> {
  const out = await javaBatch(v, steps);
  const rows: string[][] = [];
  steps.forEach((s, i) => {
    if (s[0] === 'check') {
      const check = parseJson(out[i].trim().split('\n').pop() ?? 'null', 'check') as { ok: boolean };
      assert.equal(check.ok, true, `Paimon Java ${v} check of ${s[3]} in ${s[1]}`);
    } else if (s[0] === 'read') {
      rows.push(out[i].split('\n').filter((l) => l.trim().startsWith('{')).sort());
    }
  });
  return rows;
}

/** Format and codec of a metadata file: Avro by magic, else DuckDB's view of the Parquet footer. */
async function metadataCodec(path: string): Promise<string> {
  const head = readFileSync(path).subarray(0, 4).toString('latin1');
  if (head !== 'PAR1') return `not parquet (${JSON.stringify(head)})`;
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const r = await c.runAndReadAll(`SELECT DISTINCT compression FROM parquet_metadata('${path.replace(/'/g, "''")}')`);
    return `parquet ${r.getRows().map((x) => String(x[0])).sort().join(',')}`;
  } finally {
    c.closeSync();
  }
}

/** Paimon 2.0 table kinds (row tracking, data evolution, postpone bucket) every procedure maintains. */
const KINDS = ['rt', 'de', 'pp'] as const;

const PARQUET_CODEC: Record<string, string> = { zstd: 'ZSTD', snappy: 'SNAPPY', gzip: 'GZIP', none: 'UNCOMPRESSED' };

for (const v of PAIMON_VERSIONS) {
  describe(`tables with Parquet manifests written by Paimon ${v}`, () => {
    let origin: string;
    before(async () => {
      origin = await history(v);
    });

    test('compact reads Java\'s Parquet manifests in every codec, writes its own in the table\'s codec; Java reads the same rows and keeps writing', async () => {
      const wh = ourCopy(origin, `p20-compact-${v}`);
      const tables = ['t', 'adv', ...CODECS.map((c) => `c_${c}`)];
      // interop.t ends with Java's full compaction: two more commits give ours something to do.
      const javaCompact = snapshotJson(wh, 't', latestId(wh, 't'));
      assert.equal(javaCompact.commitKind, 'COMPACT');
      const before = await javaRun(v, [['write-loop', wh, DB, 't', '2', '0', '400'], ...tables.flatMap((t) => view(wh, t))]);
      const latestBefore = new Map(tables.map((t) => [t, latestId(wh, t)]));
      const ex = executorFor(wh, PROCEDURES);
      for (const t of tables) {
        const o = await callNamed(ex, 'compact', { table: `${DB}.${t}` });
        assert.ok(o.ok, `compact ${t}: ${o.ok ? '' : `${o.error.code} ${o.error.message}`}`);
        const id = latestId(wh, t);
        assert.equal(id, latestBefore.get(t)! + 1, `compact ${t} committed one snapshot`);
        const s = snapshotJson(wh, t, id);
        assert.equal(s.commitKind, 'COMPACT');
        if (t === 't' && v === '2.0.0') assert.deepEqual(keyKinds(s), keyKinds(javaCompact), "the keys and value kinds of Java 2.0.0's compact snapshot");
        const codec = PARQUET_CODEC[t.startsWith('c_') ? t.slice(2) : 'zstd'];
        if (t === 'adv') {
          assert.notEqual(s.indexManifest, snapshotJson(wh, t, id - 1).indexManifest, 'compacting away deleted rows writes a new index manifest');
          assert.equal(await metadataCodec(join(tableDir(wh, t), 'manifest', String(s.indexManifest))), `parquet ${codec}`);
        }
        for (const list of [s.baseManifestList, s.deltaManifestList]) {
          assert.equal(await metadataCodec(join(tableDir(wh, t), 'manifest', String(list))), `parquet ${codec}`, `${t}: ${String(list)}`);
        }
      }
      // Java reads the same rows, then keeps going on top of our snapshots: two more commits and its own compaction.
      const after = await javaRun(v, [
        ...tables.flatMap((t) => view(wh, t)),
        ['write-loop', wh, DB, 't', '2', '0', '200'],
        ['compact', wh, DB, 't'],
        ...view(wh, 't'),
      ]);
      tables.forEach((t, i) => assert.deepEqual(after[i], before[i], `Java reads the same rows of ${t} after our compact`));
      assert.equal(after[tables.length].length, before[0].length + 2);
    });

    test('expire_snapshots deletes the same files as Paimon Java', async () => {
      const { a, b } = await javaAndOurCopies(origin, `p20-expire-${v}`);
      const olderThan = String(Date.now());
      const javaSteps = [['expire', a, DB, 't', '3', '2147483647', olderThan, '2147483647']];
      const row = firstRow(await callNamed(executorFor(b, PROCEDURES), 'expire_snapshots', { table: `${DB}.t`, retain_min: 3, older_than: olderThan }));
      const [javaRows, ourRows] = await javaRun(v, [...javaSteps, ...view(a, 't'), ...view(b, 't')]);
      assert.ok(Number(row.deleted_snapshots_count) > 5, `expired ${String(row.deleted_snapshots_count)}`);
      assert.deepEqual(listTree(tableDir(b, 't')), listTree(tableDir(a, 't')), 'same files on disk as Paimon Java');
      assert.deepEqual(ourRows, javaRows);
    });

    test('remove_orphan_files deletes the same files as Paimon Java', async () => {
      const { a, b } = await javaAndOurCopies(origin, `p20-orphan-${v}`, async (wh) => {
        await javaBatch(v, [['rollback', wh, DB, 't', '8']]); // the later snapshots' files become orphans
        ageTree(wh);
        plant(wh, `${DB}.db/t/manifest/manifest-planted-0`);
      });
      const cutoff = String(Date.now() - 86_400_000);
      const row = firstRow(await callNamed(executorFor(b, PROCEDURES), 'remove_orphan_files', { table: `${DB}.t` }));
      const [javaRows, ourRows] = await javaRun(v, [['orphan-clean', a, DB, 't', cutoff, 'false'], ...view(a, 't'), ...view(b, 't')]);
      assert.ok(Number(row.deletedFileCount) >= 3, `deleted ${String(row.deletedFileCount)}`);
      assert.deepEqual(listTree(tableDir(b, 't')), listTree(tableDir(a, 't')), 'same files on disk as Paimon Java');
      assert.deepEqual(ourRows, javaRows);
    });

    test('rollback_to leaves the same files as Paimon Java', async () => {
      const { a, b } = await javaAndOurCopies(origin, `p20-rollback-${v}`);
      firstRow(await callNamed(executorFor(b, PROCEDURES), 'rollback_to', { table: `${DB}.t`, snapshot_id: 6 }));
      const [javaRows, ourRows] = await javaRun(v, [['rollback', a, DB, 't', '6'], ...view(a, 't'), ...view(b, 't')]);
      assert.deepEqual(listTree(tableDir(b, 't')), listTree(tableDir(a, 't')), 'same files on disk as Paimon Java');
      assert.deepEqual(ourRows, javaRows);
    });

    test('rollback_to_as_latest commits a snapshot that reads like the target, with 2.0\'s snapshot keys', async () => {
      const { a, b } = await javaAndOurCopies(origin, `p20-ral-${v}`);
      const latest = latestId(b, 't');
      const row = firstRow(await callNamed(executorFor(b, PROCEDURES), 'rollback_to_as_latest', { table: `${DB}.t`, snapshot_id: 6 }));
      assert.equal(row.current_snapshot_id, latest + 1);
      const ours = snapshotJson(b, 't', latest + 1);
      assert.match(String(ours.uuid), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      assert.notEqual(ours.uuid, snapshotJson(b, 't', 6).uuid, 'a new snapshot gets a uuid of its own');
      const java20 = v === '2.0.0' ? [['rollback-as-latest', a, DB, 't', '6'], ...view(a, 't')] : [];
      const [target, ourRows, javaRows] = await javaRun(v, [['read', a, DB, 't', '6'], ...view(b, 't'), ...java20]);
      assert.deepEqual(ourRows, target);
      if (v === '2.0.0') {
        assert.deepEqual(javaRows, target);
        assert.deepEqual(keyKinds(ours), keyKinds(snapshotJson(a, 't', latest + 1)), 'the same keys and value kinds as Java 2.0.0');
      }
    });

    test('an undecodable manifest list stops every procedure before it changes anything', async () => {
      const wh = ourCopy(origin, `p20-broken-${v}`);
      ageTree(wh);
      plant(wh, `${DB}.db/t/manifest/manifest-planted-1`); // an orphan that a half-run cleaner would delete
      const t = tableDir(wh, 't');
      const list = String(snapshotJson(wh, 't', latestId(wh, 't')).baseManifestList);
      const good = readFileSync(join(t, 'manifest', list));
      const broken = Buffer.from(good);
      broken.fill(0x5a, 4, broken.length - 8); // magic kept: a Parquet file whose body is garbage
      writeFileSync(join(t, 'manifest', list), broken);
      const before = checksums(t);
      const ex = executorFor(wh, PROCEDURES);
      const calls: [string, Record<string, string | number>][] = [
        ['expire_snapshots', { table: `${DB}.t`, retain_max: 1, retain_min: 1, older_than: String(Date.now()) }],
        ['remove_orphan_files', { table: `${DB}.t` }],
        ['rollback_to_as_latest', { table: `${DB}.t`, snapshot_id: 6 }],
        ['compact', { table: `${DB}.t` }],
      ];
      for (const [proc, args] of calls) {
        const o = await callNamed(ex, proc, args);
        assert.ok(!o.ok, `${proc} must fail`);
        // remove_orphan_files reports a used file it cannot read as a storage error (its reachability walk retries reads)
        assert.ok(['CORRUPT_METADATA', 'STORAGE_ERROR'].includes(o.error.code), `${proc}: ${o.error.code} ${o.error.message}`);
        assert.ok(o.error.message.includes(list), `${proc} names the file: ${o.error.message}`);
        assert.deepEqual(checksums(t), before, `${proc} changed nothing`);
      }
      // rollback_to never decodes manifests (Paimon's RollbackHelper deletes only snapshot,
      // changelog and tag files): it runs, and leaves every manifest and data file alone.
      firstRow(await callNamed(ex, 'rollback_to', { table: `${DB}.t`, snapshot_id: 6 }));
      const metaOrData = (l: string[]): string[] => l.filter((f) => !f.startsWith('snapshot/') && !f.startsWith('tag/'));
      assert.deepEqual(metaOrData(checksums(t)), metaOrData(before));
      assert.equal(latestId(wh, 't'), 6);
    });

    test('on row-tracking, data-evolution and postpone-bucket tables expire_snapshots, rollback_to and remove_orphan_files leave the same files as Paimon Java; Java and pypaimon 2.1.0 read the same rows', async () => {
      const { a, b } = await javaAndOurCopies(origin, `p20-kinds-${v}`, async (wh) => {
        ageTree(wh);
        for (const t of KINDS) plant(wh, `${DB}.db/${t}/manifest/manifest-planted-2`);
      });
      const ex = executorFor(b, PROCEDURES);
      const olderThan = String(Date.now());
      const cutoff = String(Date.now() - 86_400_000);
      const javaSteps: string[][] = [];
      for (const t of KINDS) {
        // rollback to 4, then keep the last 2 snapshots (tag2 pins 2's files), then remove orphans
        firstRow(await callNamed(ex, 'rollback_to', { table: `${DB}.${t}`, snapshot_id: 4 }));
        const expired = firstRow(await callNamed(ex, 'expire_snapshots', { table: `${DB}.${t}`, retain_max: 2, retain_min: 1, older_than: olderThan }));
        assert.ok(Number(expired.deleted_snapshots_count) >= 1, `${t}: expired ${String(expired.deleted_snapshots_count)}`);
        const orphans = firstRow(await callNamed(ex, 'remove_orphan_files', { table: `${DB}.${t}` }));
        assert.ok(Number(orphans.deletedFileCount) >= 1, `${t}: deleted ${String(orphans.deletedFileCount)}`);
        javaSteps.push(['rollback', a, DB, t, '4'], ['expire', a, DB, t, '1', '2', olderThan, '2147483647'], ['orphan-clean', a, DB, t, cutoff, 'false']);
      }
      const rows = await javaRun(v, [...javaSteps, ...KINDS.flatMap((t) => [...view(a, t), ...view(b, t)])]);
      for (const [i, t] of KINDS.entries()) {
        assert.deepEqual(listTree(tableDir(b, t)), listTree(tableDir(a, t)), `${t}: same files on disk as Paimon Java`);
        assert.deepEqual(rows[2 * i + 1], rows[2 * i], `${t}: Java reads the same rows`);
        // bucket -2 rows stay invisible until an engine's compaction assigns them buckets
        if (t !== 'pp') assert.ok(rows[2 * i].length > 0, `${t}: Java reads rows`);
      }
      // pypaimon 2.1.0 reads the row-tracking and data-evolution tables as Java does (it has no reader of bucket -2 files)
      for (const [i, t] of KINDS.entries()) {
        if (t === 'pp') continue;
        assert.deepEqual(await pypaimon21.read(b, DB, t), canonicalSort(rows[2 * i].map((l) => JSON.parse(l) as Row)), `pypaimon 2.1.0 reads ${t}`);
      }
    });

    test('the tag and branch lifecycle on Parquet-manifest, row-tracking, data-evolution and postpone-bucket tables leaves the same files as Paimon Java\'s Table API', async () => {
      const tables = ['t', 'rt', 'de', 'pp'] as const;
      const { a, b } = await javaAndOurCopies(origin, `p20-lifecycle-${v}`);
      const ex = executorFor(b, LIFECYCLE);
      const olderThan = String(Date.now());
      const j = java(v === '1.4.2' ? '1.4' : '2.0');
      for (const t of tables) {
        const tag = t === 't' ? 'tag3' : 'tag2';
        // a tag on 4, a branch from it, fast_forward to it (forced: main drops its later snapshots), the
        // branch deleted, snapshots expired to the last one, both tags deleted: the files only
        // the older tag kept go
        for (const [proc, args] of [
          ['create_tag', { table: `${DB}.${t}`, tag: 'tagx', snapshot_id: 4 }],
          ['create_branch', { table: `${DB}.${t}`, branch: 'b1', tag: 'tagx' }],
          ['fast_forward', { table: `${DB}.${t}`, branch: 'b1', force: true }],
          ['delete_branch', { table: `${DB}.${t}`, branch: 'b1' }],
          ['expire_snapshots', { table: `${DB}.${t}`, retain_max: 1, retain_min: 1, older_than: olderThan }],
          ['delete_tag', { table: `${DB}.${t}`, tag: `${tag},tagx` }],
        ] as const) {
          const o = await callNamed(ex, proc, args);
          assert.ok(o.ok, `${proc} on ${t}: ${o.ok ? '' : `${o.error.code} ${o.error.message}`}`);
        }
        await javaBatch(v, [['create-tag', a, DB, t, 'tagx', '4']]);
        await j.runMain('BranchTool', ['create-branch', a, DB, t, 'b1', 'tagx']);
        await j.runMain('BranchTool', ['fast-forward', a, DB, t, 'b1']);
        await j.runMain('BranchTool', ['delete-branch', a, DB, t, 'b1']);
        await javaBatch(v, [['expire', a, DB, t, '1', '1', olderThan, '2147483647']]);
        await j.runMain('TagTool', ['delete-tags', a, DB, t, `${tag},tagx`]);
      }
      const rows = await javaRun(v, tables.flatMap((t) => [...view(a, t), ...view(b, t)]));
      for (const [i, t] of tables.entries()) {
        // Java's fast_forward leaves main without a LATEST hint when the branch had none (readers
        // then list the directory); ours writes it exact, since pypaimon reads LATEST first
        const noLatest = (l: string[]): string[] => l.filter((f) => f !== 'snapshot/LATEST');
        assert.deepEqual(noLatest(listTree(tableDir(b, t))), noLatest(listTree(tableDir(a, t))), `${t}: same files on disk as Paimon Java`);
        assert.equal(readFileSync(join(tableDir(b, t), 'snapshot/LATEST'), 'utf8').trim(), String(Math.max(...listTree(tableDir(b, t)).flatMap((f) => /^snapshot\/snapshot-(\d+)$/.exec(f)?.[1] ?? []).map(Number))));
        // bucket -2 rows stay invisible until a compaction gives them buckets
        if (t !== 'pp') assert.ok(rows[2 * i].length > 0, `${t}: Java reads rows`);
        assert.deepEqual(rows[2 * i + 1], rows[2 * i], `${t}: Java reads the same rows`);
      }
    });

    test('compact on row-tracking and postpone-bucket tables commits a COMPACT snapshot (data evolution: no task, as Paimon plans it); Java checks and reads the rows it read before (bucket -2: the rows its writes made), pypaimon 2.1.0 reads what Java reads, and Java keeps writing', async () => {
      const wh = ourCopy(origin, `p20-compact-kinds-${v}`);
      const ex = executorFor(wh, PROCEDURES);
      const before = await javaRun(v, KINDS.flatMap((t) => view(wh, t)));
      const latestBefore = new Map(KINDS.map((t) => [t, latestId(wh, t)]));
      for (const t of KINDS) {
        // Each partition holds a few small files: fewer than the default compaction.min.file-num (5).
        const r = firstRow(await callNamed(ex, 'compact', { table: `${DB}.${t}`, options: 'compaction.min.file-num=2' }));
        const latest = latestId(wh, t);
        if (t === 'de') {
          // Each commit spread its row ids over three partitions, so a partition's files hold
          // ranges that neither overlap nor touch: DataEvolutionCompactCoordinator plans no task.
          assert.equal(latest, latestBefore.get(t), `de: nothing committed (${String(r.message ?? '')})`);
          assert.match(String(r.message ?? ''), /nothing to compact/);
          continue;
        }
        assert.ok(latest === latestBefore.get(t)! + 1, `${t}: one snapshot committed (${String(r.message ?? '')})`);
        assert.equal(snapshotJson(wh, t, latest).commitKind, 'COMPACT', t);
      }
      const after = await javaRun(v, [...KINDS.flatMap((t) => view(wh, t)), ['write-loop', wh, DB, 'rt', '1', '0', '90'], ['write-loop', wh, DB, 'de', '1', '0', '90'], ...KINDS.flatMap((t) => view(wh, t))]);
      for (const [i, t] of KINDS.entries()) {
        if (t === 'pp') assert.ok(after[i].length > 0 && before[i].length === 0, `${t}: Java reads ${after[i].length} rows once the postpone files have buckets`);
        else assert.deepEqual(after[i], before[i], `${t}: Java reads the same rows after our compaction`);
        // after Java's writes: the latest rows are those of the second view
        const py = await pypaimon21.read(wh, DB, t);
        assert.deepEqual(py, canonicalSort(after[KINDS.length + i].map((l) => JSON.parse(l) as Row)), `pypaimon 2.1.0 reads ${t} as Java does`);
      }
      assert.ok(after[KINDS.length].length > after[0].length && after[KINDS.length + 1].length > after[1].length, 'Java writes on top of ours');
    });

    test('with procedures.compact_variant_tables off, compact refuses VARIANT tables, naming the engine procedure to run instead', async () => {
      const wh = ourCopy(origin, `p20-refuse-${v}`);
      const ex = executorFor(wh, PROCEDURES, { compact_variant_tables: false });
      for (const [table, why] of [
        ['var', /column j holds VARIANT values, and procedures\.compact_variant_tables is off/],
      ] as const) {
        const before = checksums(tableDir(wh, table));
        const o = await callNamed(ex, 'compact', { table: `${DB}.${table}` });
        assert.ok(!o.ok && o.error.code === 'UNSUPPORTED_TABLE', `${table}: ${o.ok ? 'ok' : `${o.error.code} ${o.error.message}`}`);
        assert.ok(o.error.message.startsWith(`compact on ${DB}.${table}: `), o.error.message);
        assert.match(o.error.message, why);
        assert.match(o.error.message, /CALL sys\.compact/);
        assert.deepEqual(checksums(tableDir(wh, table)), before);
      }
    });

    for (const [table, option] of [['orc', 'manifest.format'], ['lz4', 'manifest.compression']] as const) {
      test(`a table with ${table} manifests is refused with UNSUPPORTED_FORMAT naming ${option}; nothing changes`, async () => {
        const wh = ourCopy(origin, `p20-${table}-${v}`);
        const t = tableDir(wh, table);
        assert.ok(readdirSync(join(t, 'manifest')).length > 0);
        const before = checksums(t);
        const ex = executorFor(wh, PROCEDURES);
        for (const [proc, args] of [
          ['compact', { table: `${DB}.${table}` }],
          ['expire_snapshots', { table: `${DB}.${table}`, retain_max: 1, retain_min: 1, older_than: String(Date.now()) }],
          ['rollback_to_as_latest', { table: `${DB}.${table}`, snapshot_id: 1 }],
          ['remove_orphan_files', { table: `${DB}.${table}` }],
        ] as const) {
          const o = await callNamed(ex, proc, args);
          assert.ok(!o.ok && o.error.code === 'UNSUPPORTED_FORMAT', `${proc}: ${o.ok ? 'ok' : `${o.error.code} ${o.error.message}`}`);
          assert.ok(o.error.message.includes(`'${option}'`), o.error.message);
          assert.deepEqual(checksums(t), before, `${proc} changed nothing`);
        }
      });
    }
  });
}

