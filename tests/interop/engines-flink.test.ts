/**
 * Flink reads what our procedures leave: for every built-in procedure, on copies of one shared
 * Java-written warehouse (ENGINE_TABLES: primary key with deduplicate and with aggregation, append,
 * deletion vectors; each with tag2 and branch b1), our procedure runs through the executor, then
 * Flink SQL (PyFlink 2.0.2 + paimon-flink-2.0 1.4.2) reads the latest snapshot, every tag
 * (scan.tag-name) and every branch (t$branch_b) and $snapshots, $tags, $branches and $files. The
 * rows must equal Paimon Java's reads of the same copy, the system tables must show what is on disk
 * and what our result said; for the cases that rewrite history or delete files (JAVA_CHECK_CASES)
 * Paimon Java's `check` must pass too. A table our procedure left byte for byte as it was (a
 * refusal, or nothing to act on: the case says which) is not read again: its reads are those of the
 * shared Java-written warehouse. Then a Flink batch INSERT into every table our procedures changed
 * must succeed, and Flink's CALL sys.compact after every case that changed a table (one changed
 * table each, the table kinds in turn); Java must then read Flink's rows and check what Flink
 * compacted.
 *
 * Flink jobs cost seconds each on this machine, so the reads go into UNION ALL queries of a few
 * dozen sources, the system tables likewise, and the INSERTs into one statement set.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProcedures } from '../../procedures/index.js';
import type { CallOutcome } from '../../procedures/framework/executor.js';
import { flink } from './flink-peer.js';
import {
  ENGINE_TABLES,
  enginesWarehouse,
  flinkCatalog,
  flinkMetaMany,
  flinkReadMany,
  flinkStreamLatest,
  javaBatchAll,
  javaRowTexts,
  javaTarget,
  onDisk,
  orphanPath,
  tableFingerprint,
  targetLabel,
  targetsOf,
  type EngineTable,
  type FlinkMeta,
  type StepResult,
  type StreamTable,
  type Target,
} from './engines-support.js';
import { callNamed, executorFor, javaBatch, liveDataFiles, ourCopy, plant } from './procedures-support.js';

const V = '1.4.2' as const;
const peer = flink(V);

type Args = Record<string, string | number | bigint | boolean | null>;

interface Ctx {
  table: EngineTable;
  wh: string;
  outcome: CallOutcome;
  before: ReturnType<typeof onDisk>;
  after: ReturnType<typeof onDisk>;
  meta: FlinkMeta;
  rows: (target: string) => string[];
}

interface Case {
  proc: string;
  args: (table: string, wh: string) => Args;
  prepare?: (wh: string) => unknown;
  /** Tables on which our procedure refuses, with the reason (the refusal is asserted). */
  refuses?: (table: EngineTable) => string | undefined;
  /** Our procedure may succeed or refuse (never INTERNAL_ERROR): the history has nothing it acts on. */
  either?: string;
  /** Tables where our procedure succeeds and may leave the table unchanged (nothing to act on), with the reason. */
  noop?: (table: EngineTable) => string | undefined;
  expect?: (c: Ctx) => void;
}

/** Commit time (ms) of snapshot `id` of main, from its file. */
function snapshotMillis(wh: string, table: string, id: number): number {
  return (JSON.parse(readFileSync(join(wh, 'interop.db', table, 'snapshot', `snapshot-${id}`), 'utf8')) as { timeMillis: number }).timeMillis;
}

function row(o: CallOutcome): Record<string, unknown> {
  assert.ok(o.ok, `the procedure failed: ${o.ok ? '' : `${o.error.code}: ${o.error.message}`}`);
  return o.result.rows[0] ?? {};
}

/** The row merge_branch's source branch holds (write-loop's row of that index). */
const MERGED_ROW = 60;

/** The first write-loop row index of the streaming test's commits (above every id of the history). */
const STREAM_FIRST_ROW = 3000;

const latest = (c: Ctx): number => c.meta.snapshots[c.meta.snapshots.length - 1] ?? -1;

const CASES: Case[] = [
  {
    proc: 'expire_snapshots',
    args: (t) => ({ table: `interop.${t}`, retain_min: 1, retain_max: 3, older_than: String(Date.now()) }),
    expect: (c) => {
      // Every snapshot is older than older_than, so only retain_min stay (Paimon's rule).
      assert.equal(c.meta.snapshots.length, 1);
      assert.equal(c.before.snapshots.length - c.meta.snapshots.length, Number(row(c.outcome).deleted_snapshots_count), 'Flink sees exactly the snapshots our result says were expired gone');
    },
  },
  { proc: 'rollback_to', args: (t) => ({ table: `interop.${t}`, snapshot_id: 6 }), expect: (c) => assert.equal(latest(c), 6) },
  { proc: 'rollback', args: (t) => ({ table: `interop.${t}`, version: '6' }), expect: (c) => assert.equal(latest(c), 6) },
  {
    proc: 'rollback_to_timestamp',
    args: (t, wh) => ({ table: `interop.${t}`, timestamp: snapshotMillis(wh, t, 6) }),
    expect: (c) => assert.equal(latest(c), 6),
  },
  {
    proc: 'rollback_to_as_latest',
    args: (t) => ({ table: `interop.${t}`, snapshot_id: 6 }),
    expect: (c) => {
      assert.equal(latest(c), Math.max(...c.before.snapshots) + 1, 'one new snapshot');
      assert.deepEqual(c.rows('latest'), c.rows('snapshot6'), 'the latest snapshot reads as snapshot 6');
    },
  },
  {
    proc: 'remove_orphan_files',
    prepare: (wh) => {
      for (const t of ENGINE_TABLES) plant(wh, orphanPath(wh, t));
    },
    args: (t) => ({ table: `interop.${t}` }),
    expect: (c) => {
      assert.equal(Number(row(c.outcome).deletedFileCount), 1, 'the planted orphan only');
      assert.ok(!existsSync(join(c.wh, orphanPath(c.wh, c.table))), 'the orphan is gone');
    },
  },
  {
    proc: 'compact',
    args: (t) => ({ table: `interop.${t}` }),
    noop: (t) => (t === 'k_append' ? 'its few small files are below the append compaction threshold' : undefined),
    expect: (c) => assert.ok(latest(c) > Math.max(...c.before.snapshots), 'a compaction snapshot') },
  { proc: 'create_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tf', snapshot_id: 5 }), expect: (c) => assert.deepEqual(c.meta.tags, ['tag2@2', 'tf@5']) },
  {
    proc: 'create_tag_from_timestamp',
    args: (t, wh) => ({ table: `interop.${t}`, tag: 'tts', timestamp: snapshotMillis(wh, t, 6) }),
    expect: (c) => assert.ok(c.meta.tags.includes('tts@6'), c.meta.tags.join(',')),
  },
  { proc: 'delete_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tag2' }), expect: (c) => assert.deepEqual(c.meta.tags, []) },
  { proc: 'rename_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tag2', target_tag: 'tag2r' }), expect: (c) => assert.deepEqual(c.meta.tags, ['tag2r@2']) },
  { proc: 'replace_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tag2', snapshot_id: 5 }), expect: (c) => assert.deepEqual(c.meta.tags, ['tag2@5']) },
  { proc: 'expire_tags', args: (t) => ({ table: `interop.${t}` }), noop: () => 'tag2 has no time_retained, so it stays' },
  {
    proc: 'trigger_tag_automatic_creation',
    args: (t) => ({ table: `interop.${t}` }),
    either: 'the tables have no tag.automatic-creation option',
  },
  { proc: 'create_branch', args: (t) => ({ table: `interop.${t}`, branch: 'b2', tag: 'tag2' }), expect: (c) => assert.deepEqual(c.meta.branches, ['b1', 'b2']) },
  { proc: 'delete_branch', args: (t) => ({ table: `interop.${t}`, branch: 'b1' }), expect: (c) => assert.deepEqual(c.meta.branches, []) },
  {
    proc: 'rename_branch',
    args: (t) => ({ table: `interop.${t}`, from_branch: 'b1', to_branch: 'b3' }),
    expect: (c) => assert.deepEqual(c.meta.branches, ['b3']),
  },
  {
    proc: 'fast_forward',
    // main has commits after b1's fork: ours refuses that lossy forward without force (asserted in
    // engines-flink-call.test.ts), Paimon does it unasked.
    args: (t) => ({ table: `interop.${t}`, branch: 'b1', force: true }),
    expect: (c) => assert.deepEqual(c.rows('latest'), c.rows('branch:b1'), 'main reads as the branch'),
  },
  {
    proc: 'merge_branch',
    // Paimon merges only append-only tables whose both sides hold their whole history of APPEND
    // commits: b1 forks at tag2 and main of k_append has a COMPACT snapshot, so k_append gets two
    // branches created empty with one commit each (Paimon needs a target with a snapshot), bm and
    // bt, and bm merges into bt; the primary-key tables are refused.
    prepare: (wh) =>
      javaBatch(V, [
        ['create-branch', wh, 'interop', 'k_append', 'bm'],
        ['create-branch', wh, 'interop', 'k_append', 'bt'],
        ['write-loop', wh, 'interop', 'k_append$branch_bm', '1', '0', String(MERGED_ROW)],
        ['write-loop', wh, 'interop', 'k_append$branch_bt', '1', '0', String(MERGED_ROW + 1)],
      ]),
    args: (t): Args => (t === 'k_append' ? { table: `interop.${t}`, source_branch: 'bm', target_branch: 'bt' } : { table: `interop.${t}`, source_branch: 'b1' }),
    refuses: (t) => (t === 'k_append' ? undefined : 'a primary-key table'),
    expect: (c) => {
      assert.equal(Number(row(c.outcome).merged_files), 1, "bm's one data file");
      const ids = c.rows('branch:bt').map((r) => r.slice(0, r.indexOf('|')));
      assert.deepEqual(ids, [String(MERGED_ROW), String(MERGED_ROW + 1)], "bt reads its own row and bm's");
      assert.deepEqual(c.meta.branches, ['b1', 'bm', 'bt']);
    },
  },
  {
    proc: 'rollback_to_watermark',
    args: (t) => ({ table: `interop.${t}`, watermark: 4102444800000 }),
    either: 'the history carries no watermarks',
  },
  {
    proc: 'compact_database',
    args: (t) => ({ including_databases: 'interop', including_tables: `interop.${t}` }),
    noop: (t) => (t === 'k_append' ? 'its few small files are below the append compaction threshold' : undefined),
    expect: (c) => assert.ok(latest(c) > Math.max(...c.before.snapshots), 'a compaction snapshot'),
  },
  {
    proc: 'reset_consumer',
    args: (t) => ({ table: `interop.${t}`, consumer_id: 'c1', next_snapshot_id: 5 }),
    expect: (c) => assert.ok(existsSync(join(c.wh, `interop.db/${c.table}/consumer/consumer-c1`)), 'the consumer file'),
  },
  { proc: 'clear_consumers', args: (t) => ({ table: `interop.${t}` }), noop: () => 'the history may have no consumers' },
  { proc: 'expire_changelogs', args: (t) => ({ table: `interop.${t}` }), either: 'the tables have no long-lived changelogs' },
  {
    proc: 'expire_partitions',
    args: (t) => ({ table: `interop.${t}`, expiration_time: '1 d', timestamp_formatter: 'yyyy-MM-dd' }),
    refuses: (t) => (t === 'k_pk' ? undefined : 'the table is not partitioned'),
    // No partition expires although every dt is in 2022, in Paimon as here: the values-time
    // strategy formats a partition's internal value, and a DATE's is its day number ("19000"),
    // which no date formatter parses (PartitionExpireStrategy.convertPartition, then
    // PartitionValuesTimeExpireStrategy's DateTimeParseException => not expired).
    noop: () => 'expire_partitions finds no expired partition',
    expect: (c) => assert.deepEqual(c.rows('latest'), [], 'every 2022 partition expired'),
  },
  { proc: 'remove_unexisting_files', args: (t) => ({ table: `interop.${t}` }), noop: () => 'every referenced file exists' },
  { proc: 'compact_manifest', args: (t) => ({ table: `interop.${t}` }), noop: () => 'the manifests may need no compaction' },
  {
    proc: 'mark_partition_done',
    args: (t) => ({ table: `interop.${t}`, partitions: 'dt=2022-01-08' }),
    either: 'partition marking needs partition.mark-done-action options the tables do not set',
  },
  {
    proc: 'purge_files',
    // Ours defaults to a dry run (Paimon purges): dry_run => false purges as Paimon does.
    args: (t) => ({ table: `interop.${t}`, dry_run: false }),
    expect: (c) => {
      assert.deepEqual(c.rows('latest'), [], 'the table is empty');
      assert.deepEqual([c.meta.tags, c.meta.branches, c.meta.files], [[], [], []], 'no tag, branch or data file is left');
    },
  },
  { proc: 'repair_earliest_snapshot', args: (t) => ({ table: `interop.${t}`, snapshot_id: 1 }), either: 'the EARLIEST hint is already right' },
];

/**
 * The cases whose tables Paimon Java's `check` (every snapshot and tag of every branch readable,
 * every referenced file present) also verifies: the ones that rewrite the history or delete files.
 * (A check costs a second or more per table here; Java reads every target of every case anyway.)
 * delete_tag is not checked: once main's tag2 is gone, `check` cannot read b1#tag2 ("Tag 'tag2'
 * doesn't exist") although branch b1 still has its tag file. Paimon 1.4.2 and 2.0.0 resolve a tag
 * read of a branch in main's tag directory (StaticFromTagStartingScanner makes its TagManager from
 * the table path without the branch; fixed upstream after 2.0.0), so before the delete that read
 * was served by main's tag2. engines-flink-call.test.ts shows Flink's delete_tag leaving exactly
 * our files.
 */
const JAVA_CHECK_CASES = ['expire_snapshots', 'merge_branch', 'rollback_to_as_latest', 'fast_forward', 'purge_files', 'compact', 'remove_orphan_files'];

interface CaseRun {
  c: Case;
  wh: string;
  catalog: string;
  before: Map<EngineTable, ReturnType<typeof onDisk>>;
  outcomes: Map<EngineTable, CallOutcome>;
  /** Tables our procedure changed (any file added, removed or rewritten); only these are read. */
  changed: Set<EngineTable>;
  targets: Map<EngineTable, Target[]>;
}

describe(`Flink (paimon-flink-2.0 ${V}) reads our procedures' results`, () => {
  const runs: CaseRun[] = [];
  let flinkRows = new Map<string, string[]>();
  let javaRows = new Map<string, string[]>();
  let meta = new Map<string, FlinkMeta>();
  const javaChecks = new Map<string, StepResult>();
  const started = Date.now();
  const phase = (what: string): void => console.log(`engines-flink: ${what} at ${Math.round((Date.now() - started) / 1000)} s`);

  before(async () => {
    const origin = await enginesWarehouse(V);
    phase('the shared warehouse is ready');
    const known = new Set(builtinProcedures.map((p) => p.name));
    for (const [i, c] of CASES.entries()) {
      if (!known.has(c.proc)) continue;
      const wh = ourCopy(origin, `engines-flink-${c.proc}`);
      await c.prepare?.(wh);
      const before0 = new Map(ENGINE_TABLES.map((t) => [t, onDisk(wh, t)] as const));
      const outcomes = new Map<EngineTable, CallOutcome>();
      const targets = new Map<EngineTable, Target[]>();
      const changed = new Set<EngineTable>();
      for (const t of ENGINE_TABLES) {
        const print = tableFingerprint(wh, t);
        outcomes.set(t, await callNamed(executorFor(wh, builtinProcedures), c.proc, c.args(t, wh)));
        if (tableFingerprint(wh, t) !== print) changed.add(t);
        targets.set(t, changed.has(t) ? targetsOf(wh, t) : []);
      }
      runs.push({ c, wh, catalog: `c${i}`, before: before0, outcomes, changed, targets });
    }
    phase(`our ${runs.length} procedures ran`);
    // Paimon Java: every read and a `check` of every table, in one JVM.
    const steps: string[][] = [];
    const keys: string[] = [];
    for (const r of runs) {
      for (const t of ENGINE_TABLES) {
        for (const target of r.targets.get(t) ?? []) {
          keys.push(`${r.catalog}|${t}|${targetLabel(target)}`);
          steps.push(['read', r.wh, 'interop', t, ...javaTarget(target)]);
        }
        if (r.c.proc === 'rollback_to_as_latest' && r.changed.has(t)) {
          keys.push(`${r.catalog}|${t}|snapshot6`);
          steps.push(['read', r.wh, 'interop', t, '6']);
        }
      }
    }
    const checks = runs.filter((r) => JAVA_CHECK_CASES.includes(r.c.proc)).flatMap((r) => [...r.changed].map((t) => ['check', r.wh, 'interop', t]));
    const outs = await javaBatchAll(V, [...steps, ...checks]);
    const failedRead = outs.slice(0, steps.length).findIndex((o) => !o.ok);
    assert.equal(failedRead, -1, `Paimon Java cannot read ${(steps[failedRead] ?? []).join(' ')}: ${outs[failedRead]?.error ?? ''}`);
    javaRows = new Map(keys.map((k, i) => [k, javaRowTexts(outs[i]?.stdout ?? '')]));
    checks.forEach((step, i) => javaChecks.set(`${step[1]}|${step[3]}`, outs[steps.length + i]!));
    phase('Paimon Java read and checked every table');
    // Flink: every read in one job, every system table in another.
    for (const r of runs) await flinkCatalog(peer, r.catalog, r.wh);
    const reads = runs.flatMap((r) =>
      ENGINE_TABLES.flatMap((t) => (r.targets.get(t) ?? []).map((target) => ({ key: `${r.catalog}|${t}|${targetLabel(target)}`, catalog: r.catalog, table: t, target }))),
    );
    flinkRows = await flinkReadMany(peer, reads);
    phase(`Flink read ${reads.length} targets`);
    meta = await flinkMetaMany(
      peer,
      runs.flatMap((r) => [...r.changed].map((t) => ({ key: `${r.catalog}|${t}`, catalog: r.catalog, table: t }))),
    );
    phase('Flink read the system tables');
  });

  after(async () => {
    const s = await peer.stats().catch(() => null);
    console.log(`engines-flink: Flink JVM peak RSS ${s?.vmHwmKb ?? '?'} kB; ${Date.now() - started} ms`);
    peer.stop();
  });

  test('every built-in procedure has a case here', () => {
    const missing = builtinProcedures.map((p) => p.name).filter((n) => !CASES.some((c) => c.proc === n));
    assert.deepEqual(missing, [], 'add a case for each new procedure');
  });

  for (const c of CASES) {
    test(`${c.proc}: Flink reads the latest snapshot, tags, branches and system tables as Paimon Java and our result say`, async () => {
      const r: CaseRun | undefined = runs.find((x) => x.c === c);
      if (r === undefined) throw new Error('the case did not run');
      for (const t of ENGINE_TABLES) {
        const where = `${c.proc} on ${t}`;
        const outcome: CallOutcome = r.outcomes.get(t)!;
        const refusal = c.refuses?.(t);
        if (c.either !== undefined) {
          if (!outcome.ok) assert.notEqual(outcome.error.code, 'INTERNAL_ERROR', `${where}: ${outcome.error.message}`);
        } else if (refusal !== undefined) {
          assert.equal(outcome.ok, false, `${where}: expected a refusal (${refusal})`);
          if (!outcome.ok) assert.notEqual(outcome.error.code, 'INTERNAL_ERROR', `${where}: ${outcome.error.message}`);
        } else {
          assert.ok(outcome.ok, `${where}: ${outcome.ok ? '' : `${outcome.error.code}: ${outcome.error.message}`}`);
        }
        if (!r.changed.has(t)) {
          // Nothing to read that the shared warehouse does not already hold; a procedure that
          // should have acted but left the table as it was is a failure.
          const why = refusal ?? c.either ?? c.noop?.(t);
          assert.ok(why !== undefined, `${where}: our procedure succeeded but changed no file`);
          continue;
        }
        assert.ok(refusal === undefined, `${where}: our refusal changed files`);
        const rowsOf = (label: string): string[] => flinkRows.get(`${r.catalog}|${t}|${label}`) ?? [];
        for (const target of r.targets.get(t) ?? []) {
          const label = targetLabel(target);
          const java: string[] = javaRows.get(`${r.catalog}|${t}|${label}`) ?? [];
          assert.deepEqual(rowsOf(label), java, `${where}, ${label}: Flink reads what Paimon Java reads`);
        }
        if (JAVA_CHECK_CASES.includes(c.proc)) {
          const check = javaChecks.get(`${r.wh}|${t}`);
          assert.ok(check?.ok, `${where}: Paimon Java's check fails on our result: ${check?.error ?? 'not run'}`);
        }
        const m: FlinkMeta = meta.get(`${r.catalog}|${t}`)!;
        const disk = onDisk(r.wh, t);
        assert.deepEqual(m.snapshots, disk.snapshots, `${where}: $snapshots = the snapshot files`);
        assert.deepEqual(
          m.tags.map((x: string) => x.slice(0, x.lastIndexOf('@'))),
          disk.tags,
          `${where}: $tags = the tag files`,
        );
        assert.deepEqual(m.branches, disk.branches, `${where}: $branches = the branch directories`);
        assert.deepEqual(m.files, await liveDataFiles(r.wh, 'interop', t), `${where}: $files = the live data files`);
        if (refusal === undefined && c.either === undefined && c.expect) {
          const rows = (label: string): string[] => (label === 'snapshot6' ? (javaRows.get(`${r.catalog}|${t}|snapshot6`) ?? []) : rowsOf(label));
          c.expect({ table: t, wh: r.wh, outcome, before: r.before.get(t)!, after: disk, meta: m, rows });
        }
      }
    });
  }

  test('a Flink streaming read from the latest snapshot after each procedure reads exactly the rows committed after it', async () => {
    // One changed table per case, the table kinds in turn: one streaming job of them all. Not
    // k_agg: Paimon refuses a streaming read of an aggregation table without a 'lookup' or
    // 'full-compaction' changelog producer ("Pre-aggregate streaming reading is not supported").
    const tables: StreamTable[] = [];
    for (const r of runs) {
      const kinds = ENGINE_TABLES.filter((x) => r.changed.has(x) && x !== 'k_agg');
      const t = kinds[tables.length % Math.max(kinds.length, 1)];
      if (t !== undefined) tables.push({ key: `${r.c.proc}|${t}`, catalog: `s${tables.length}`, wh: r.wh, table: t });
    }
    assert.ok(tables.length >= 20, `only ${tables.length} cases changed a table`);
    // Paimon Java commits one row per table and round (write-loop's row i: i, day 19000 + i % 10, wi, i).
    const commit = async (round: number, pending: readonly StreamTable[]): Promise<Map<string, string>> => {
      const i = STREAM_FIRST_ROW + round;
      await javaBatch(V, pending.map((t) => ['write-loop', t.wh, 'interop', t.table, '1', '0', String(i)]));
      const day = new Date((19000 + (i % 10)) * 86_400_000).toISOString().slice(0, 10);
      return new Map(pending.map((t) => [t.key, `${i}|${day}|w${i}|${i}`]));
    };
    const got = await flinkStreamLatest(peer, tables, commit);
    phase(`Flink streamed from ${tables.length} tables`);
    for (const t of tables) {
      const { streamed, committed } = got.get(t.key)!;
      assert.ok(streamed.length > 0 && streamed.includes(committed[committed.length - 1]!), `${t.key}: the stream read the row committed after our procedure (got ${streamed.join(', ') || 'nothing'})`);
      // Nothing of the history before (latest mode), no row twice.
      assert.deepEqual(streamed.filter((x) => !committed.includes(x)), [], `${t.key}: only rows committed after the job started`);
      assert.equal(new Set(streamed).size, streamed.length, `${t.key}: no row twice`);
    }
  });

  test('Flink INSERT into every table our procedures changed, then Flink CALL sys.compact after every case: Java reads them', async () => {
    const inserts = runs.flatMap((r) => [...r.changed].map((t) => `INSERT INTO \`${r.catalog}\`.\`interop\`.\`${t}\` VALUES (1000, DATE '2024-02-02', 'flink', 7)`));
    await peer.sql(`EXECUTE STATEMENT SET BEGIN ${inserts.join(';\n')}; END`, { timeoutMs: 600_000 });
    phase('Flink inserted into every table');
    const compacted = new Map<CaseRun, EngineTable>();
    for (const [i, r] of runs.filter((x) => x.changed.size > 0).entries()) {
      const kinds = ENGINE_TABLES.filter((x) => r.changed.has(x));
      const t = kinds[i % kinds.length];
      assert.ok(t !== undefined, `${r.c.proc} changed no table`);
      compacted.set(r, t);
      await peer.sql(`CALL \`${r.catalog}\`.sys.compact(\`table\` => 'interop.${t}')`, { timeoutMs: 300_000 });
    }
    phase(`Flink compacted ${compacted.size} tables`);
    // Java reads every table Flink wrote and checks each one Flink compacted.
    const reads = runs.flatMap((r) => [...r.changed].map((t) => ({ r, t })));
    // Not where main's tag2 is gone while branch b1 keeps its own (delete_tag, rename_tag): Paimon's
    // check then cannot read b1#tag2, compacted or not (see JAVA_CHECK_CASES).
    const tagReadable = (wh: string, t: string): boolean => {
      const dir = join(wh, 'interop.db', t);
      return existsSync(join(dir, 'tag', 'tag-tag2')) || !existsSync(join(dir, 'branch', 'branch-b1', 'tag', 'tag-tag2'));
    };
    const checks = [...compacted].filter(([r, t]) => tagReadable(r.wh, t)).map(([r, t]) => ['check', r.wh, 'interop', t]);
    const outs = await javaBatch(V, [...reads.map(({ r, t }) => ['read', r.wh, 'interop', t]), ...checks]);
    for (const [k, { r, t }] of reads.entries()) {
      const rows = javaRowTexts(outs[k] ?? '');
      // Level-0 files of a deletion-vector table are invisible until compacted.
      if (t !== 'k_dv' || compacted.get(r) === t) assert.ok(rows.includes('1000|2024-02-02|flink|7'), `${r.c.proc} on ${t}: Java reads Flink's row`);
    }
  });
});
