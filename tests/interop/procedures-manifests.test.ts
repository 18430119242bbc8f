/**
 * compact_manifest against Paimon Java 1.4.2 and 2.0.0 (ManifestTool.java runs what
 * CompactManifestProcedure runs: BatchTableCommit.compactManifests, i.e.
 * FileStoreCommitImpl.compactManifest with ManifestFileMerger): on copies of every table kind of
 * the shared Java-written kinds warehouse (many small commits, a compaction that DELETEs files,
 * deletion vectors, changelog, partial-update ...), Java's compaction and ours leave the same new
 * snapshot (every field but time and user), the same manifests (counts) and the same entries; a
 * second call commits nothing in both; Java's `check` passes on ours; Java and pypaimon read the
 * same rows from both copies; Java keeps writing afterwards.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { manifestProcedures } from '../../procedures/manifests/index.js';
import { KIND_TABLES, PY_KIND_READERS, callNamed, copyWarehouse, executorFor, firstRow, kindsWarehouse, listTree, pyReadMany, tempDir, type PaimonVersion } from './procedures-support.js';
import { canonicalSort, java, parseJson, toComparable, type PaimonJavaVersion, type Row } from './peers.js';

const DB = 'interop';
const SHORT: Record<PaimonVersion, PaimonJavaVersion> = { '1.4.2': '1.4', '2.0.0': '2.0' };

interface Manifests {
  snapshot: Record<string, unknown>;
  manifests: { added: number; deleted: number; schemaId: number }[];
  entries: string[];
}

async function tool(v: PaimonJavaVersion, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await java(v).runMain('ManifestTool', args, { timeoutMs: 120_000 });
  return parseJson(r.stdout.trim().split('\n').pop() ?? 'null') as Record<string, unknown>;
}

function copies(origin: string, label: string): { a: string; b: string } {
  const dir = tempDir(`${label}-`);
  const a = join(dir, 'java');
  const b = join(dir, 'ours');
  copyWarehouse(origin, a);
  copyWarehouse(origin, b);
  return { a, b };
}

function javaRows(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l.trim() !== '').sort();
}

for (const full of ['1.4.2', '2.0.0'] as const) {
  const v = SHORT[full];
  describe(`compact_manifest vs Paimon ${full} FileStoreCommitImpl.compactManifest`, () => {
    let origin: string;
    before(async () => {
      origin = await kindsWarehouse(full);
    });

    test('every table kind: the same COMPACT snapshot, manifests and entries as Java; Java and pypaimon read the same rows; a second call commits nothing', async () => {
      const { a, b } = copies(origin, `manifests-${full}`);
      const ex = executorFor(b, manifestProcedures);
      for (const k of KIND_TABLES) {
        const before = (await tool(v, 'manifests', a, DB, k.name)) as unknown as Manifests;
        assert.ok(before.manifests.length >= 3, `${k.name}: ${before.manifests.length} manifests to compact`);
        await tool(v, 'compact-manifest', a, DB, k.name);
        const row = firstRow(await callNamed(ex, 'compact_manifest', { table: `${DB}.${k.name}` }));
        const ja = (await tool(v, 'manifests', a, DB, k.name)) as unknown as Manifests;
        const ours = (await tool(v, 'manifests', b, DB, k.name)) as unknown as Manifests;
        assert.equal(Number(ja.snapshot.id), Number(before.snapshot.id) + 1, `${k.name}: Java committed one snapshot`);
        assert.deepEqual(ours.snapshot, ja.snapshot, `${k.name}: the same snapshot fields as Java's`);
        assert.deepEqual(ours.manifests, ja.manifests, `${k.name}: the same manifests`);
        assert.deepEqual(ours.entries, ja.entries, `${k.name}: the same entries`);
        assert.ok(ja.manifests.length < before.manifests.length, `${k.name}: fewer manifests`);
        assert.ok(!ja.entries.some((e) => e.startsWith('DELETE')), `${k.name}: ADD/DELETE pairs are gone`);
        assert.equal(Number(row.snapshot_id), Number(ja.snapshot.id));
        assert.equal(row.manifests_before, before.manifests.length);
        assert.equal(row.manifests_after, ja.manifests.length);
        // Nothing left to merge: neither commits again.
        await tool(v, 'compact-manifest', a, DB, k.name);
        const again = firstRow(await callNamed(ex, 'compact_manifest', { table: `${DB}.${k.name}` }));
        assert.equal(again.snapshot_id, null, `${k.name}: nothing to compact the second time`);
        assert.equal(Number(((await tool(v, 'manifests', a, DB, k.name)) as unknown as Manifests).snapshot.id), Number(ja.snapshot.id), `${k.name}: Java commits nothing either`);
        assert.deepEqual(listTree(join(b, `${DB}.db`, k.name)).length, listTree(join(a, `${DB}.db`, k.name)).length, `${k.name}: as many files as Java's copy`);
      }
      const steps: string[][] = [];
      for (const k of KIND_TABLES) steps.push(['check', b, DB, k.name], ['read', a, DB, k.name], ['read', b, DB, k.name], ['read', a, DB, k.name, 'tag:tag2'], ['read', b, DB, k.name, 'tag:tag2']);
      const results = await java(v).batch(steps);
      assert.ok(results.length === steps.length && results.every((r) => r.ok), JSON.stringify(results.filter((r) => !r.ok).map((r) => r.error)));
      KIND_TABLES.forEach((k, i) => {
        const at = (j: number): string[] => javaRows(results[i * 5 + j]?.stdout ?? '');
        assert.ok(at(1).length > 0, `${k.name} has rows`);
        assert.deepEqual(at(2), at(1), `${k.name}: Java reads the same rows from both copies`);
        assert.deepEqual(at(4), at(3), `${k.name}: Java reads the same rows at tag2 from both copies`);
      });
      const specs = KIND_TABLES.flatMap((k) => [
        { key: `a-${k.name}`, warehouse: a, db: DB, table: k.name },
        { key: `b-${k.name}`, warehouse: b, db: DB, table: k.name },
      ]);
      for (const r of PY_KIND_READERS) {
        const py = await pyReadMany(specs, r.peer);
        const who = `pypaimon ${r.peer.version}`;
        KIND_TABLES.forEach((k, i) => {
          const reads = r.reads(k);
          if (reads.kind === 'none') return; // KIND_TABLES says why
          const pa = py.get(`a-${k.name}`);
          const pb = py.get(`b-${k.name}`);
          assert.ok(pa && 'rows' in pa && pb && 'rows' in pb, `${who} reads both copies of ${k.name}`);
          assert.deepEqual(toComparable(pb.rows), toComparable(pa.rows), `${who} reads the same rows of ${k.name} from both copies`);
          if (reads.kind === 'java') {
            const javaSide = toComparable(canonicalSort(javaRows(results[i * 5 + 1]?.stdout ?? '').map((l) => parseJson(l) as Row)));
            assert.deepEqual(toComparable(pb.rows), javaSide, `${who} reads what Java reads of ${k.name}`);
          }
        });
      }
    });

    test('Java keeps writing after our compaction, and compacts again on top of ours', async () => {
      const { b } = copies(origin, `manifests-${full}-write`);
      const t = 'k_pk';
      firstRow(await callNamed(executorFor(b, manifestProcedures), 'compact_manifest', { table: `${DB}.${t}` }));
      const results = await java(v).batch([
        ['read', b, DB, t],
        ['write-loop', b, DB, t, '3', '0', '300'],
        ['compact', b, DB, t],
        ['check', b, DB, t],
        ['read', b, DB, t],
      ]);
      assert.ok(results.every((r) => r.ok), JSON.stringify(results.filter((r) => !r.ok).map((r) => r.error)));
      assert.equal(javaRows(results[4]?.stdout ?? '').length, javaRows(results[0]?.stdout ?? '').length + 3, "Java's three new rows are read");
      await tool(v, 'compact-manifest', b, DB, t);
      const after = (await tool(v, 'manifests', b, DB, t)) as unknown as Manifests;
      assert.equal(after.snapshot.commitKind, 'COMPACT');
      const [check] = await java(v).batch([['check', b, DB, t]]);
      assert.ok(check?.ok, check?.error);
    });

    test('dry_run reports what would be merged and writes nothing', async () => {
      const { b } = copies(origin, `manifests-${full}-dry`);
      const before = listTree(join(b, `${DB}.db`, 'k_pk'));
      const row = firstRow(await callNamed(executorFor(b, manifestProcedures), 'compact_manifest', { table: `${DB}.k_pk`, dry_run: true }));
      assert.equal(row.dry_run, true);
      assert.equal(row.snapshot_id, null);
      assert.equal(row.mode, 'full');
      assert.ok(Number(row.manifests_rewritten) >= 3);
      assert.ok(Number(row.entries_dropped) > 0, 'the compaction DELETEs cancel their ADDs');
      assert.deepEqual(listTree(join(b, `${DB}.db`, 'k_pk')), before);
    });
  });
}
