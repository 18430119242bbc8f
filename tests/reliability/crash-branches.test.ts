/**
 * Crash safety of fast_forward and rename_branch: each runs in a child process
 * (tests/reliability/crash-runner.ts) that SIGKILLs itself right before its N-th mutating storage
 * call, for every N of an uninterrupted run. After every kill Paimon Java 1.4.2 still reads main
 * and its `check` passes (every snapshot, tag and branch complete); a rerun with the same
 * arguments then leaves exactly the files of an uninterrupted run. The history is the shared one
 * of tests/interop/branches-support.ts (written by Paimon Java). The object-store rename (copy
 * and delete) is stopped at every step in tests/unit/paimon/branches/branch-manager-steps.test.ts.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { copyWarehouse, listTree, tempDir } from '../interop/procedures-support.js';
import { assertCheckPassed, branchHistory, branchTool, DB, pool, runCrashing as runProcedure, TABLE, TABLE_DIR } from '../interop/branches-support.js';

interface CrashCase {
  name: string;
  procedure: string;
  args: object;
  /** Branches Paimon must read after a kill (besides `check`); a rename's branch may have either name. */
  reads: string[];
}

/**
 * The forced fast-forward of bs (forked at t2 with its own schema change; main's snapshot 3 and
 * tag t3 came after the fork) takes every kind of step a fast-forward has: LATEST moved back,
 * snapshot and tag deletes, a schema write, snapshot creates, the hints. A plain one (no losses)
 * is a suffix of it.
 */
const CASES: CrashCase[] = [
  { name: 'ff-forced', procedure: 'fast_forward', args: { table: 'interop.t', branch: 'bs', force: true }, reads: ['main', 'bs'] },
  { name: 'rename', procedure: 'rename_branch', args: { table: 'interop.t', from_branch: 'ff', to_branch: 'ff2' }, reads: ['main'] },
];

describe('fast_forward and rename_branch survive SIGKILL at every storage step', () => {
  let origin: string;
  before(async () => {
    origin = await branchHistory();
  });

  test('Paimon reads main and passes check after every kill; a rerun finishes with the files of an uninterrupted run', async () => {
    const killed: { c: CrashCase; p: number; wh: string; expected: string[] }[] = [];
    const refs = await pool(CASES, 2, async (c) => {
      const ref = join(tempDir(`crash-br-${c.name}-ref-`), 'wh');
      copyWarehouse(origin, ref);
      const full = await runProcedure(ref, c.procedure, c.args);
      assert.ok(full.ok, `${c.name}: uninterrupted run failed: ${full.error}`);
      assert.ok(full.mutations >= 1, `${c.name}: no storage step`);
      return { c, mutations: full.mutations, expected: listTree(join(ref, TABLE_DIR)) };
    });
    for (const { c, mutations, expected } of refs) {
      for (let p = 1; p <= mutations; p++) {
        const wh = join(tempDir(`crash-br-${c.name}-${p}-`), 'wh');
        copyWarehouse(origin, wh);
        killed.push({ c, p, wh, expected });
      }
    }
    assert.ok(refs[0]!.mutations >= 6, `the forced fast-forward took only ${refs[0]!.mutations} steps`);
    await pool(killed, 2, async (k) => {
      const crashed = await runProcedure(k.wh, k.c.procedure, k.c.args, k.p);
      assert.equal(crashed.killed, true, `${k.c.name}: run with kill point ${k.p} was not killed`);
    });
    // Paimon Java on every killed copy, in one JVM: main (and the named branches) read, check passes.
    const steps: string[][] = [];
    for (const k of killed) {
      for (const b of k.c.reads) steps.push(['read', k.wh, DB, TABLE, `branch:${b}`]);
      steps.push(['check', k.wh, DB, TABLE]);
    }
    const res = await branchTool('1.4', steps);
    let i = 0;
    for (const k of killed) {
      for (const b of k.c.reads) {
        const r = res[i++]!;
        assert.ok(r.ok, `${k.c.name}: after a kill at step ${k.p}, Paimon cannot read ${b}: ${r.error}`);
      }
      assertCheckPassed(res[i++]!, k.wh, `${k.c.name}: check after a kill at step ${k.p}`);
    }
    // Reruns complete and leave the files of the uninterrupted run.
    await pool(killed, 2, async (k) => {
      const rerun = await runProcedure(k.wh, k.c.procedure, k.c.args);
      assert.ok(rerun.ok, `${k.c.name}: rerun after a kill at step ${k.p} failed: ${rerun.error}`);
      assert.deepEqual(listTree(join(k.wh, TABLE_DIR)), k.expected, `${k.c.name}: after a kill at step ${k.p} and a rerun`);
    });
    const checks = await branchTool('1.4', killed.map((k) => ['check', k.wh, DB, TABLE]));
    checks.forEach((r, j) => assertCheckPassed(r, killed[j]!.wh, `check after the rerun of ${killed[j]!.c.name}@${killed[j]!.p}`));
  });
});
