/**
 * Orphan-file safety as a property over random table histories written by Paimon Java:
 * commits, compactions, tags, branches from tags, consumers, Java's own expirations and
 * rollbacks, in random order. After every history, with all files aged past the threshold
 * and orphans planted in data, manifest and index directories (plus young files that must
 * survive), remove_orphan_files must
 *   - delete no file that Java's list-files reports as reachable (Java `check` passes),
 *   - delete every planted old orphan and no young file,
 *   - delete exactly what Paimon Java's LocalOrphanFilesClean deletes on a copy.
 * Java runs are slow, so the number of histories is small (PROCS_ORPHAN_RUNS, default 4);
 * the same property over hundreds of histories runs on our own metadata model in
 * tests/unit/procedures/files/remove-orphan-files-scan.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { removeOrphanFiles } from '../../procedures/files/remove-orphan-files.js';
import { callNamed, copyWarehouse, executorFor, firstRow, javaAvailable, listTree, paimon, tempDir, writeSchema } from '../interop/procedures-support.js';

const V = '1.4.2' as const;
const TABLE = 'interop.db/t';
const OLD = (Date.now() - 3 * 86_400_000) / 1000;

type Op =
  | { kind: 'write'; n: number }
  | { kind: 'compact' }
  | { kind: 'tag' }
  | { kind: 'branch' }
  | { kind: 'consumer' }
  | { kind: 'expire'; keep: number }
  | { kind: 'rollback'; back: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('write' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'compact' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'tag' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'branch' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'consumer' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('expire' as const), keep: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rollback' as const), back: fc.integer({ min: 1, max: 3 }) }) },
);

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
  test('property', async () => {
    assert.ok(javaAvailable(V), `Paimon ${V} reference tool is not built`);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 8 }), fc.integer({ min: 1, max: 4 }), async (ops, orphans) => {
        const wh = join(tempDir(`orphan-prop-${run++}-`), 'wh');
        const schema = writeSchema(wh, {
          fields: [
            { name: 'id', type: 'INT NOT NULL' },
            { name: 'dt', type: 'DATE NOT NULL' },
            { name: 'v', type: 'STRING' },
          ],
          primaryKeys: ['dt', 'id'],
          partitionKeys: ['dt'],
          options: { bucket: '1', 'write-only': 'true' },
        });
        await paimon(V, 'create-table', wh, 'interop', 't', schema);
        await paimon(V, 'write-loop', wh, 'interop', 't', '2', '0', '0');
        let latest = 2;
        let tags = 0;
        let branches = 0;
        let next = 0;
        for (const op of ops) {
          switch (op.kind) {
            case 'write': {
              const r = (await paimon(V, 'write-loop', wh, 'interop', 't', String(op.n), '0', String(next % 7))) as { commits: { snapshotId: number }[] };
              next += op.n;
              latest = Number(r.commits[r.commits.length - 1].snapshotId);
              break;
            }
            case 'compact': {
              const r = (await paimon(V, 'compact', wh, 'interop', 't')) as { latestSnapshotId: number };
              latest = Number(r.latestSnapshotId);
              break;
            }
            case 'tag':
              await paimon(V, 'create-tag', wh, 'interop', 't', `tag${tags++}`);
              break;
            case 'branch':
              if (tags > 0) await paimon(V, 'create-branch', wh, 'interop', 't', `b${branches++}`, `tag${tags - 1}`);
              break;
            case 'consumer':
              await paimon(V, 'create-consumer', wh, 'interop', 't', 'c1', String(latest));
              break;
            case 'expire':
              await paimon(V, 'expire', wh, 'interop', 't', String(op.keep), String(op.keep), String(Date.now()), '2147483647');
              break;
            case 'rollback': {
              const target = latest - op.back;
              const r = (await paimon(V, 'rollback', wh, 'interop', 't', String(target)).catch(() => null)) as { latestSnapshotId: number } | null;
              if (r) latest = Number(r.latestSnapshotId);
              break;
            }
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
        const check = (await paimon(V, 'check', wh, 'interop', 't')) as { ok: boolean };
        assert.equal(check.ok, true);
        const java = (await paimon(V, 'orphan-clean', javaCopy, 'interop', 't', String(Date.now() - 86_400_000), 'false')) as { deletedFiles: string[] };
        assert.deepEqual(deleted.sort(), java.deletedFiles.map((p) => basename(p)).sort(), `differs from Java (ops ${JSON.stringify(ops)})`);
      }),
      { numRuns: Number(process.env.PROCS_ORPHAN_RUNS ?? 4), endOnFailure: true },
    );
  });
});
