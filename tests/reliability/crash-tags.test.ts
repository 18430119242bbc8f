/**
 * Crash safety of delete_tag's cleanup and of merge_branch's commit: each runs in a child process
 * (tests/reliability/crash-runner.ts) that SIGKILLs itself right before its N-th mutating storage
 * call, for every N of an uninterrupted run. After every kill Paimon Java 1.4.2 reads the table
 * as before or as after, never a mix (delete_tag: main's rows, and every tag that still has its
 * file reads its own rows; merge_branch: main has the rows of before or of after) and `check`
 * passes. A rerun then completes, and remove_orphan_files (all files aged past its threshold)
 * deletes exactly the leftovers: the files no snapshot, tag or branch reaches (Java's
 * list-files), after which delete_tag's table has exactly the files of an uninterrupted run (the
 * rerun finishes an interrupted cleanup, data files included, from the renamed tag file) and
 * Java's `check` still passes.
 *
 * Histories (Paimon Java 1.4.2):
 * - delete_tag: a partitioned primary-key table (buildHistory: 19 snapshots, compactions), tags
 *   tag3 and tag_mid, then every snapshot but the latest expired, so deleting 'tag3,tag_mid' takes
 *   data files, manifests and manifest lists with it.
 * - merge_branch: an append table, main s1..s3, an empty branch mb with its own s1..s2 (a complete
 *   append-only history on each side, as Paimon 2.0's merge requires).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { removeOrphanFiles } from '../../procedures/files/remove-orphan-files.js';
import { ageTree, callNamed, copyWarehouse, executorFor, firstRow, listTree, tempDir, writeSchema } from '../interop/procedures-support.js';
import { assertCheckPassed, branchTool, DB, pool, runCrashing, TABLE, TABLE_DIR, type StepResult } from '../interop/branches-support.js';
import { parseJsonLines } from '../interop/peers.js';

interface CrashCase {
  name: string;
  procedure: string;
  args: object;
  /** The arguments of the rerun (delete_tag: tags already gone are skipped, as the caller asks). */
  rerun: object;
  /** Java reads after a kill, and what each may show: one of the row sets (before, after), or absent. */
  reads: (wh: string) => { step: string[]; allowed: string[][]; label: string }[];
  /** Whether the final files must equal the uninterrupted run's by name (merge writes manifests with new names). */
  sameNames: boolean;
}

function rows(r: StepResult, what: string): string[] {
  assert.ok(r.ok, `${what}: ${r.error}`);
  return (parseJsonLines(r.stdout) as unknown[]).map((x) => JSON.stringify(x)).sort();
}

async function ok(steps: string[][]): Promise<StepResult[]> {
  const res = await branchTool('1.4', steps);
  res.forEach((r, i) => assert.ok(r.ok, `${JSON.stringify(steps[i])}: ${r.error}`));
  return res;
}

/** The files remove_orphan_files may delete: what no snapshot, tag or branch reaches or names (Java's list-files). */
async function unreachable(wh: string): Promise<string[]> {
  const [r] = await ok([['list-files', wh, DB, TABLE]]);
  const listed = JSON.parse(r!.stdout.trim().split('\n').pop()!) as { files: string[]; namedOnly: string[] };
  const keep = new Set([...listed.files, ...listed.namedOnly]);
  return listTree(join(wh, TABLE_DIR)).filter((f) => !keep.has(f) && !f.endsWith('.crc'));
}

function orphanClean(wh: string): Promise<string[]> {
  ageTree(join(wh, TABLE_DIR));
  return callNamed(executorFor(wh, [removeOrphanFiles]), 'remove_orphan_files', { table: `${DB}.${TABLE}` }).then((o) => {
    const paths = JSON.parse(String(firstRow(o).deleted_paths)) as string[];
    const root = join(wh, TABLE_DIR) + '/';
    return paths.map((p) => (p.startsWith(root) ? p.slice(root.length) : p.replace(/^.*?interop\.db\/t\//, ''))).sort();
  });
}

describe('delete_tag and merge_branch survive SIGKILL at every storage step', () => {
  const origins = new Map<string, string>();
  const before_ = new Map<string, Record<string, string[]>>();

  before(async () => {
    // delete_tag's history
    const tagWh = join(tempDir('crash-tags-origin-'), 'wh');
    const pk = writeSchema(tagWh, {
      fields: [
        { name: 'id', type: 'INT NOT NULL' },
        { name: 'dt', type: 'DATE NOT NULL' },
        { name: 'v', type: 'STRING' },
      ],
      primaryKeys: ['dt', 'id'],
      partitionKeys: ['dt'],
      options: { bucket: '2', 'write-only': 'true' },
    });
    const t = (b?: string) => (b ? `${TABLE}$branch_${b}` : TABLE);
    await ok([
      ['create-table', tagWh, DB, TABLE, pk],
      ['write-loop', tagWh, DB, t(), '5', '0', '0'],
      ['create-tag', tagWh, DB, t(), 'tag3', '3'],
      ['write-loop', tagWh, DB, t(), '5', '0', '0'],
      ['compact', tagWh, DB, t()],
      ['write-loop', tagWh, DB, t(), '3', '0', '100'],
      ['create-tag', tagWh, DB, t(), 'tag_mid'],
      ['write-loop', tagWh, DB, t(), '3', '0', '0'],
      ['compact', tagWh, DB, t()],
      ['expire', tagWh, DB, t(), '1', '1', String(Date.now() + 60_000), '2147483647'],
    ]);
    origins.set('delete_tag', tagWh);
    // merge_branch's history
    const mergeWh = join(tempDir('crash-merge-origin-'), 'wh');
    const append = writeSchema(mergeWh, {
      fields: [
        { name: 'id', type: 'INT' },
        { name: 'v', type: 'STRING' },
      ],
      options: { bucket: '-1', 'write-only': 'true' },
    });
    await ok([
      ['create-table', mergeWh, DB, TABLE, append],
      ['write-loop', mergeWh, DB, t(), '3', '0', '0'],
      ['create-branch', mergeWh, DB, t(), 'mb'],
      ['write-loop', mergeWh, DB, t('mb'), '2', '0', '50'],
    ]);
    origins.set('merge_branch', mergeWh);
    const r = await ok([
      ['read', tagWh, DB, TABLE],
      ['read', tagWh, DB, TABLE, 'tag:tag3'],
      ['read', tagWh, DB, TABLE, 'tag:tag_mid'],
      ['read', mergeWh, DB, TABLE],
    ]);
    before_.set('delete_tag', { main: rows(r[0]!, 'main'), tag3: rows(r[1]!, 'tag3'), tag_mid: rows(r[2]!, 'tag_mid') });
    before_.set('merge_branch', { main: rows(r[3]!, 'main') });
    assert.ok(!existsSync(join(tagWh, TABLE_DIR, 'snapshot', 'snapshot-3')), 'tag3 outlived its snapshot');
  });

  test('Paimon reads before-or-after after every kill; a rerun completes; remove_orphan_files deletes exactly the leftovers', async () => {
    const CASES: CrashCase[] = [
      {
        name: 'delete_tag',
        procedure: 'delete_tag',
        args: { table: 'interop.t', tag: 'tag3,tag_mid' },
        rerun: { table: 'interop.t', tag: 'tag3,tag_mid', if_exists: true },
        reads: (wh) => {
          const b = before_.get('delete_tag')!;
          const out = [{ step: ['read', wh, DB, TABLE], allowed: [b.main!], label: 'main' }];
          for (const tag of ['tag3', 'tag_mid']) {
            if (existsSync(join(wh, TABLE_DIR, 'tag', `tag-${tag}`))) out.push({ step: ['read', wh, DB, TABLE, `tag:${tag}`], allowed: [b[tag]!], label: tag });
          }
          return out;
        },
        sameNames: true,
      },
      {
        name: 'merge_branch',
        procedure: 'merge_branch',
        args: { table: 'interop.t', source_branch: 'mb' },
        rerun: { table: 'interop.t', source_branch: 'mb' },
        reads: (wh) => [{ step: ['read', wh, DB, TABLE], allowed: [before_.get('merge_branch')!.main!, after.get('merge_branch')!], label: 'main' }],
        sameNames: false,
      },
    ];
    const after = new Map<string, string[]>();
    const refs = await pool(CASES, 2, async (c) => {
      const ref = join(tempDir(`crash-${c.name}-ref-`), 'wh');
      copyWarehouse(origins.get(c.name)!, ref);
      const full = await runCrashing(ref, c.procedure, c.args);
      assert.ok(full.ok, `${c.name}: uninterrupted run failed: ${full.error}`);
      const [r] = await ok([['read', ref, DB, TABLE]]);
      after.set(c.name, rows(r!, `${c.name} after`));
      const leftovers = await unreachable(ref);
      assert.deepEqual(await orphanClean(ref), leftovers, `${c.name}: remove_orphan_files after an uninterrupted run`);
      return { c, mutations: full.mutations, expected: listTree(join(ref, TABLE_DIR)) };
    });
    assert.ok(refs[0]!.mutations >= 6, `delete_tag took only ${refs[0]!.mutations} storage steps (data files should go too)`);
    assert.ok(refs[1]!.mutations >= 3, `merge_branch took only ${refs[1]!.mutations} storage steps`);
    assert.notDeepEqual(after.get('merge_branch'), before_.get('merge_branch')!.main, 'the merge adds rows');

    const killed: { c: CrashCase; p: number; wh: string; expected: string[] }[] = [];
    for (const { c, mutations, expected } of refs) {
      for (let p = 1; p <= mutations; p++) {
        const wh = join(tempDir(`crash-${c.name}-${p}-`), 'wh');
        copyWarehouse(origins.get(c.name)!, wh);
        killed.push({ c, p, wh, expected });
      }
    }
    await pool(killed, 2, async (k) => {
      const crashed = await runCrashing(k.wh, k.c.procedure, k.c.args, k.p);
      assert.equal(crashed.killed, true, `${k.c.name}: run with kill point ${k.p} was not killed`);
    });

    // Paimon Java on every killed copy, in one JVM.
    const plan = killed.map((k) => ({ k, reads: k.c.reads(k.wh) }));
    const res = await branchTool('1.4', plan.flatMap(({ k, reads }) => [...reads.map((r) => r.step), ['check', k.wh, DB, TABLE]]));
    let i = 0;
    for (const { k, reads } of plan) {
      for (const r of reads) {
        const got = rows(res[i++]!, `${k.c.name}@${k.p} ${r.label}`);
        assert.ok(
          r.allowed.some((a) => JSON.stringify(a) === JSON.stringify(got)),
          `${k.c.name}: after a kill at step ${k.p}, ${r.label} reads ${got.length} rows, neither the state before nor after`,
        );
      }
      assertCheckPassed(res[i++]!, k.wh, `${k.c.name}: check after a kill at step ${k.p}`);
    }

    // Reruns complete; remove_orphan_files deletes exactly what nothing reaches.
    await pool(killed, 2, async (k) => {
      const rerun = await runCrashing(k.wh, k.c.procedure, k.c.rerun);
      assert.ok(rerun.ok, `${k.c.name}: rerun after a kill at step ${k.p} failed: ${rerun.error}`);
    });
    for (const k of killed) {
      const leftovers = await unreachable(k.wh);
      assert.deepEqual(await orphanClean(k.wh), leftovers, `${k.c.name}@${k.p}: remove_orphan_files deletes exactly the leftovers`);
      const files = listTree(join(k.wh, TABLE_DIR));
      // delete_tag renames the tag file away before its files go and deletes it last, so the rerun
      // finishes an interrupted cleanup: exactly the files of an uninterrupted run remain.
      if (k.c.sameNames) assert.deepEqual(files, k.expected, `${k.c.name}@${k.p}: exactly the files of an uninterrupted run`);
      else assert.deepEqual(files.filter((f) => !f.startsWith('manifest/')), k.expected.filter((f) => !f.startsWith('manifest/')), `${k.c.name}@${k.p}: the same data and snapshot files`);
    }
    const final = await branchTool('1.4', killed.flatMap((k) => [['read', k.wh, DB, TABLE], ['check', k.wh, DB, TABLE]]));
    killed.forEach((k, j) => {
      assert.deepEqual(rows(final[2 * j]!, `${k.c.name}@${k.p} final`), after.get(k.c.name), `${k.c.name}@${k.p}: the rows of an uninterrupted run`);
      assertCheckPassed(final[2 * j + 1]!, k.wh, `${k.c.name}@${k.p}: check after the rerun and remove_orphan_files`);
    });
  });
});
