/**
 * compact_manifest's merge (ManifestFileMerger.merge with merge-min-count 1 and a 1-byte full
 * compaction trigger) on plain manifests: full compaction drops ADD/DELETE pairs and rewrites the
 * small manifests into one run, keeps large manifests without DELETEs, falls back to minor
 * compaction as Java does, and reports nothing to do when nothing would change. Java's own
 * results on real tables: tests/interop/procedures-manifests.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { binaryFieldTypeFromSql, toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import { newAppendFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import type { ManifestEntry } from '../../../../src/paimon/spec/manifest-entry.js';
import type { ManifestFileMeta } from '../../../../src/paimon/spec/manifest-file-meta.js';
import { manifestFileMetaOf } from '../../../../src/paimon/table/manifest-file.js';
import { planManifestCompaction, writeManifestCompaction } from '../../../../src/paimon/manifests/manifest-compaction.js';

const STRING = binaryFieldTypeFromSql('STRING');
const TARGET = 1000n;

function entry(name: string, kind: 'ADD' | 'DELETE' = 'ADD'): ManifestEntry {
  const file = newAppendFileMeta({
    fileName: name,
    fileSize: 100n,
    rowCount: 10n,
    valueStats: EMPTY_STATS,
    minSequenceNumber: 0n,
    maxSequenceNumber: 9n,
    schemaId: 0n,
    level: 0,
    firstRowId: null,
    creationTime: 1_700_000_000_000n,
  });
  return { kind, partition: toBinaryRow([STRING], ['p']), bucket: 0, totalBuckets: 1, file };
}

/** A manifest of `entries` with a given size (the merge decides by sizes and counts). */
function manifest(name: string, size: bigint, entries: ManifestEntry[]): { meta: ManifestFileMeta; entries: ManifestEntry[] } {
  return { meta: { ...manifestFileMetaOf(name, size, entries, [STRING], 0n) }, entries };
}

async function run(ms: { meta: ManifestFileMeta; entries: ManifestEntry[] }[]) {
  const byName = new Map(ms.map((m) => [m.meta.fileName, m.entries]));
  const p = await planManifestCompaction(ms.map((m) => m.meta), async (f) => byName.get(f.fileName) ?? [], TARGET);
  let n = 0;
  const written: ManifestEntry[][] = [];
  const out = await writeManifestCompaction(p, async (entries) => {
    written.push([...entries]);
    return [manifestFileMetaOf(`new-${n++}`, 10n, entries, [STRING], 0n)];
  });
  return { p, out, written };
}

test('full compaction: small manifests are rewritten into one run, ADDs a DELETE names are dropped with it', async () => {
  const { p, out, written } = await run([
    manifest('m1', 100n, [entry('a'), entry('b')]),
    manifest('m2', 100n, [entry('c')]),
    manifest('m3', 100n, [entry('a', 'DELETE'), entry('d')]),
  ]);
  assert.equal(p.mode, 'full');
  assert.equal(p.manifestsRewritten, 3);
  assert.equal(p.entriesDropped, 2, 'the ADD of a and its DELETE');
  assert.deepEqual(written.map((w) => w.map((e) => `${e.kind} ${e.file.fileName}`)), [['ADD b', 'ADD c', 'ADD d']]);
  assert.deepEqual(out?.map((m) => m.fileName), ['new-0']);
});

test('full compaction without DELETEs keeps the large manifests as they are', async () => {
  const { p, out } = await run([manifest('big', 5000n, [entry('a')]), manifest('s1', 10n, [entry('b')]), manifest('s2', 10n, [entry('c')])]);
  assert.equal(p.mode, 'full');
  assert.deepEqual(out?.map((m) => m.fileName), ['big', 'new-0']);
});

test('with DELETEs a large manifest holding a deleted file is rewritten too', async () => {
  const { out, written } = await run([manifest('big', 5000n, [entry('a'), entry('x')]), manifest('s1', 10n, [entry('a', 'DELETE')]), manifest('s2', 10n, [entry('c')])]);
  assert.deepEqual(out?.map((m) => m.fileName), ['new-0']);
  assert.deepEqual(written[0]?.map((e) => e.file.fileName), ['x', 'c']);
});

test('one manifest, or one small one among large ones without DELETEs: minor compaction, nothing changes', async () => {
  const one = await run([manifest('m1', 100n, [entry('a'), entry('a', 'DELETE')])]);
  assert.equal(one.p.unchanged, true);
  assert.equal(one.out, null);
  const mixed = await run([manifest('big1', 5000n, [entry('a')]), manifest('big2', 5000n, [entry('b')]), manifest('s', 10n, [entry('c')])]);
  assert.equal(mixed.p.mode, 'minor');
  assert.equal(mixed.out, null, 'each large manifest reaches the target alone; the small trailing one stays');
});

test('minor compaction merges a run that reaches the target size with the manifests before it', async () => {
  const { p, out, written } = await run([manifest('s', 10n, [entry('c')]), manifest('big1', 5000n, [entry('a')]), manifest('big2', 5000n, [entry('b')])]);
  assert.equal(p.mode, 'minor');
  assert.deepEqual(out?.map((m) => m.fileName), ['new-0', 'big2']);
  assert.deepEqual(written[0]?.map((e) => e.file.fileName), ['c', 'a']);
});
