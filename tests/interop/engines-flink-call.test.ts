/**
 * Flink's own CALL sys.<procedure> (paimon-flink-2.0 at Paimon 1.4.2 and 2.0.0) as the
 * differential peer: on two copies of the same Java-written histories (ENGINE_TABLES, each with
 * tag2 and branch b1), Flink's procedure runs on one and ours on the other, with the same
 * arguments. Both must end with the same snapshots, tags, branches and files on disk (the whole
 * table tree, or, where the procedure writes new uniquely named files, the same snapshots, tags and
 * branches, the same number of live data files, and the same rows), Paimon Java must read the same
 * rows from both (one Java JVM per version, in the last test) and, for the cases that rewrite
 * history or write files (JAVA_CHECK_CASES), its `check` must pass on ours; the result columns
 * Paimon defines must agree.
 *
 * Where Flink and we differ on purpose, the case asserts the difference, so a change on either side
 * is noticed: `oursExtra` (fast_forward over commits after the fork needs our force; purge_files is
 * a dry run unless dry_run => false) and `oursRefuses` / `flinkRefuses` (delete_tag of a missing
 * tag: Paimon succeeds, we refuse).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinProcedures } from '../../procedures/index.js';
import type { CallOutcome } from '../../procedures/framework/executor.js';
import { FLINK_PAIMON_VERSIONS, flink, type FlinkPaimonVersion, type FlinkResult } from './flink-peer.js';
import { ENGINE_TABLES, enginesWarehouse, flinkCatalog, javaBatchAll, javaRowTexts, onDisk, orphanPath, type EngineTable } from './engines-support.js';
import { callNamed, executorFor, javaAndOurCopies, liveDataFiles, listTree, plant } from './procedures-support.js';

type Value = string | number | boolean;

interface Case {
  proc: string;
  /** The tables the case runs on (default: every ENGINE_TABLES table). */
  tables?: readonly EngineTable[];
  /** The test's name where a procedure has more than one case. */
  name?: string;
  /** Arguments, the same for both: a number is a BIGINT/INT literal, a string a string literal. */
  args: (table: string, wh: string) => Record<string, Value>;
  /**
   * Flink takes these arguments positionally, in this order: a procedure with overloaded signatures
   * (create_branch) refuses named arguments ("Function must not be overloaded").
   */
  flinkPositional?: string[];
  /**
   * Arguments only ours gets (our safety switches). Without them ours first runs and must change
   * nothing: it refuses (`refuses`) or only reports (`dry-run`), for the reason `why`.
   */
  oursExtra?: { args: Record<string, Value>; without: 'refuses' | 'dry-run'; why: string };
  /** Flink argument types where a literal must be cast (e.g. snapshot_id BIGINT). */
  flinkCasts?: Record<string, string>;
  prepare?: (wh: string) => void;
  /**
   * The procedure writes new uniquely named files: compare the live data file count, not the names;
   * `shape` compares every file too, by directory and name with its unique part masked.
   */
  writesFiles?: boolean | 'shape';
  /** Extra read targets for Java on both copies. */
  reads?: string[];
  /** Result columns: Flink's answer against ours. */
  results?: (flinkRes: FlinkResult, ours: Record<string, unknown>, table: EngineTable) => void;
  /** Flink versions on which the procedure does not exist or refuses, with the reason (asserted). */
  flinkRefuses?: (v: FlinkPaimonVersion, table: EngineTable) => string | undefined;
  /** Tables where we refuse, with the reason (asserted: not INTERNAL_ERROR). */
  oursRefuses?: (table: EngineTable) => string | undefined;
}

const pad = (n: number): string => String(n).padStart(2, '0');
/** 'yyyy-MM-dd HH:mm:ss' in this process's zone (the Flink JVM and our proxy read the same TZ). */
function localTimestamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

function snapshotMillis(wh: string, table: string, id: number): number {
  return (JSON.parse(readFileSync(join(wh, 'interop.db', table, 'snapshot', `snapshot-${id}`), 'utf8')) as { timeMillis: number }).timeMillis;
}

const only = (r: FlinkResult): unknown => r.rows[0]?.[r.columns[0] ?? ''];

const CASES: Case[] = [
  {
    proc: 'expire_snapshots',
    // Every snapshot of the shared history is older than this (it is built before the tests run).
    args: (t) => ({ table: `interop.${t}`, retain_min: 1, retain_max: 3, older_than: localTimestamp(Date.now() - 1000) }),
    results: (f, ours) => assert.equal(Number(only(f)), Number(ours.deleted_snapshots_count), "Flink's result is the number of expired snapshots"),
  },
  {
    proc: 'create_tag',
    args: (t) => ({ table: `interop.${t}`, tag: 'tf', snapshot_id: 5 }),
    flinkCasts: { snapshot_id: 'BIGINT' },
  },
  { proc: 'delete_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tag2' }) },
  // Flink's names are tagName and targetTagName; ours takes them as aliases.
  { proc: 'rename_tag', args: (t) => ({ table: `interop.${t}`, tagName: 'tag2', targetTagName: 'tag2r' }) },
  { proc: 'replace_tag', args: (t) => ({ table: `interop.${t}`, tag: 'tag2', snapshot_id: 5 }), flinkCasts: { snapshot_id: 'BIGINT' } },
  {
    proc: 'create_tag_from_timestamp',
    args: (t, wh) => ({ table: `interop.${t}`, tag: 'tts', timestamp: snapshotMillis(wh, t, 6) }),
    flinkCasts: { timestamp: 'BIGINT' },
  },
  { proc: 'rollback_to', name: 'rollback_to (snapshot)', args: (t) => ({ table: `interop.${t}`, snapshot_id: 6 }), flinkCasts: { snapshot_id: 'BIGINT' } },
  { proc: 'rollback_to', name: 'rollback_to (tag)', args: (t) => ({ table: `interop.${t}`, tag: 'tag2' }) },
  {
    proc: 'rollback_to_timestamp',
    args: (t, wh) => ({ table: `interop.${t}`, timestamp: snapshotMillis(wh, t, 6) }),
    flinkCasts: { timestamp: 'BIGINT' },
  },
  {
    proc: 'create_branch',
    args: (t) => ({ table: `interop.${t}`, branch: 'b2', tag: 'tag2' }),
    flinkPositional: ['table', 'branch', 'tag'],
    reads: ['branch:b2'],
  },
  { proc: 'delete_branch', args: (t) => ({ table: `interop.${t}`, branch: 'b1' }) },
  {
    proc: 'fast_forward',
    args: (t) => ({ table: `interop.${t}`, branch: 'b1' }),
    // Main has commits after b1's fork (tag2): Paimon replaces them unasked, ours only with force.
    oursExtra: { args: { force: true }, without: 'refuses', why: 'main has commits after the fork' },
  },
  {
    proc: 'purge_files',
    args: (t) => ({ table: `interop.${t}` }),
    // The truncation commit writes new manifests.
    writesFiles: 'shape',
    oursExtra: { args: { dry_run: false }, without: 'dry-run', why: 'our purge_files defaults to dry_run => true' },
  },
  {
    proc: 'create_tag',
    name: 'create_tag of an existing name',
    args: (t) => ({ table: `interop.${t}`, tag: 'tag2', snapshot_id: 5 }),
    flinkCasts: { snapshot_id: 'BIGINT' },
    flinkRefuses: () => 'the tag exists',
    oursRefuses: () => 'the tag exists',
  },
  {
    proc: 'delete_tag',
    name: 'delete_tag of a missing tag',
    args: (t) => ({ table: `interop.${t}`, tag: 'no_such_tag' }),
    // Paimon logs a warning and succeeds; ours says the tag is not there.
    oursRefuses: () => 'the tag does not exist',
  },
  {
    proc: 'remove_orphan_files',
    prepare: (wh) => {
      for (const t of ENGINE_TABLES) plant(wh, orphanPath(wh, t));
    },
    // mode 'local': Flink's default 'distributed' costs a Flink job per call; both count alike.
    args: (t) => ({ table: `interop.${t}`, mode: 'local' }),
    // Flink answers two rows in its one column: the deleted file count, then their total bytes.
    results: (f, ours) => {
      assert.equal(Number(ours.deletedFileCount), 1, 'the planted orphan only');
      assert.deepEqual(
        f.rows.map((r) => Number(r[f.columns[0] ?? ''])),
        [Number(ours.deletedFileCount), Number(ours.deletedFileTotalLenInBytes)],
        `Flink's answer: ${JSON.stringify(f)}`,
      );
    },
  },
  { proc: 'compact', args: (t) => ({ table: `interop.${t}` }), writesFiles: true },
  {
    proc: 'expire_partitions',
    tables: ['k_pk'],
    args: (t) => ({ table: `interop.${t}`, expiration_time: '1 d', timestamp_formatter: 'yyyy-MM-dd' }),
    writesFiles: true,
  },
];

/** The cases after which Paimon Java's `check` runs on our copy: the ones that rewrite history or write files. */
const JAVA_CHECK_CASES = ['compact', 'fast_forward', 'purge_files', 'expire_snapshots', 'rollback_to'];

function flinkCall(catalog: string, c: Case, args: Record<string, Value>): string {
  const lit = (k: string, v: Value): string => {
    const s = typeof v === 'string' ? `'${v.replace(/'/g, "''")}'` : String(v);
    const cast = c.flinkCasts?.[k];
    return cast ? `CAST(${s} AS ${cast})` : s;
  };
  const list = c.flinkPositional
    ? c.flinkPositional.map((k) => lit(k, args[k]!))
    : Object.entries(args).map(([k, v]) => `\`${k}\` => ${lit(k, v)}`);
  return `CALL \`${catalog}\`.sys.${c.proc}(${list.join(', ')})`;
}

function ourRow(o: CallOutcome): Record<string, unknown> {
  if (!o.ok) throw new Error(`ours failed: ${o.error.code}: ${o.error.message}`);
  return o.result.rows[0] ?? {};
}

/** Every file of a table by directory and name, the UUID-and-counter part of the name masked. */
function treeShape(dir: string): string[] {
  return listTree(dir)
    .map((f) => f.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(-\d+)?/g, '*'))
    .sort();
}

/** The comparable on-disk state of a table besides file names: snapshot ids and what each tag points at. */
function tagTargets(wh: string, table: string): string[] {
  return onDisk(wh, table).tags.map((tag) => {
    const p = join(wh, 'interop.db', table, 'tag', `tag-${tag}`);
    return `${tag}@${existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as { id: number }).id : '?'}`;
  });
}

for (const v of FLINK_PAIMON_VERSIONS) {
  describe(`Flink CALL (paimon-flink-2.0 ${v}) vs ours, on copies of the same histories`, () => {
    const peer = flink(v);
    let origin: string;
    let seq = 0;
    before(async () => {
      origin = await enginesWarehouse(v);
    });
    after(async () => {
      const s = await peer.stats().catch(() => null);
      console.log(`engines-flink-call ${v}: Flink JVM peak RSS ${s?.vmHwmKb ?? '?'} kB`);
      peer.stop();
    });

    test('every case names a procedure we have', () => {
      for (const c of CASES) assert.ok(builtinProcedures.some((p) => p.name === c.proc), c.proc);
    });

    // Paimon Java's reads of both copies and checks of ours, gathered by the cases and run in ONE
    // JVM by the last test (a JVM start costs seconds here).
    const javaSteps: { step: string[]; label: string }[] = [];

    for (const c of CASES) {
      const label = c.name ?? c.proc;
      test(`${label}: the same snapshots, tags, branches and files as Flink's CALL`, async () => {
        const { a, b } = await javaAndOurCopies(origin, `flink-call-${v}-${CASES.indexOf(c)}-${c.proc}`, async (wh) => c.prepare?.(wh));
        const catalog = `f${seq++}`;
        await flinkCatalog(peer, catalog, a);
        for (const t of c.tables ?? ENGINE_TABLES) {
          const args = c.args(t, a);
          const fr = await peer.trySql(flinkCall(catalog, c, args), { timeoutMs: 300_000 });
          if (c.oursExtra) {
            const x = c.oursExtra;
            const tree = listTree(join(b, 'interop.db', t));
            const without = await callNamed(executorFor(b, builtinProcedures), c.proc, args);
            const what = `ours on ${t} without ${Object.keys(x.args).join(', ')} (${x.why})`;
            if (x.without === 'refuses') {
              assert.equal(without.ok, false, `${what}: expected a refusal`);
              if (!without.ok) assert.notEqual(without.error.code, 'INTERNAL_ERROR', without.error.message);
            } else {
              assert.ok(without.ok && without.result.rows.every((r) => r.dry_run === true), `${what}: expected a dry run`);
            }
            assert.deepEqual(listTree(join(b, 'interop.db', t)), tree, `${what}: nothing changed`);
          }
          const ours = await callNamed(executorFor(b, builtinProcedures), c.proc, { ...args, ...c.oursExtra?.args });
          const flinkRefusal = c.flinkRefuses?.(v, t);
          const ourRefusal = c.oursRefuses?.(t);
          if (flinkRefusal !== undefined) assert.equal(fr.ok, false, `Flink ${v} ${c.proc} on ${t}: expected to refuse (${flinkRefusal})`);
          else assert.ok(fr.ok, `Flink ${v} ${c.proc} on ${t}: ${fr.ok ? '' : fr.error}`);
          if (ourRefusal !== undefined) {
            assert.equal(ours.ok, false, `ours on ${t}: expected a refusal (${ourRefusal})`);
            if (!ours.ok) assert.notEqual(ours.error.code, 'INTERNAL_ERROR', ours.error.message);
          } else {
            assert.ok(ours.ok, `ours on ${t}: ${ours.ok ? '' : `${ours.error.code}: ${ours.error.message}`}`);
            if (fr.ok && c.results) c.results(fr, ourRow(ours), t);
          }
          const where = `${c.proc} on ${t} (Paimon ${v})`;
          const da = onDisk(a, t);
          const db = onDisk(b, t);
          assert.deepEqual(db.snapshots, da.snapshots, `${where}: the same snapshots`);
          assert.deepEqual(tagTargets(b, t), tagTargets(a, t), `${where}: the same tags on the same snapshots`);
          assert.deepEqual(db.branches, da.branches, `${where}: the same branches`);
          if (c.writesFiles) {
            assert.equal((await liveDataFiles(b, 'interop', t)).length, (await liveDataFiles(a, 'interop', t)).length, `${where}: as many live data files`);
            if (c.writesFiles === 'shape') assert.deepEqual(treeShape(join(b, 'interop.db', t)), treeShape(join(a, 'interop.db', t)), `${where}: the same files but for their unique names`);
          } else {
            assert.deepEqual(listTree(join(b, 'interop.db', t)), listTree(join(a, 'interop.db', t)), `${where}: the same files on disk`);
          }
          for (const target of [undefined, ...(c.reads ?? []), ...db.tags.map((x) => `tag:${x}`), ...db.branches.map((x) => `branch:${x}`)]) {
            const at = target === undefined ? [] : [target];
            javaSteps.push({ step: ['read', a, 'interop', t, ...at], label }, { step: ['read', b, 'interop', t, ...at], label });
          }
          if (JAVA_CHECK_CASES.includes(c.proc)) javaSteps.push({ step: ['check', b, 'interop', t], label });
        }
      });
    }

    test('Paimon Java reads the same rows from both copies of every case, and checks ours', async () => {
      const outs = await javaBatchAll(v, javaSteps.map((s) => s.step));
      const broken = outs.map((o, i) => (o.ok ? '' : `${javaSteps[i]!.label}: ${javaSteps[i]!.step.join(' ')}: ${o.error ?? ''}`)).filter((x) => x !== '');
      assert.deepEqual(broken, [], 'every Java read and check succeeds');
      for (let i = 0; i < javaSteps.length; i++) {
        const { step, label } = javaSteps[i]!;
        if (step[0] !== 'read' || !step[1]!.endsWith('/java')) continue;
        assert.deepEqual(javaRowTexts(outs[i + 1]!.stdout), javaRowTexts(outs[i]!.stdout), `${label}: Paimon Java reads the same rows from both: ${step.slice(3).join(' ')}`);
      }
    });
  });
}
