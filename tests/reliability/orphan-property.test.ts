/**
 * Orphan-file safety as a property over random table histories: Paimon Java's commits,
 * compactions, tags, branches from tags (and commits on them), consumers, expirations and
 * rollbacks, mixed with our own tag and branch lifecycle procedures (create_tag, delete_tag,
 * create_branch, delete_branch, fast_forward, merge_branch) and maintenance procedures (compact,
 * compact_manifest, expire_partitions, rollback_to_as_latest, reset_consumer, clear_consumers,
 * remove_unexisting_files), in random order, on a partitioned
 * primary-key or append table. After every history, with all files aged past the threshold and
 * orphans planted in data, manifest and index directories (plus young files that must survive),
 * remove_orphan_files must
 *   - delete no file that Java's list-files reports as reachable from any snapshot, tag or
 *     branch (and Java `check` passes: our delete_tag deleted nothing still referenced either),
 *   - delete every planted old orphan and no young file,
 *   - delete exactly what Paimon Java's LocalOrphanFilesClean deletes on a copy.
 * Java runs in the long-lived peer JVM; the number of histories is small (PROCS_ORPHAN_RUNS,
 * default 8); the same property over hundreds of histories runs on our own metadata model in
 * tests/unit/procedures/files/remove-orphan-files-scan.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { removeOrphanFiles } from '../../procedures/files/remove-orphan-files.js';
import { tagProcedures } from '../../procedures/tags/index.js';
import { branchProcedures } from '../../procedures/branches/index.js';
import { compactionProcedures } from '../../procedures/compaction/index.js';
import { manifestProcedures } from '../../procedures/manifests/index.js';
import { partitionProcedures } from '../../procedures/partitions/index.js';
import { consumerProcedures } from '../../procedures/consumers/index.js';
import { snapshotProcedures } from '../../procedures/snapshots/index.js';
import { repairProcedures } from '../../procedures/repair/index.js';
import type { JsonValue } from '../../src/paimon/spec/json.js';
import { callNamed, copyWarehouse, executorFor, firstRow, javaAvailable, listTree, tempDir, writeSchema } from '../interop/procedures-support.js';
import { java, parseJson } from '../interop/peers.js';
import { assertCheckPassed } from '../interop/branches-support.js';

const V = '1.4.2' as const;
/** One PaimonTool command of Paimon 1.4.2 in the long-lived peer JVM; its last JSON line. */
async function paimon(_v: typeof V, ...args: string[]): Promise<JsonValue> {
  const r = await java('1.4').run(args, { timeoutMs: 300_000 });
  return parseJson(r.stdout.trim().split('\n').pop() ?? 'null') as JsonValue;
}
const TABLE = 'interop.db/t';
const OLD = (Date.now() - 3 * 86_400_000) / 1000;

type Op =
  | { kind: 'write'; n: number }
  | { kind: 'compact' }
  | { kind: 'tag' }
  | { kind: 'branch' }
  | { kind: 'branchWrite'; pick: number }
  | { kind: 'consumer' }
  | { kind: 'expire'; keep: number }
  | { kind: 'rollback'; back: number }
  // ours
  | { kind: 'createTag' }
  | { kind: 'deleteTag'; pick: number }
  | { kind: 'createBranch'; pick: number; empty: boolean }
  | { kind: 'deleteBranch'; pick: number }
  | { kind: 'fastForward'; pick: number; force: boolean }
  | { kind: 'mergeBranch'; pick: number }
  | { kind: 'ourCompact' }
  | { kind: 'compactManifest' }
  | { kind: 'expirePartitions' }
  | { kind: 'rollbackAsLatest'; back: number }
  | { kind: 'resetConsumer'; back: number }
  | { kind: 'clearConsumers' }
  | { kind: 'removeUnexisting' };

const pick = fc.nat({ max: 7 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('write' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'compact' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'tag' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'branch' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('branchWrite' as const), pick }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'consumer' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('expire' as const), keep: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollback' as const), back: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'createTag' as const }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('deleteTag' as const), pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('createBranch' as const), pick, empty: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteBranch' as const), pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fastForward' as const), pick, force: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('mergeBranch' as const), pick }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'ourCompact' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compactManifest' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'expirePartitions' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollbackAsLatest' as const), back: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resetConsumer' as const), back: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clearConsumers' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'removeUnexisting' as const }) },
);

/** Refusals our lifecycle calls may answer on a random history (every other outcome fails the property). */
const EXPECTED_REFUSALS = new Set(['UNSAFE_ARGUMENT', 'SNAPSHOT_NOT_FOUND', 'INVALID_ARGUMENT', 'UNSUPPORTED_TABLE', 'CONSUMER_NOT_FOUND']);

function names(dir: string, prefix: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length)).sort() : [];
}

function latestId(table: string): number {
  const ids = names(join(table, 'snapshot'), 'snapshot-').map(Number);
  return ids.length === 0 ? 0 : Math.max(...ids);
}

function age(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) age(p);
    utimesSync(p, OLD, OLD);
  }
}

function plant(root: string, rel: string, old: boolean): void {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, 'planted');
  if (old) utimesSync(p, OLD, OLD);
}

describe('remove_orphan_files never deletes a reachable file (random Paimon Java histories)', () => {
  test('property', async (t) => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built`);
    let run = 0;
    const succeeded = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 14 }), fc.integer({ min: 1, max: 4 }), fc.boolean(), async (ops, orphans, append) => {
        const wh = join(tempDir(`orphan-prop-${run++}-`), 'wh');
        const table = join(wh, TABLE);
        const schema = writeSchema(wh, {
          fields: [
            { name: 'id', type: 'INT NOT NULL' },
            { name: 'dt', type: 'DATE NOT NULL' },
            { name: 'v', type: 'STRING' },
          ],
          // An append table lets merge_branch merge (Paimon 2.0's rules refuse primary keys).
          primaryKeys: append ? [] : ['dt', 'id'],
          partitionKeys: ['dt'],
          options: { bucket: append ? '-1' : '1', 'write-only': 'true' },
        });
        await paimon(V, 'create-table', wh, 'interop', 't', schema);
        await paimon(V, 'write-loop', wh, 'interop', 't', '2', '0', '0');
        const ours = executorFor(wh, [...tagProcedures, ...branchProcedures, ...compactionProcedures, ...manifestProcedures, ...partitionProcedures, ...consumerProcedures, ...snapshotProcedures, ...repairProcedures]);
        const call = async (procedure: string, args: Record<string, string | number | boolean>): Promise<void> => {
          const o = await callNamed(ours, procedure, { table: 'interop.t', ...args });
          if (o.ok) succeeded.set(procedure, (succeeded.get(procedure) ?? 0) + 1);
          if (!o.ok) assert.ok(EXPECTED_REFUSALS.has(o.error.code), `${procedure} ${JSON.stringify(args)}: ${o.error.code} ${o.error.message} (ops ${JSON.stringify(ops)})`);
        };
        const tags = () => names(join(table, 'tag'), 'tag-');
        const branches = () => names(join(table, 'branch'), 'branch-');
        const chosen = (list: string[], i: number): string | undefined => (list.length === 0 ? undefined : list[i % list.length]);
        let made = 0;
        let next = 0;
        for (const op of ops) {
          switch (op.kind) {
            case 'write':
              await paimon(V, 'write-loop', wh, 'interop', 't', String(op.n), '0', String(next % 7));
              next += op.n;
              break;
            case 'compact':
              await paimon(V, 'compact', wh, 'interop', 't');
              break;
            case 'tag':
              await paimon(V, 'create-tag', wh, 'interop', 't', `jtag${made++}`);
              break;
            case 'branch': {
              const tag = chosen(tags(), made);
              if (tag !== undefined) await paimon(V, 'create-branch', wh, 'interop', 't', `jb${made++}`, tag);
              break;
            }
            case 'branchWrite': {
              const b = chosen(branches(), op.pick);
              if (b !== undefined) await paimon(V, 'write-loop', wh, 'interop', `t$branch_${b}`, '1', '0', String(100 + (next++ % 7)));
              break;
            }
            case 'consumer':
              await paimon(V, 'create-consumer', wh, 'interop', 't', 'c1', String(latestId(table)));
              break;
            case 'expire':
              await paimon(V, 'expire', wh, 'interop', 't', String(op.keep), String(op.keep), String(Date.now()), '2147483647');
              break;
            case 'rollback':
              await paimon(V, 'rollback', wh, 'interop', 't', String(latestId(table) - op.back)).catch(() => null);
              break;
            case 'createTag':
              await call('create_tag', { tag: `otag${made++}` });
              break;
            case 'deleteTag': {
              const tag = chosen(tags(), op.pick);
              if (tag !== undefined) await call('delete_tag', { tag });
              break;
            }
            case 'createBranch': {
              // An empty branch's own commits start at snapshot 1: the complete history merge_branch needs.
              const tag = chosen(tags(), op.pick);
              if (op.empty) await call('create_branch', { branch: `ob${made++}` });
              else if (tag !== undefined) await call('create_branch', { branch: `ob${made++}`, tag });
              break;
            }
            case 'deleteBranch': {
              const b = chosen(branches(), op.pick);
              if (b !== undefined) await call('delete_branch', { branch: b });
              break;
            }
            case 'fastForward': {
              const b = chosen(branches(), op.pick);
              if (b !== undefined) await call('fast_forward', { branch: b, ...(op.force ? { force: true } : {}) });
              break;
            }
            case 'mergeBranch': {
              const b = chosen(branches(), op.pick);
              if (b !== undefined) await call('merge_branch', { source_branch: b });
              break;
            }
            case 'ourCompact':
              await call('compact', {});
              break;
            case 'compactManifest':
              await call('compact_manifest', {});
              break;
            case 'expirePartitions':
              // update-time with a 1 ms window: the partition last written longest ago is dropped.
              await call('expire_partitions', { expiration_time: '1 ms', expire_strategy: 'update-time', max_expires: 1 });
              break;
            case 'rollbackAsLatest':
              if (latestId(table) - op.back >= 1) await call('rollback_to_as_latest', { snapshot_id: latestId(table) - op.back });
              break;
            case 'resetConsumer':
              await call('reset_consumer', { consumer_id: 'c1', next_snapshot_id: Math.max(1, latestId(table) - op.back) });
              break;
            case 'clearConsumers':
              await call('clear_consumers', {});
              break;
            case 'removeUnexisting':
              await call('remove_unexisting_files', {});
              break;
          }
        }
        age(wh);
        const planted: string[] = [];
        const dataDir = readdirSync(join(wh, TABLE)).find((n) => n.startsWith('dt='))!;
        for (let i = 0; i < orphans; i++) {
          const rel = [`${dataDir}/bucket-0/data-orphan-${i}.parquet`, `manifest/manifest-orphan-${i}`, `index/index-orphan-${i}`][i % 3];
          plant(join(wh, TABLE), rel, true);
          planted.push(basename(rel));
        }
        plant(join(wh, TABLE), `${dataDir}/bucket-0/data-young.parquet`, false);

        const javaCopy = join(tempDir('orphan-prop-java-'), 'wh');
        copyWarehouse(wh, javaCopy);
        const reachable = ((await paimon(V, 'list-files', wh, 'interop', 't')) as { files: string[] }).files;
        const row = firstRow(await callNamed(executorFor(wh, [removeOrphanFiles]), 'remove_orphan_files', { table: 'interop.t' }));
        const deleted = (JSON.parse(String(row.deleted_paths)) as string[]).map((p) => basename(p));
        const left = new Set(listTree(join(wh, TABLE)).map((f) => basename(f)));
        for (const f of reachable) assert.ok(left.has(basename(f)), `reachable ${f} was deleted (ops ${JSON.stringify(ops)})`);
        for (const p of planted) assert.ok(deleted.includes(p), `planted orphan ${p} survived`);
        assert.ok(left.has('data-young.parquet'), 'a young file was deleted');
        const check = await java('1.4').run(['check', wh, 'interop', 't'], { allowFailure: true, timeoutMs: 300_000 });
        assertCheckPassed({ ok: check.code === 0, stdout: check.stdout, error: check.stderr.slice(-500) }, wh, `check (ops ${JSON.stringify(ops)})`);
        const javaClean = (await paimon(V, 'orphan-clean', javaCopy, 'interop', 't', String(Date.now() - 86_400_000), 'false')) as { deletedFiles: string[] };
        assert.deepEqual(deleted.sort(), javaClean.deletedFiles.map((p) => basename(p)).sort(), `differs from Java (ops ${JSON.stringify(ops)})`);
      }),
      {
        numRuns: Number(process.env.PROCS_ORPHAN_RUNS ?? 8),
        endOnFailure: true,
        // One history where every lifecycle call of ours does its work (an append table, so merge_branch merges).
        examples: [
          [
            [
              { kind: 'createTag' },
              { kind: 'createBranch', pick: 0, empty: true },
              { kind: 'branchWrite', pick: 0 },
              { kind: 'mergeBranch', pick: 0 },
              { kind: 'createTag' },
              { kind: 'write', n: 2 },
              { kind: 'expire', keep: 1 },
              { kind: 'deleteTag', pick: 0 },
              { kind: 'createBranch', pick: 0, empty: false },
              { kind: 'branchWrite', pick: 1 },
              { kind: 'fastForward', pick: 1, force: true },
              { kind: 'deleteBranch', pick: 0 },
            ],
            2,
            true,
          ],
          [
            // The maintenance procedures of ours, each with something to do, on a primary-key table.
            [
              { kind: 'write', n: 2 },
              { kind: 'ourCompact' },
              { kind: 'write', n: 1 },
              { kind: 'compactManifest' },
              { kind: 'consumer' },
              { kind: 'resetConsumer', back: 1 },
              { kind: 'rollbackAsLatest', back: 2 },
              { kind: 'expirePartitions' },
              { kind: 'removeUnexisting' },
              { kind: 'clearConsumers' },
            ],
            2,
            false,
          ],
        ],
      },
    );
    t.diagnostic(`${run} histories; our lifecycle calls that did their work: ${JSON.stringify([...succeeded])}`);
    for (const p of ['create_tag', 'delete_tag', 'create_branch', 'delete_branch', 'fast_forward', 'merge_branch', 'compact', 'compact_manifest', 'expire_partitions', 'rollback_to_as_latest', 'reset_consumer', 'clear_consumers', 'remove_unexisting_files']) {
      assert.ok((succeeded.get(p) ?? 0) > 0, `${p} did its work in some history (${JSON.stringify([...succeeded])})`);
    }
  });
});
