/**
 * Crash safety of compact: the procedure runs in a child process (crash-runner.ts) that
 * SIGKILLs itself right before its N-th mutating storage call, for N spread over the whole run
 * (data files, manifests, snapshot, LATEST hint), and is also SIGKILLed at wall-clock offsets taken
 * as fractions of how long an uninterrupted compaction took on this machine. After every kill:
 *  - Paimon Java's `check` reads every snapshot (no referenced file is missing);
 *  - Paimon Java reads exactly the rows it read before (whether or not the commit landed);
 *  - no file that existed before is gone (only new, unreferenced files may be left: orphans);
 *  - unless the snapshot landed, the latest snapshot is unchanged;
 * and a rerun compacts the table, after which the rows are still the same.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { java, tempWarehouse, copyWarehouse, type JsonObj, type TableSpec } from '../interop/peers.js';
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

function run(wh: string, killAt?: number, killAfterMs?: number): Promise<RunResult> {
  return new Promise((done, fail) => {
    const argv = ['--import', 'tsx', RUNNER, wh, 'compact', JSON.stringify({ table: 'db.t' }), ...(killAt === undefined ? [] : [String(killAt)])];
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
    // cost varies from machine to machine).
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

describe('compact survives SIGKILL at any storage step', () => {
  const peer = java('1.4');
  let origin: string;
  let rows: string[];
  let total: number;
  let elapsedMs: number;

  before(async () => {
    origin = tempWarehouse('compact-crash');
    const spec: TableSpec = {
      fields: [{ name: 'dt', type: 'STRING NOT NULL' }, { name: 'id', type: 'INT NOT NULL' }, { name: 'v', type: 'STRING' }],
      primaryKeys: ['dt', 'id'], partitionKeys: ['dt'], options: { bucket: '2', 'write-only': 'true' },
    };
    await peer.createTable(origin, 'db', 't', spec);
    for (let c = 0; c < 4; c++) {
      const batch: JsonObj[] = [];
      for (let k = 0; k < 10; k++) {
        const id = (c * 3 + k) % 14;
        batch.push({ dt: k % 2 === 0 ? 'a' : 'b', id, v: `v${c}-${k}`, ...(c === 3 && k % 4 === 0 ? { _rowKind: '-D' } : {}) });
      }
      await peer.write(origin, 'db', 't', batch);
    }
    rows = canon(await peer.read(origin, 'db', 't'));
    const probe = copyWarehouse(origin, 'compact-crash-probe');
    const r = await run(probe);
    assert.ok(r.ok, `uninterrupted run failed: ${r.error}`);
    total = r.mutations;
    elapsedMs = r.elapsedMs;
    assert.ok(total >= 4, `expected several storage steps, got ${total}`);
    assert.deepEqual(canon(await peer.read(probe, 'db', 't')), rows);
  });

  test('every kill point leaves a readable, unchanged table with only orphans added; a rerun completes', async () => {
    const timed = [0.15, 0.35, 0.55, 0.75].map((f) => Math.max(1, Math.round(f * elapsedMs)));
    const points = [...new Set([1, 2, 3, Math.round(total / 3), Math.round(total / 2), Math.round((2 * total) / 3), total - 2, total - 1, total])]
      .filter((p) => p >= 1 && p <= total)
      .sort((a, b) => a - b);
    const plan: Array<{ p: number; ms?: number }> = [...points.map((p) => ({ p })), ...timed.map((ms) => ({ p: -1, ms }))];
    let timedKills = 0;
    for (const { p, ms } of plan) {
      const wh = copyWarehouse(origin, `compact-crash-${p}-${ms ?? 0}`);
      const tableDir = join(wh, 'db.db/t');
      const beforeTree = listTree(tableDir);
      const beforeLatest = latestId(wh);
      const r = ms === undefined ? await run(wh, p) : await run(wh, undefined, ms);
      if (ms === undefined) assert.ok(r.killed, `kill point ${p} of ${total} did not kill (ok=${r.ok}, ${r.error})`);
      else if (r.killed) timedKills++;
      const chk = await peer.check(wh, 'db', 't');
      assert.equal(chk.ok, true, `check after kill at ${p}`);
      assert.deepEqual(canon(await peer.read(wh, 'db', 't')), rows, `rows after kill at ${p}`);
      const afterTree = listTree(tableDir);
      for (const f of beforeTree) assert.ok(afterTree.includes(f) || f === 'snapshot/LATEST', `${f} vanished after kill at ${p}`);
      const landed = existsSync(join(tableDir, `snapshot/snapshot-${Number(beforeLatest) + 1}`));
      if (!landed) assert.equal(latestId(wh), beforeLatest, `latest moved without a snapshot (kill at ${p})`);
      const again = await run(wh);
      assert.ok(again.ok, `rerun after kill at ${p}: ${again.error}`);
      assert.deepEqual(canon(await peer.read(wh, 'db', 't')), rows, `rows after rerun (kill at ${p})`);
    }
    assert.ok(timedKills >= 1, `at least one wall-clock kill (at ${timed.join(', ')} ms of a ${elapsedMs} ms compaction) hit it`);
  });
});
