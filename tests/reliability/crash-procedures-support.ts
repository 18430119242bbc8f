/**
 * The shared part of the maintenance procedures' crash tests (crash-expire, crash-rollback-orphan):
 * each procedure runs in a child process that SIGKILLs itself right before its N-th mutating
 * storage call, for N spread over the whole run (first step, last step and points between). After
 * every kill, Paimon Java must still read the table (for expiry: the latest snapshot and every
 * tag; for the others: `check`, every snapshot, tag and branch complete), and a rerun must finish
 * with exactly the files an uninterrupted run leaves, after which `check` passes. Two files, so
 * that their halves run side by side.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { buildHistory, copyWarehouse, javaAvailable, listTree, paimon, tempDir } from '../interop/procedures-support.js';

const RUNNER = resolve(import.meta.dirname, 'crash-runner.ts');
export const TABLE = 'interop.db/t';
export const V = '1.4.2' as const;

interface RunResult {
  killed: boolean;
  mutations: number;
  ok: boolean;
  error: string | null;
}

function runProcedure(wh: string, procedure: string, args: object, killAt?: number): Promise<RunResult> {
  return new Promise((done, fail) => {
    const argv = ['--import', 'tsx', RUNNER, wh, procedure, JSON.stringify(args), ...(killAt === undefined ? [] : [String(killAt)])];
    execFile(process.execPath, argv, { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && (err as { signal?: string }).signal === 'SIGKILL') return done({ killed: true, mutations: killAt ?? -1, ok: false, error: null });
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        const r = JSON.parse(line) as { mutations: number; ok: boolean; error: string | null };
        done({ killed: false, ...r });
      } catch {
        fail(new Error(`runner failed: ${err?.message ?? ''} ${stderr.slice(-2000)}`));
      }
    });
  });
}

function killPoints(total: number): number[] {
  const pts = new Set<number>([1, 2, total]);
  for (const f of [0.2, 0.4, 0.6, 0.8, 0.95]) pts.add(Math.max(1, Math.round(total * f)));
  return [...pts].filter((p) => p >= 1 && p <= total).sort((a, b) => a - b);
}

export async function javaCheckOk(wh: string): Promise<boolean> {
  try {
    const r = (await paimon(V, 'check', wh, 'interop', 't')) as { ok: boolean };
    return r.ok;
  } catch {
    return false;
  }
}


/** The history every crash test starts from (Paimon Java 1.4.2's buildHistory). */
export async function crashOrigin(): Promise<string> {
  assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built`);
  const origin = join(tempDir('crash-'), 'wh');
  await buildHistory(V, origin);
  return origin;
}

/**
 * Runs `procedure` uninterrupted on a copy, then killed at each kill point on fresh copies, each
 * followed by `afterCrash` and a rerun that must leave the uninterrupted run's files; returns
 * the number of kill points.
 */
export async function crashSuite(
  origin: string,
  name: string,
  procedure: string,
  args: object,
  opts: { prepare?: (wh: string) => Promise<void>; afterCrash: (wh: string) => Promise<void> },
): Promise<number> {
  const base = join(tempDir(`crash-${name}-`), 'base');
  copyWarehouse(origin, base);
  if (opts.prepare) await opts.prepare(base);
  const ref = join(tempDir(`crash-${name}-ref-`), 'wh');
  copyWarehouse(base, ref);
  const full = await runProcedure(ref, procedure, args);
  assert.ok(full.ok, `uninterrupted run failed: ${full.error}`);
  assert.ok(full.mutations > 2, `${procedure} made only ${full.mutations} storage changes`);
  const expected = listTree(join(ref, TABLE));
  assert.equal(await javaCheckOk(ref), true, 'uninterrupted result passes Java check');
  const points = killPoints(full.mutations);
  for (const p of points) {
    const wh = join(tempDir(`crash-${name}-${p}-`), 'wh');
    copyWarehouse(base, wh);
    const crashed = await runProcedure(wh, procedure, args, p);
    assert.equal(crashed.killed, true, `run with kill point ${p} was not killed`);
    await opts.afterCrash(wh);
    const rerun = await runProcedure(wh, procedure, args);
    assert.ok(rerun.ok, `rerun after a kill at step ${p} failed: ${rerun.error}`);
    assert.deepEqual(listTree(join(wh, TABLE)), expected, `after a kill at step ${p} and a rerun, the files differ from an uninterrupted run`);
    assert.equal(await javaCheckOk(wh), true, `Java check after kill at ${p} + rerun`);
  }
  return points.length;
}
