/**
 * compact's merge engines against the real Paimon: partial-update with sequence groups (one and
 * two groups, a multi-field group, an aggregated field in a group, remove-record-on-sequence-group),
 * partial-update with remove-record-on-delete, and aggregation with a wide set of aggregate
 * functions (retraction, ignore-retract, distinct, remove-record-on-delete, sequence.field).
 *
 * Each table is written by Paimon Java 1.4.2 with write-only = true (so files pile up uncompacted)
 * over many commits with overlapping keys, -U / -D rows and NULLs. Then:
 *  - Java 1.4 and 2.0 read the merged view (they must agree);
 *  - Paimon Java's own full compaction of a copy reads the same rows;
 *  - after our compact, Java 1.4, Java 2.0 and pypaimon read exactly those rows, with the same
 *    number of files per partition/bucket/level as Java's compaction of the copy.
 * MAP values are compared as sets of entries (Java builds a HashMap, whose entry order is not a
 * property of the map); ARRAYs (collect, also with distinct) are compared in order.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, pypaimon, tempWarehouse, copyWarehouse, canonicalJson, toComparable, parseJson, parseJsonLines, type Json, type JsonObj, type PaimonJava, type TableSpec, pypaimons } from './peers.js';
import { executorFor, callNamed, firstRow } from './procedures-support.js';
import { compact } from '../../procedures/compaction/compact.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';
import { liveFiles, levelHistogram } from './compact-support.js';

after(async () => {
  await closeDataEngine();
});

type Row = Record<string, Json>;

/** Canonical, sorted text of rows; MAP columns (arrays of [k, v] pairs) as sorted entries. */
function canon(rows: JsonObj[], mapColumns: readonly string[]): string[] {
  return rows
    .map((r) => {
      const o: JsonObj = { ...r };
      for (const m of mapColumns) {
        const v = o[m];
        if (Array.isArray(v)) o[m] = [...v].map((e) => canonicalJson(toComparable(e))).sort();
      }
      return canonicalJson(toComparable(o));
    })
    .sort();
}

/** Deterministic pseudo-random numbers (LCG) so that every run writes the same tables. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Runs PaimonTool commands in one JVM; every step must succeed; their stdout in order. */
async function javaSteps(peer: PaimonJava, steps: string[][]): Promise<string[]> {
  const res = await peer.batch(steps);
  res.forEach((x, i) => assert.ok(x.ok, `Java ${steps[i][0]} failed: ${String(x.error)}`));
  assert.equal(res.length, steps.length);
  return res.map((x) => x.stdout);
}

interface Case {
  name: string;
  spec: TableSpec;
  commits: number;
  rowsPerCommit: number;
  /** Row k of commit c (random source r); null to skip. */
  row(c: number, k: number, r: () => number): Row | null;
  mapColumns?: string[];
}

const dtOf = (id: number): string => (id % 3 === 0 ? '2024-01-02' : '2024-01-01');
const maybe = <T>(r: () => number, p: number, v: T): T | null => (r() < p ? null : v);
const kindOf = (c: number, r: () => number, retractFrom = 2): string | undefined => {
  if (c < retractFrom) return undefined;
  const x = r();
  return x < 0.12 ? '-D' : x < 0.24 ? '-U' : x < 0.4 ? '+U' : undefined;
};

const CASES: Case[] = [
  {
    name: 'pu_two_groups',
    spec: {
      fields: [
        { name: 'dt', type: 'STRING NOT NULL' }, { name: 'id', type: 'INT NOT NULL' },
        { name: 'g1', type: 'INT' }, { name: 'a', type: 'STRING' }, { name: 'b', type: 'BIGINT' },
        { name: 'g2a', type: 'INT' }, { name: 'g2b', type: 'INT' }, { name: 'c', type: 'DOUBLE' }, { name: 'd', type: 'BOOLEAN' },
        { name: 'e', type: 'STRING' },
      ],
      primaryKeys: ['dt', 'id'], partitionKeys: ['dt'],
      options: {
        bucket: '2', 'write-only': 'true', 'merge-engine': 'partial-update',
        'fields.g1.sequence-group': 'a,b', 'fields.b.aggregate-function': 'sum',
        'fields.g2a,g2b.sequence-group': 'c,d',
      },
    },
    commits: 8,
    rowsPerCommit: 14,
    row(c, k, r) {
      const id = Math.floor(r() * 13);
      const row: Row = {
        dt: dtOf(id), id,
        g1: maybe(r, 0.2, Math.floor(r() * 6)), a: maybe(r, 0.3, `a${c}-${k}`), b: maybe(r, 0.2, Math.floor(r() * 100)),
        g2a: maybe(r, 0.25, Math.floor(r() * 3)), g2b: maybe(r, 0.25, Math.floor(r() * 4)), c: maybe(r, 0.3, Math.floor(r() * 40) / 4), d: maybe(r, 0.3, r() < 0.5),
        e: maybe(r, 0.4, `e${c}-${k}`),
      };
      const kind = kindOf(c, r);
      if (kind) row._rowKind = kind;
      return row;
    },
  },
  {
    name: 'pu_remove_on_group',
    spec: {
      fields: [
        { name: 'id', type: 'INT NOT NULL' }, { name: 'g1', type: 'BIGINT' }, { name: 'a', type: 'STRING' }, { name: 'b', type: 'INT' },
        { name: 'g2', type: 'INT' }, { name: 'c', type: 'STRING' }, { name: 'e', type: 'INT' },
      ],
      primaryKeys: ['id'], partitionKeys: [],
      options: {
        bucket: '1', 'write-only': 'true', 'merge-engine': 'partial-update',
        'fields.g1.sequence-group': 'a,b', 'fields.g2.sequence-group': 'c', 'partial-update.remove-record-on-sequence-group': 'g2',
        'fields.b.aggregate-function': 'max', 'fields.b.ignore-retract': 'true',
      },
    },
    commits: 8,
    rowsPerCommit: 12,
    row(c, k, r) {
      const id = Math.floor(r() * 11);
      const row: Row = {
        id, g1: maybe(r, 0.2, BigInt(Math.floor(r() * 8))), a: maybe(r, 0.3, `a${c}-${k}`), b: maybe(r, 0.3, Math.floor(r() * 50)),
        g2: maybe(r, 0.3, Math.floor(r() * 8)), c: maybe(r, 0.3, `c${c}-${k}`), e: maybe(r, 0.3, c * 100 + k),
      };
      const kind = kindOf(c, r);
      if (kind) row._rowKind = kind;
      return row;
    },
  },
  {
    name: 'pu_remove_on_delete',
    spec: {
      fields: [{ name: 'id', type: 'INT NOT NULL' }, { name: 'a', type: 'STRING' }, { name: 'b', type: 'BIGINT' }, { name: 'c', type: 'DOUBLE' }],
      primaryKeys: ['id'], partitionKeys: [],
      options: { bucket: '2', 'write-only': 'true', 'merge-engine': 'partial-update', 'partial-update.remove-record-on-delete': 'true' },
    },
    commits: 7,
    rowsPerCommit: 12,
    row(c, k, r) {
      const id = Math.floor(r() * 15);
      const row: Row = { id, a: maybe(r, 0.4, `a${c}-${k}`), b: maybe(r, 0.4, BigInt(c * 1000 + k)), c: maybe(r, 0.4, k / 8) };
      const kind = kindOf(c, r, 1);
      if (kind) row._rowKind = kind;
      return row;
    },
  },
  {
    name: 'agg_wide',
    spec: {
      fields: [
        { name: 'dt', type: 'STRING NOT NULL' }, { name: 'id', type: 'INT NOT NULL' },
        { name: 's_big', type: 'BIGINT' }, { name: 's_int', type: 'INT' }, { name: 's_dec', type: 'DECIMAL(12, 2)' }, { name: 's_dbl', type: 'DOUBLE' },
        { name: 'p_dbl', type: 'DOUBLE' }, { name: 'mx', type: 'INT' }, { name: 'mn', type: 'STRING' },
        { name: 'lv', type: 'STRING' }, { name: 'lnn', type: 'BIGINT' }, { name: 'fv', type: 'INT' }, { name: 'fnn', type: 'STRING' },
        { name: 'la', type: 'STRING' }, { name: 'lad', type: 'STRING' }, { name: 'band', type: 'BOOLEAN' }, { name: 'bor', type: 'BOOLEAN' },
        { name: 'col', type: { type: 'ARRAY', element: 'INT' } }, { name: 'cold', type: { type: 'ARRAY', element: 'INT' } },
        { name: 'mm', type: { type: 'MAP', key: 'STRING', value: 'INT' } },
        { name: 'mmk', type: { type: 'MAP', key: 'INT', value: { type: 'ROW', fields: [{ id: 100, name: 'v', type: 'INT' }, { id: 101, name: 'ts', type: 'STRING' }] } } },
        { name: 'fnl', type: 'DOUBLE' }, { name: 's_flt', type: 'FLOAT' },
      ],
      primaryKeys: ['dt', 'id'], partitionKeys: ['dt'],
      options: {
        bucket: '2', 'write-only': 'true', 'merge-engine': 'aggregation',
        'fields.s_big.aggregate-function': 'sum', 'fields.s_int.aggregate-function': 'sum', 'fields.s_dec.aggregate-function': 'sum', 'fields.s_dbl.aggregate-function': 'sum',
        'fields.p_dbl.aggregate-function': 'product',
        'fields.mx.aggregate-function': 'max', 'fields.mx.ignore-retract': 'true',
        'fields.mn.aggregate-function': 'min', 'fields.mn.ignore-retract': 'true',
        'fields.lv.aggregate-function': 'last_value',
        'fields.lnn.aggregate-function': 'last_non_null_value',
        'fields.fv.aggregate-function': 'first_value', 'fields.fv.ignore-retract': 'true',
        'fields.fnn.aggregate-function': 'first_non_null_value', 'fields.fnn.ignore-retract': 'true',
        'fields.la.aggregate-function': 'listagg', 'fields.la.ignore-retract': 'true',
        'fields.lad.aggregate-function': 'listagg', 'fields.lad.distinct': 'true', 'fields.lad.list-agg-delimiter': ';', 'fields.lad.ignore-retract': 'true',
        'fields.band.aggregate-function': 'bool_and', 'fields.band.ignore-retract': 'true',
        'fields.bor.aggregate-function': 'bool_or', 'fields.bor.ignore-retract': 'true',
        'fields.col.aggregate-function': 'collect',
        'fields.cold.aggregate-function': 'collect', 'fields.cold.distinct': 'true',
        'fields.mm.aggregate-function': 'merge_map',
        'fields.mmk.aggregate-function': 'merge_map_with_keytime', 'fields.mmk.ignore-retract': 'true',
        'fields.fnl.aggregate-function': 'first_not_null_value', 'fields.fnl.ignore-retract': 'true',
        'fields.s_flt.aggregate-function': 'sum',
      },
    },
    commits: 8,
    rowsPerCommit: 12,
    mapColumns: ['mm', 'mmk'],
    row(c, k, r) {
      const id = Math.floor(r() * 11);
      const row: Row = {
        dt: dtOf(id), id,
        s_big: maybe(r, 0.2, BigInt(Math.floor(r() * 1e6))), s_int: maybe(r, 0.2, Math.floor(r() * 1000) - 300),
        s_dec: maybe(r, 0.2, (Math.floor(r() * 100000) / 100).toFixed(2)), s_dbl: maybe(r, 0.2, Math.floor(r() * 64) / 8),
        p_dbl: maybe(r, 0.3, [0.5, 2, 4, 1.5][Math.floor(r() * 4)]), mx: maybe(r, 0.3, Math.floor(r() * 100)), mn: maybe(r, 0.3, `m${Math.floor(r() * 50)}`),
        lv: maybe(r, 0.3, `lv${c}-${k}`), lnn: maybe(r, 0.4, BigInt(c * 100 + k)), fv: maybe(r, 0.3, c * 100 + k), fnn: maybe(r, 0.4, `f${c}-${k}`),
        la: maybe(r, 0.3, `x${Math.floor(r() * 5)}`), lad: maybe(r, 0.3, `t${Math.floor(r() * 4)};t${Math.floor(r() * 4)}`),
        band: maybe(r, 0.3, r() < 0.8), bor: maybe(r, 0.3, r() < 0.2),
        col: maybe(r, 0.3, [Math.floor(r() * 5), Math.floor(r() * 5)]), cold: maybe(r, 0.3, [Math.floor(r() * 40) - 5, Math.floor(r() * 40), 70000 + Math.floor(r() * 3)]),
        mm: maybe(r, 0.3, [[`k${Math.floor(r() * 4)}`, c * 10 + k], [`k${4 + Math.floor(r() * 3)}`, k]]),
        mmk: maybe(r, 0.3, [
          [Math.floor(r() * 3), r() < 0.15 ? null : { v: c * 10 + k, ts: maybe(r, 0.2, `2024-01-0${1 + Math.floor(r() * 9)}`) }],
          [3 + Math.floor(r() * 2), { v: k, ts: `2024-02-0${1 + Math.floor(r() * 9)}` }],
        ]),
        fnl: maybe(r, 0.5, c + k / 16), s_flt: maybe(r, 0.2, Math.fround(0.1 * Math.floor(r() * 30))),
      };
      const kind = kindOf(c, r);
      if (kind) row._rowKind = kind;
      return row;
    },
  },
  {
    // only options pypaimon 2.0 implements, so pypaimon's merge reads the table before and after
    name: 'agg_retract_pypaimon',
    spec: {
      fields: [
        { name: 'dt', type: 'STRING NOT NULL' }, { name: 'id', type: 'INT NOT NULL' }, { name: 'total', type: 'BIGINT' }, { name: 'amount', type: 'DECIMAL(10, 2)' },
        { name: 'ratio', type: 'DOUBLE' }, { name: 'last', type: 'STRING' }, { name: 'lastnn', type: 'INT' }, { name: 'items', type: { type: 'ARRAY', element: 'BIGINT' } },
        { name: 'uniq', type: { type: 'ARRAY', element: 'INT' } }, { name: 'attrs', type: { type: 'MAP', key: 'STRING', value: 'STRING' } },
      ],
      primaryKeys: ['dt', 'id'], partitionKeys: ['dt'],
      options: {
        bucket: '2', 'write-only': 'true', 'merge-engine': 'aggregation',
        'fields.total.aggregate-function': 'sum', 'fields.amount.aggregate-function': 'sum', 'fields.ratio.aggregate-function': 'product',
        'fields.last.aggregate-function': 'last_value', 'fields.lastnn.aggregate-function': 'last_non_null_value',
        'fields.items.aggregate-function': 'collect', 'fields.uniq.aggregate-function': 'collect', 'fields.uniq.distinct': 'true',
        'fields.attrs.aggregate-function': 'merge_map',
      },
    },
    commits: 8,
    rowsPerCommit: 12,
    mapColumns: ['attrs'],
    row(c, k, r) {
      const id = Math.floor(r() * 10);
      const row: Row = {
        dt: dtOf(id), id, total: maybe(r, 0.2, BigInt(Math.floor(r() * 5000) - 1000)), amount: maybe(r, 0.2, (Math.floor(r() * 10000) / 100).toFixed(2)),
        ratio: maybe(r, 0.3, [0.5, 2, 4, 0.25][Math.floor(r() * 4)]), last: maybe(r, 0.3, `l${c}-${k}`), lastnn: maybe(r, 0.4, c * 100 + k),
        items: maybe(r, 0.3, [BigInt(c), BigInt(k)]), uniq: maybe(r, 0.3, [Math.floor(r() * 20), Math.floor(r() * 20) + 16]),
        attrs: maybe(r, 0.3, [[`a${Math.floor(r() * 3)}`, `v${c}-${k}`]]),
      };
      const kind = kindOf(c, r);
      if (kind) row._rowKind = kind;
      return row;
    },
  },
  {
    name: 'agg_remove_on_delete_seqfield',
    spec: {
      fields: [
        { name: 'id', type: 'INT NOT NULL' }, { name: 'seq', type: 'INT' }, { name: 'total', type: 'BIGINT' }, { name: 'hi', type: 'INT' },
        { name: 'names', type: 'STRING' }, { name: 'first', type: 'STRING' },
      ],
      primaryKeys: ['id'], partitionKeys: [],
      options: {
        bucket: '1', 'write-only': 'true', 'merge-engine': 'aggregation', 'aggregation.remove-record-on-delete': 'true', 'sequence.field': 'seq',
        'fields.total.aggregate-function': 'sum', 'fields.hi.aggregate-function': 'max', 'fields.names.aggregate-function': 'listagg',
        'fields.first.aggregate-function': 'first_non_null_value',
      },
    },
    commits: 7,
    rowsPerCommit: 12,
    row(c, k, r) {
      const id = Math.floor(r() * 9);
      const row: Row = {
        id, seq: Math.floor(r() * 20), total: maybe(r, 0.2, BigInt(Math.floor(r() * 1000))), hi: maybe(r, 0.3, Math.floor(r() * 100)),
        names: maybe(r, 0.3, `n${c}-${k}`), first: maybe(r, 0.4, `f${c}-${k}`),
      };
      if (c >= 2 && r() < 0.15) row._rowKind = '-D';
      return row;
    },
  },
];

const only = process.env.COMPACT_MERGE_CASES?.split(',').filter((x) => x !== '');
for (const cs of CASES.filter((c) => !only || only.includes(c.name))) {
  describe(`compact merge engine: ${cs.name} written by Paimon Java 1.4 (write-only)`, () => {
    const peer = java('1.4');
    const maps = cs.mapColumns ?? [];

    test("our full compaction reads back as before in Java 1.4, 2.0 and pypaimon, and as Java's own compaction", async (t) => {
      const wh = tempWarehouse(`merge-${cs.name}`);
      await peer.createTable(wh, 'db', 't', cs.spec);
      const r = rng(cs.name.length * 7919 + 17);
      const dir = tempWarehouse(`merge-${cs.name}-rows`);
      const steps: string[][] = [];
      for (let c = 0; c < cs.commits; c++) {
        const rows: Row[] = [];
        for (let k = 0; k < cs.rowsPerCommit; k++) {
          const row = cs.row(c, k, r);
          if (row) rows.push(row);
        }
        const f = join(dir, `c${c}.jsonl`);
        writeFileSync(f, rows.map((x) => canonicalJson(x)).join('\n') + '\n');
        steps.push(['write', wh, 'db', 't', f]);
      }
      // JVM starts are the slow part on a loaded machine: one batch per phase.
      await javaSteps(peer, steps);
      const copy = copyWarehouse(wh, `merge-${cs.name}-java`);
      const [read14, dump0, , readCopy] = await javaSteps(peer, [['read', wh, 'db', 't'], ['dump', wh, 'db', 't'], ['compact', copy, 'db', 't', 'full'], ['read', copy, 'db', 't']]);
      const before14 = canon(parseJsonLines(read14) as JsonObj[], maps);
      const before20 = canon(await java('2.0').read(wh, 'db', 't'), maps);
      assert.deepEqual(before20, before14, 'Java 1.4 and 2.0 read the uncompacted table alike');
      assert.ok(before14.length > 3, `rows: ${before14.length}`);
      const filesBefore = liveFiles(parseJson(dump0) as JsonObj);
      assert.ok(filesBefore.length >= cs.commits, `write-only keeps the files apart: ${filesBefore.length}`);
      assert.ok(filesBefore.every((f) => f.level === 0));
      assert.deepEqual(canon(parseJsonLines(readCopy) as JsonObj[], maps), before14, "Java's own full compaction keeps the merged view");

      const ex = executorFor(wh, [compact]);
      const out = firstRow(await callNamed(ex, 'compact', { table: 'db.t' }));
      assert.equal(out.result, true);
      assert.notEqual(out.snapshot_id, null, `nothing committed: ${String(out.message)}`);

      const [after14, dumpOurs, dumpTheirs, check] = await javaSteps(peer, [['read', wh, 'db', 't'], ['dump', wh, 'db', 't'], ['dump', copy, 'db', 't'], ['check', wh, 'db', 't']]);
      assert.deepEqual(canon(parseJsonLines(after14) as JsonObj[], maps), before14, 'Paimon Java 1.4 after our compact');
      assert.deepEqual(canon(await java('2.0').read(wh, 'db', 't'), maps), before14, 'Paimon Java 2.0 after our compact');
      let py: string[] | null = null;
      try {
        py = canon(await pypaimons.read(wh, 'db', 't'), maps);
      } catch (e) {
        t.diagnostic(`pypaimon cannot read ${cs.name}: ${(e as Error).message.split('\n')[0]}`);
      }
      if (py !== null) assert.deepEqual(py, before14, 'pypaimon after our compact');

      const ours = liveFiles(parseJson(dumpOurs) as JsonObj);
      const theirs = liveFiles(parseJson(dumpTheirs) as JsonObj);
      assert.deepEqual(levelHistogram(ours), levelHistogram(theirs), 'files per partition/bucket/level as Java compacts them');
      assert.equal(ours.reduce((n, f) => n + f.rowCount, 0), before14.length, 'one row per key, no retract rows left');
      assert.equal((parseJson(check) as JsonObj).ok, true, 'Java reads every snapshot');
    });
  });
}
