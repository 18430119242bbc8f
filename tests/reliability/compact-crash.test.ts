/**
 * Crash safety of compact, for each compaction path: full compaction of a fixed-bucket
 * primary-key table, sort compaction (`order_strategy => 'zorder'`) of an unaware-bucket append
 * table, and full compaction of a deletion-vector primary-key table (vectors written by Paimon
 * Java's own deletes). Every table is written by Paimon Java 1.4. The procedure runs in a child
 * process (crash-runner.ts) that SIGKILLs itself right before its N-th mutating storage call, for N
 * spread over the whole run (data files, index files, manifests, snapshot, LATEST hint), and is also
 * SIGKILLed at wall-clock offsets taken as fractions of how long an uninterrupted compaction took
 * on this machine (counted from the runner's `started` marker). After every kill:
 *  - Paimon Java's `check` reads every snapshot (no referenced file is missing);
 *  - Paimon Java reads exactly the rows it read before the compaction when the snapshot did not
 *    land, or exactly the rows it reads after an uninterrupted compaction when it did (for the
 *    deletion-vector table these differ only if level-0 rows were waiting, as in Paimon);
 *  - no file that existed before is gone (only new, unreferenced files may be left: orphans);
 *  - unless the snapshot landed, the latest snapshot is unchanged; if it landed it is ours and of
 *    the path's commit kind (COMPACT, or OVERWRITE for a sort compaction);
 * and a rerun completes, after which Java reads the compacted rows. The Java checks of all kill
 * points of a case run in one JVM (PaimonTool batch), to keep the runtime modest.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { java, tempWarehouse, copyWarehouse, parseJsonLines, type JsonObj, type Row, type TableSpec } from '../interop/peers.js';
import { listTree } from '../interop/procedures-support.js';
import { closeDataEngine } from '../../src/paimon/data/duckdb-engine.js';

after(async () => {
  await closeDataEngine();
});

const RUNNER = resolve(import.meta.dirname, 'crash-runner.ts');

interface RunResult {
  killed: boolean;
  mutations: number;
  ok: boolean;
  error: string | null;
  elapsedMs: number;
}

function run(wh: string, args: Record<string, string>, killAt?: number, killAfterMs?: number): Promise<RunResult> {
  return new Promise((done, fail) => {
    const argv = ['--import', 'tsx', RUNNER, wh, 'compact', JSON.stringify(args), ...(killAt === undefined ? [] : [String(killAt)])];
    const child = execFile(process.execPath, argv, { timeout: 180_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (timer) clearTimeout(timer);
      if (err && (err as { signal?: string }).signal === 'SIGKILL') return done({ killed: true, mutations: killAt ?? -1, ok: false, error: null, elapsedMs: -1 });
      try {
        const r = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { mutations: number; ok: boolean; error: string | null; elapsedMs: number };
        done({ killed: false, ...r });
      } catch {
        fail(new Error(`runner failed: ${err?.message ?? ''} ${stderr.slice(-2000)}`));
      }
    });
    // Wall-clock kills land anywhere, including while data files are written (local data files
    // are moved into place by publishLocalFile directly, outside the FileIO hook the mutation counter sees).
    // The clock starts when the runner says the procedure has started (not at process start, whose
    // cost varies from machine to machine: a fixed offset from the spawn missed the run on a faster machine).
    let timer: NodeJS.Timeout | null = null;
    if (killAfterMs !== undefined) {
      child.stderr?.on('data', (chunk: Buffer | string) => {
        if (timer === null && String(chunk).includes('started')) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      });
    }
  });
}

const canon = (rows: JsonObj[]): string[] => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();
const latestId = (wh: string): string => readFileSync(join(wh, 'db.db/t/snapshot/LATEST'), 'utf8').trim();
const snapshotJson = (wh: string, id: number): { commitKind: string; commitUser: string } =>
  JSON.parse(readFileSync(join(wh, `db.db/t/snapshot/snapshot-${id}`), 'utf8')) as { commitKind: string; commitUser: string };

/** Java check + read of many warehouses in one JVM: rows per warehouse (throws naming the first failure). */
async function javaCheckAndRead(whs: readonly string[], check: boolean): Promise<string[][]> {
  const steps = whs.flatMap((wh) => [...(check ? [['check', wh, 'db', 't']] : []), ['read', wh, 'db', 't']]);
  const res = await java('1.4').batch(steps);
  const per = check ? 2 : 1;
  for (let i = 0; i < steps.length; i++) {
    const r = res[i];
    assert.ok(r !== undefined && r.ok, `Java ${steps[i][0]} of ${steps[i][1]} failed: ${r?.error ?? 'not run (an earlier step failed)'}`);
  }
  return whs.map((_, i) => canon(parseJsonLines(res[i * per + per - 1].stdout) as Row[]));
}

interface CrashCase {
  name: string;
  label: string;
  args: Record<string, string>;
  /** Commit kind of the snapshot the procedure writes. */
  kind: 'COMPACT' | 'OVERWRITE';
  build(wh: string): Promise<void>;
  /** Extra assertion on the uninterrupted run's table (the case exercises the path it claims to). */
  probeCheck?(probe: string, origin: string): void;
  fractions: number[];
}

const peer = java('1.4');

const CASES: CrashCase[] = [
  {
    name: 'full compaction of a fixed-bucket primary-key table',
    label: 'pk',
    args: { table: 'db.t' },
    kind: 'COMPACT',
    fractions: [0.15, 0.35, 0.55, 0.75],
    async build(wh) {
      const spec: TableSpec = {
        fields: [{ name: 'dt', type: 'STRING NOT NULL' }, { name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }],
        primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2', 'write-only': 'true' },
      };
      await peer.createTable(wh, 'db', 't', spec);
      for (let c = 0; c < 4; c++) {
        const batch: JsonObj[] = [];
        for (let k = 0; k < 10; k++) {
          const id = (c * 3 + k) % 14;
          batch.push({ dt: k % 2 === 0 ? 'a' : 'b', id, v: `v${c}-${k}`, ...(c === 3 && k % 4 === 0 ? { _rowKind: '-D' } : {}) });
        }
        await peer.write(wh, 'db', 't', batch);
      }
    },
  },
  {
    name: "sort compaction (order_strategy => 'zorder') of an unaware-bucket append table",
    label: 'zorder',
    args: { table: 'db.t', order_strategy: 'zorder', order_by: 'a,b', options: 'target-file-size=2 kb' },
    kind: 'OVERWRITE',
    fractions: [0.2, 0.5, 0.8],
    async build(wh) {
      const spec: TableSpec = {
        fields: [{ name: 'dt', type: 'STRING NOT NULL' }, { name: 'a', type: 'INT' }, { name: 'b', type: 'BIGINT' }, { name: 's', type: 'STRING' }],
        primaryKeys: [], partitionKeys: ['dt'], options: { bucket: '-1', 'write-only': 'true' },
      };
      await peer.createTable(wh, 'db', 't', spec);
      for (let c = 0; c < 4; c++) {
        const batch: JsonObj[] = [];
        for (let k = 0; k < 60; k++) {
          const n = c * 60 + k;
          batch.push({ dt: n % 3 === 0 ? 'p0' : 'p1', a: n % 11 === 0 ? null : (n * 7919) % 503, b: (n * 104729) % 977, s: `s${n % 13}-${c}` });
        }
        await peer.write(wh, 'db', 't', batch);
      }
    },
    probeCheck(wh) {
      // Java wrote 4 files in each of the 2 partitions; the sort compaction adds new ones in both.
      const files = listTree(join(wh, 'db.db/t')).filter((f) => /^dt=p\d\/bucket-0\/data-/.test(f));
      assert.ok(files.length >= 8 + 2, `sort compaction wrote new files in both partitions (tree: ${files.length} data files)`);
    },
  },
  {
    name: 'full compaction of a deletion-vector primary-key table',
    label: 'dv',
    args: { table: 'db.t', compact_strategy: 'full' },
    kind: 'COMPACT',
    fractions: [0.2, 0.5, 0.8],
    async build(wh) {
      const spec: TableSpec = {
        fields: [{ name: 'dt', type: 'STRING NOT NULL' }, { name: 'id', type: 'INT NOT NULL' }, { name: 'name', type: 'STRING' }, { name: 'amount', type: 'BIGINT' }],
        primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2', 'deletion-vectors.enabled': 'true' },
      };
      await peer.createTable(wh, 'db', 't', spec);
      // Upserts over a sliding key range with deletes of earlier keys; the Java writer's lookup
      // compaction turns the deletes and updates of compacted keys into deletion vectors.
      const dir = tempWarehouse('compact-crash-dv-rows');
      const steps: string[][] = [];
      for (let c = 0; c < 6; c++) {
        const rows: Row[] = [];
        for (let k = 0; k < 30; k++) {
          const id = (c * 13 + k * 3) % 47;
          const r: Row = { dt: id % 3 === 0 ? 'x' : 'y', id, name: k % 5 === 0 ? null : `n${c}-${k}`, amount: c * 1000 + k };
          if (c >= 2 && k % 6 === 0) r._rowKind = '-D';
          rows.push(r);
        }
        const f = join(dir, `c${c}.jsonl`);
        writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
        steps.push(['write', wh, 'db', 't', f]);
      }
      const res = await peer.batch(steps);
      const bad = res.find((r) => !r.ok);
      assert.equal(bad, undefined, `Java write failed: ${bad?.error ?? ''}`);
      const index = listTree(join(wh, 'db.db/t')).filter((f) => f.startsWith('index/'));
      assert.ok(index.length > 0, 'the Java writer left deletion-vector index files');
    },
    probeCheck(probe, origin) {
      // The compaction applied vectors and committed new index files (the index step is among the kill points).
      const before = new Set(listTree(join(origin, 'db.db/t')).filter((f) => f.startsWith('index/')));
      const added = listTree(join(probe, 'db.db/t')).filter((f) => f.startsWith('index/') && !before.has(f));
      assert.ok(added.length > 0, 'the compaction wrote new deletion-vector index files');
    },
  },
];

for (const cs of CASES) {
  describe(`compact survives SIGKILL at any storage step: ${cs.name}`, () => {
    let origin: string;
    let rowsBefore: string[];
    let rowsCompacted: string[];
    let total: number;
    let elapsedMs: number;

    before(async () => {
      origin = tempWarehouse(`compact-crash-${cs.label}`);
      await cs.build(origin);
      const probe = copyWarehouse(origin, `compact-crash-${cs.label}-probe`);
      const r = await run(probe, cs.args);
      assert.ok(r.ok, `uninterrupted run failed: ${r.error}`);
      total = r.mutations;
      elapsedMs = r.elapsedMs;
      assert.ok(total >= 4, `expected several storage steps, got ${total}`);
      const landed = Number(latestId(probe));
      assert.equal(snapshotJson(probe, landed).commitKind, cs.kind);
      cs.probeCheck?.(probe, origin);
      [rowsBefore, rowsCompacted] = await javaCheckAndRead([origin, probe], true);
      if (cs.kind === 'OVERWRITE' || cs.label === 'pk') assert.deepEqual(rowsCompacted, rowsBefore, 'an uninterrupted compaction keeps the rows');
      assert.ok(rowsBefore.length > 0);
    });

    test('every kill point leaves a readable, unchanged table with only orphans added; a rerun completes', async (t) => {
      const timed = cs.fractions.map((f) => Math.max(1, Math.round(f * elapsedMs)));
      const points = [...new Set([1, 2, 3, Math.round(total / 3), Math.round(total / 2), Math.round((2 * total) / 3), total - 2, total - 1, total])]
        .filter((p) => p >= 1 && p <= total)
        .sort((a, b) => a - b);
      const plan: Array<{ p: number; ms?: number }> = [...points.map((p) => ({ p })), ...timed.map((ms) => ({ p: -1, ms }))];
      let timedKills = 0;
      const killed: Array<{ what: string; wh: string; landed: boolean }> = [];
      for (const { p, ms } of plan) {
        const what = ms === undefined ? `kill at storage step ${p} of ${total}` : `kill ${ms} ms into a ${elapsedMs} ms run`;
        const wh = copyWarehouse(origin, `compact-crash-${cs.label}-${p}-${ms ?? 0}`);
        const tableDir = join(wh, 'db.db/t');
        const beforeTree = listTree(tableDir);
        const beforeLatest = Number(latestId(wh));
        const r = ms === undefined ? await run(wh, cs.args, p) : await run(wh, cs.args, undefined, ms);
        if (ms === undefined) assert.ok(r.killed, `${what} did not kill (ok=${r.ok}, ${r.error})`);
        else if (r.killed) timedKills++;
        const afterTree = listTree(tableDir);
        for (const f of beforeTree) assert.ok(afterTree.includes(f) || f === 'snapshot/LATEST', `${f} vanished after ${what}`);
        const landed = existsSync(join(tableDir, `snapshot/snapshot-${beforeLatest + 1}`));
        if (!landed) assert.equal(Number(latestId(wh)), beforeLatest, `latest moved without a snapshot (${what})`);
        else assert.equal(snapshotJson(wh, beforeLatest + 1).commitKind, cs.kind, `the snapshot that landed is the compaction's (${what})`);
        killed.push({ what, wh, landed });
      }
      assert.ok(timedKills >= 1, `at least one wall-clock kill (at ${timed.join(', ')} ms of a ${elapsedMs} ms compaction) hit it`);

      t.diagnostic(`${total} storage steps, ${elapsedMs} ms uninterrupted; ${killed.length} kills, ${killed.filter((k) => k.landed).length} after the snapshot landed; rows before ${rowsBefore.length}, after ${rowsCompacted.length}`);
      const afterKill = await javaCheckAndRead(killed.map((k) => k.wh), true);
      killed.forEach((k, i) => assert.deepEqual(afterKill[i], k.landed ? rowsCompacted : rowsBefore, `rows after ${k.what} (snapshot ${k.landed ? '' : 'not '}landed)`));

      for (const k of killed) {
        const again = await run(k.wh, cs.args);
        assert.ok(again.ok, `rerun after ${k.what}: ${again.error}`);
      }
      const afterRerun = await javaCheckAndRead(killed.map((k) => k.wh), true);
      killed.forEach((k, i) => assert.deepEqual(afterRerun[i], rowsCompacted, `rows after the rerun (${k.what})`));
    });
  });
}
