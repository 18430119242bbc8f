/**
 * compact against the real Paimon (Java 1.4.2 / 2.0.0 and pypaimon 2.0.0):
 * tables written by Paimon Java with overlapping keys over many commits (retract rows included
 * where the engine accepts them) are compacted by our procedure; afterwards
 *  - Paimon Java 1.4, 2.0 and pypaimon read exactly the rows they read before (first-row tables:
 *    Paimon's batch read skips level 0, so a write-only table reads empty; the baseline is then
 *    what Java reads after its own full compaction of a copy, itself checked against a model);
 *  - the live files are at the levels Paimon expects (full compaction of a PK table: the max
 *    level, num-levels - 1), with consistent statistics (row counts, no retract rows left,
 *    key bounds), and Java's `check` reads every snapshot;
 *  - Paimon Java's own full compaction on a copy of the same table yields the same rows and,
 *    for these small deterministic tables, the same number of files per level;
 *  - a Java writer keeps writing and compacting the table and the rows stay right.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { java, tempWarehouse, copyWarehouse, type Json, type JsonObj, type TableSpec, pypaimons } from './peers.js';
import { executorFor, callNamed, firstRow } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { liveFiles, levelHistogram, type LiveFile } from './compact-support.js';

after(async () => {
  await closeDataEngine();
});

type Row = Record<string, Json>;

const canon = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();

const FIELDS: TableSpec['fields'] = [
  { name: 'dt', type: 'STRING NOT NULL' },
  { name: 'id', type: 'INT NOT NULL' },
  { name: 'name', type: 'STRING' },
  { name: 'amount', type: 'BIGINT' },
  { name: 'price', type: 'DOUBLE' },
  { name: 'flag', type: 'BOOLEAN' },
  { name: 'seq', type: 'INT' },
];

interface Case {
  name: string;
  spec: TableSpec;
  /** Row generator for commit c, row k; null to skip. */
  row(c: number, k: number): Row | null;
  commits: number;
  /** Whether the differential check compares per-level file counts. */
  sameLayout: boolean;
  /**
   * Level-0 files are invisible to readers until compacted (first-row tables, as Paimon reads
   * them): the expected rows are then those Java reads after its own full compaction.
   */
  invisibleLevel0?: boolean;
  /**
   * Java's writer may already have compacted everything (first-row tables compact eagerly):
   * then nothing to do is a correct answer if Java's own full compaction also changes nothing.
   */
  mayBeCompacted?: boolean;
  /** The merged view computed from the rows written (commit by commit), where it is simple to model. */
  expected?(written: Row[][]): Row[];
}

const dtOf = (k: number): string => (k % 3 === 0 ? '2024-01-02' : '2024-01-01');

const CASES: Case[] = [
  {
    name: 'dedup',
    spec: { fields: FIELDS, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2' } },
    commits: 7,
    sameLayout: true,
    row(c, k) {
      const id = (c * 5 + k) % 23;
      const r: Row = { dt: dtOf(id), id, name: k % 4 === 0 ? null : `n${c}-${k}`, amount: c * 1000 + k, price: k / 4, flag: k % 2 === 0, seq: c };
      if (c >= 3 && k % 5 === 0) r._rowKind = '-D';
      else if (c >= 2 && k % 7 === 0) r._rowKind = '-U';
      else if (c >= 2 && k % 3 === 0) r._rowKind = '+U';
      return r;
    },
  },
  {
    name: 'dedup_seqfield',
    spec: { fields: FIELDS, primaryKeys: ['id'], partitionKeys: [], options: { bucket: '1', 'sequence.field': 'seq', 'write-only': 'true' } },
    commits: 6,
    sameLayout: true,
    row(c, k) {
      const id = (c * 3 + k) % 17;
      // Later commits carry a smaller seq for some keys: those writes must lose.
      const seq = (k % 4 === 0) ? 100 - c : c;
      return { dt: 'x', id, name: `n${c}-${k}`, amount: c * 1000 + k, price: null, flag: null, seq };
    },
  },
  {
    name: 'first_row',
    spec: { fields: FIELDS, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2', 'merge-engine': 'first-row', 'write-only': 'true' } },
    commits: 5,
    sameLayout: true,
    invisibleLevel0: true,
    expected(written) {
      // first-row: the first row written for each key wins (commit order, then order in the commit)
      const first = new Map<string, Row>();
      for (const rows of written) for (const r of rows) if (!first.has(`${String(r.dt)}/${String(r.id)}`)) first.set(`${String(r.dt)}/${String(r.id)}`, r);
      return [...first.values()];
    },
    row(c, k) {
      const id = (c * 4 + k) % 19;
      return { dt: dtOf(id), id, name: `n${c}-${k}`, amount: c * 1000 + k, price: 1.5 * k, flag: true, seq: c };
    },
  },
  {
    name: 'partial_update',
    spec: { fields: FIELDS, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2', 'merge-engine': 'partial-update' } },
    commits: 6,
    sameLayout: true,
    row(c, k) {
      const id = (c * 3 + k) % 13;
      return {
        dt: dtOf(id), id,
        name: c % 2 === 0 ? `n${c}-${k}` : null,
        amount: c % 3 === 0 ? null : c * 1000 + k,
        price: k % 2 === 0 ? k * 0.5 : null,
        flag: c % 2 === 1 ? k % 2 === 0 : null,
        seq: c,
      };
    },
  },
  {
    name: 'aggregation',
    spec: {
      fields: FIELDS, primaryKeys: ['dt', 'id'], partitionKeys: ['dt'],
      options: {
        bucket: '2', 'merge-engine': 'aggregation',
        'fields.amount.aggregate-function': 'sum', 'fields.price.aggregate-function': 'max',
        'fields.seq.aggregate-function': 'min', 'fields.flag.aggregate-function': 'bool_or', 'fields.name.aggregate-function': 'last_non_null_value',
      },
    },
    commits: 6,
    sameLayout: true,
    row(c, k) {
      const id = (c * 3 + k) % 11;
      return { dt: dtOf(id), id, name: k % 3 === 0 ? null : `n${c}-${k}`, amount: c * 10 + k, price: (c * 7 + k) % 9, flag: (c + k) % 5 === 0, seq: 50 - c };
    },
  },
  {
    name: 'append_bucketed',
    spec: { fields: FIELDS, primaryKeys: [], partitionKeys: ['dt'], options: { bucket: '2', 'bucket-key': 'id', 'write-only': 'true' } },
    commits: 6,
    sameLayout: true,
    row(c, k) {
      return { dt: dtOf(k), id: c * 100 + k, name: `n${c}-${k}`, amount: k, price: null, flag: null, seq: c };
    },
  },
  {
    name: 'append_unaware',
    spec: { fields: FIELDS, primaryKeys: [], partitionKeys: ['dt'], options: { 'write-only': 'true' } },
    commits: 7,
    sameLayout: true,
    row(c, k) {
      return { dt: dtOf(k), id: c * 100 + k, name: `n${c}-${k}`, amount: k, price: null, flag: null, seq: c };
    },
  },
];

const only = process.env.COMPACT_CASES?.split(',').filter((x) => x !== '');
for (const cs of CASES.filter((c) => (only ? only.includes(c.name) : true))) {
  describe(`compact: ${cs.name} table written by Paimon Java`, () => {
    let wh: string;
    let copy: string;
    let beforeRows: string[];
    let beforeFiles: LiveFile[];
    let latestBefore: number;
    let javaCompacted: string[];
    const peer = java('1.4');
    const isPk = (cs.spec.primaryKeys ?? []).length > 0;

    before(async () => {
      wh = tempWarehouse(`compact-${cs.name}`);
      await peer.createTable(wh, 'db', 't', cs.spec);
      for (let c = 0; c < cs.commits; c++) {
        const rows: Row[] = [];
        for (let k = 0; k < 12; k++) {
          const r = cs.row(c, k);
          if (r) rows.push(r);
        }
        await peer.write(wh, 'db', 't', rows as JsonObj[]);
      }
      beforeRows = canon(await peer.read(wh, 'db', 't'));
      const d0 = (await peer.dump(wh, 'db', 't')) as unknown as JsonObj;
      beforeFiles = liveFiles(d0);
      const s0 = d0.snapshots as JsonObj[];
      latestBefore = Number(s0[s0.length - 1].id);
      assert.ok(beforeFiles.length >= 2, `expected several files, got ${beforeFiles.length}`);
      copy = copyWarehouse(wh, `compact-${cs.name}-java`);
      await peer.compact(copy, 'db', 't', 'full');
      javaCompacted = canon(await peer.read(copy, 'db', 't'));
      if (cs.invisibleLevel0) {
        // Paimon's batch scan skips level 0 of a first-row table (CoreOptions.batchScanSkipLevel0:
        // level-0 files may still hold later duplicates of a key), so a write-only table reads empty.
        assert.deepEqual(beforeRows, [], 'level-0 rows are invisible before compaction');
        beforeRows = javaCompacted;
      }
      if (cs.expected) {
        // An independent model of the merged view, so the differential baseline is checked too.
        const written: Row[][] = [];
        for (let c = 0; c < cs.commits; c++) {
          const rows: Row[] = [];
          for (let k = 0; k < 12; k++) {
            const r = cs.row(c, k);
            if (r) rows.push(r);
          }
          written.push(rows);
        }
        const key = (r: Row): string => [r.dt, r.id, r.name, r.amount].map(String).join('|');
        assert.deepEqual(javaCompacted.map((j) => key(JSON.parse(j) as Row)).sort(), cs.expected(written).map(key).sort(), "Java's compacted rows = the model");
      }
      assert.ok(beforeRows.length > 0);
    });

    test('after our compact, Java 1.4, 2.0 and pypaimon read the same rows; files are where Paimon puts them', async () => {
      const ex = executorFor(wh, [compact]);
      const row = firstRow(await callNamed(ex, 'compact', { table: 'db.t' }));
      assert.equal(row.result, true);
      if (row.snapshot_id === null && cs.mayBeCompacted) {
        const theirs = liveFiles((await peer.dump(copy, 'db', 't')) as unknown as JsonObj);
        assert.deepEqual(levelHistogram(theirs), levelHistogram(beforeFiles), "Java's compaction also found nothing to do");
        assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), beforeRows);
        return;
      }
      assert.notEqual(row.snapshot_id, null, `nothing committed: ${String(row.message)}`);
      // Java's writer may have committed its own COMPACT snapshots too: pin = the latest.
      assert.equal(row.pinned_snapshot_id, latestBefore);
      assert.equal(row.snapshot_id, latestBefore + 1);

      assert.deepEqual(canon(await java('1.4').read(wh, 'db', 't')), beforeRows, 'Paimon Java 1.4 rows');
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), beforeRows, 'Paimon Java 2.0 rows');
      assert.deepEqual(canon(await pypaimons.read(wh, 'db', 't')), beforeRows, 'pypaimon rows');
      const chk = await peer.check(wh, 'db', 't');
      assert.equal(chk.ok, true);

      const dump = (await peer.dump(wh, 'db', 't')) as unknown as JsonObj;
      const snaps = dump.snapshots as JsonObj[];
      assert.equal(snaps[snaps.length - 1].commitKind, 'COMPACT');
      const files = liveFiles(dump);
      if (isPk) {
        let rows = 0;
        for (const f of files) {
          assert.equal(f.level, 5, `${f.fileName} at the max level`);
          assert.equal(Number(f.meta.fileSourceValue), 1);
          assert.equal(String(f.meta.deleteRowCount), '0', 'no retract rows at the top level');
          rows += Number(f.meta.rowCount);
        }
        assert.equal(rows, beforeRows.length, 'one row per key after a full compaction');
      } else {
        let rows = 0;
        for (const f of files) {
          assert.equal(f.level, 0);
          rows += Number(f.meta.rowCount);
        }
        assert.equal(rows, beforeRows.length);
      }
    });

    test("Paimon Java's own full compaction of a copy gives the same rows and layout", async () => {
      assert.deepEqual(javaCompacted, beforeRows);
      const ours = liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj);
      const theirs = liveFiles((await peer.dump(copy, 'db', 't')) as unknown as JsonObj);
      if (cs.sameLayout) assert.deepEqual(levelHistogram(ours), levelHistogram(theirs), 'files per partition/bucket/level');
    });

    test('a Java writer keeps writing and compacting; rows stay right', async () => {
      const more: Row[] = [];
      for (let k = 0; k < 12; k++) {
        const r = cs.row(cs.commits + 1, k);
        if (r) more.push(r);
      }
      // Apply the same commit to the Java-compacted copy: both tables must read alike.
      await peer.write(wh, 'db', 't', more as JsonObj[]);
      await peer.write(copy, 'db', 't', more as JsonObj[]);
      await peer.compact(wh, 'db', 't', 'full');
      await peer.compact(copy, 'db', 't', 'full');
      assert.deepEqual(canon(await peer.read(wh, 'db', 't')), canon(await peer.read(copy, 'db', 't')));
      const chk = await peer.check(wh, 'db', 't');
      assert.equal(chk.ok, true);
      // And our compaction again on top of Java's.
      await peer.write(wh, 'db', 't', more as JsonObj[]);
      await peer.write(copy, 'db', 't', more as JsonObj[]);
      const ex = executorFor(wh, [compact]);
      firstRow(await callNamed(ex, 'compact', { table: 'db.t', compact_strategy: 'full' }));
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't')), canon(await java('2.0').read(copy, 'db', 't')));
    });
  });
}

describe('compact minor: universal picking as Paimon Java picks', () => {
  const peer = java('1.4');
  test('same files per level and same rows as Java minor compaction on a copy', { skip: only !== undefined && !only.includes('minor') }, async () => {
    const wh = tempWarehouse('compact-minor');
    await peer.createTable(wh, 'db', 't', { fields: FIELDS, primaryKeys: ['id'], partitionKeys: [], options: { bucket: '1', 'write-only': 'true' } });
    for (let c = 0; c < 7; c++) {
      const rows: Row[] = [];
      for (let k = 0; k < 6 + c * 3; k++) rows.push({ dt: 'x', id: (c * 7 + k) % 40, name: `n${c}-${k}`, amount: k, price: null, flag: null, seq: c });
      await peer.write(wh, 'db', 't', rows as JsonObj[]);
    }
    const before = canon(await peer.read(wh, 'db', 't'));
    const copy = copyWarehouse(wh, 'compact-minor-java');
    const ex = executorFor(wh, [compact]);
    const row = firstRow(await callNamed(ex, 'compact', { table: 'db.t', compact_strategy: 'minor' }));
    assert.notEqual(row.snapshot_id, null, `nothing committed: ${String(row.message)}`);
    await peer.compact(copy, 'db', 't', 'minor');
    assert.deepEqual(canon(await peer.read(wh, 'db', 't')), before);
    assert.deepEqual(canon(await peer.read(copy, 'db', 't')), before);
    const ours = liveFiles((await peer.dump(wh, 'db', 't')) as unknown as JsonObj);
    const theirs = liveFiles((await peer.dump(copy, 'db', 't')) as unknown as JsonObj);
    assert.deepEqual(levelHistogram(ours), levelHistogram(theirs));
  });
});
