import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { FileIO } from '../../../../src/paimon/fs/file-io.js';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import type { OrphanLayout } from '../../../../src/paimon/maintenance/orphan-files.js';
import { parseSnapshotFiles } from '../../../../src/paimon/spec/snapshot.js';
import type { MaintenanceReader, SnapshotLike } from '../../../../src/paimon/maintenance/types.js';
import { scanOrphanFiles } from '../../../../procedures/files/orphan-clean.js';
import { SpillSpace } from '../../../../procedures/files/orphan-spill.js';
import { FakeTable } from '../maintenance-fixture.js';

const OLD = Date.now() / 1000 - 7 * 86400; // seconds, a week ago
const DAY = 86_400_000;
let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'orphan-scan-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function put(root: string, rel: string, content = 'x', old = true): void {
  const p = join(root, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, content);
  if (old) utimesSync(p, OLD, OLD);
}

function snapshotJson(s: SnapshotLike): string {
  return JSON.stringify({
    version: 3,
    id: s.id,
    schemaId: 0,
    baseManifestList: s.baseManifestList,
    deltaManifestList: s.deltaManifestList,
    changelogManifestList: s.changelogManifestList ?? null,
    indexManifest: s.indexManifest ?? undefined,
    statistics: s.statistics ?? undefined,
    commitUser: 'u',
    commitIdentifier: 9223372036854775807n.toString(),
    commitKind: 'APPEND',
    timeMillis: s.timeMillis,
    totalRecordCount: 0,
    deltaRecordCount: 0,
  });
}

/** Write every file the fake table's metadata names, where Paimon would put it. */
function materialize(root: string, t: FakeTable): void {
  put(root, 'schema/schema-0', '{}');
  for (const [n, refs] of t.lists) {
    put(root, `manifest/${n}`);
    for (const r of refs) put(root, `manifest/${r.fileName}`);
  }
  for (const [n, es] of t.manifests) {
    put(root, `manifest/${n}`);
    for (const e of es) {
      put(root, `bucket-0/${e.fileName}`);
      for (const x of e.extraFiles) put(root, `bucket-0/${x}`);
    }
  }
  for (const [n, refs] of t.indexManifests) {
    put(root, `manifest/${n}`);
    for (const r of refs) put(root, `index/${r.fileName}`);
  }
  for (const s of t.snapshots.values()) if (s.statistics) put(root, `statistics/${s.statistics}`);
}

/**
 * The orphan names scanOrphanFiles finds, with `threshold` candidates in memory (a small one
 * makes the scan spill and re-split partitions). Checks the spill directory is gone afterwards.
 */
async function orphanNames(
  layout: OrphanLayout,
  olderThanMillis: number,
  reader: MaintenanceReader,
  threshold = 1_000_000,
  batched = true,
): Promise<string[]> {
  const spill = new SpillSpace(join(dir, 'spill'), 3);
  const local = new LocalFileIO();
  // Without listBatches the listing takes FileIO.list, as for S3.
  const fileIO: FileIO = batched
    ? local
    : new Proxy(local, {
        get(t, p) {
          if (p === 'listBatches') return undefined;
          const v: unknown = Reflect.get(t, p);
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
        },
      });
  try {
    const scan = await scanOrphanFiles({
      fileIO,
      layout,
      olderThanMillis,
      reader,
      memoryThreshold: threshold,
      spill,
      listConcurrency: 3,
    });
    const names = [...scan.orphans.entries()].map((c) => c.name);
    assert.equal(names.length, scan.orphans.count);
    scan.orphans.dispose();
    return names;
  } finally {
    spill.dispose();
    assert.equal(spill.location, null);
  }
}

describe('remove_orphan_files reachability scan', () => {
  test('property: deletes every planted old orphan and nothing any snapshot, tag, branch or changelog reaches', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ add: fc.nat(3), del: fc.nat(2), cl: fc.boolean(), idx: fc.boolean(), stats: fc.boolean() }), {
          minLength: 1,
          maxLength: 15,
        }),
        fc.nat(20), // expired prefix
        fc.array(fc.nat(20), { maxLength: 3 }), // tags
        fc.option(fc.nat(20), { nil: undefined }), // a branch created from a tag
        fc.option(fc.nat(20), { nil: undefined }), // a long-lived changelog
        fc.nat(5), // planted old orphans
        fc.nat(3), // planted young files
        fc.constantFrom(1_000_000, 1, 2, 7), // candidates kept in memory before spilling
        fc.boolean(), // listed in batches (local worker threads) or with FileIO.list
        async (ops, expireRaw, tagIds, branchFrom, changelogId, orphanCount, youngCount, threshold, batched) => {
          const root = join(dir, `t${run++}`);
          const t = new FakeTable();
          let c = 0;
          for (const op of ops) {
            const live = [...t.live.keys()];
            t.commit({
              add: Array.from({ length: op.add }, () => `data-${c++}.parquet`),
              del: live.slice(0, Math.min(op.del, live.length)),
              changelog: op.cl ? [`changelog-${c++}.parquet`] : [],
              index: op.idx ? [`index-${c++}`] : undefined,
              statistics: op.stats ? `stat-${c++}` : undefined,
            });
          }
          materialize(root, t);
          const n = t.snapshots.size;
          const expiredBelow = Math.min(expireRaw % (n + 1), n); // snapshots < this are expired
          const keep: SnapshotLike[] = [];
          for (const s of t.snapshots.values()) {
            if (s.id > expiredBelow) {
              put(root, `snapshot/snapshot-${s.id}`, snapshotJson(s));
              keep.push(s);
            }
          }
          put(root, 'snapshot/LATEST', String(n));
          for (const id of tagIds) {
            const s = t.snapshots.get(1 + (id % n))!;
            put(root, `tag/tag-t${s.id}`, snapshotJson(s));
            keep.push(s);
          }
          if (branchFrom !== undefined) {
            const s = t.snapshots.get(1 + (branchFrom % n))!;
            put(root, 'branch/branch-b1/schema/schema-0', '{}');
            put(root, `branch/branch-b1/snapshot/snapshot-${s.id}`, snapshotJson(s));
            keep.push(s);
          }
          if (changelogId !== undefined) {
            const s = t.snapshots.get(1 + (changelogId % n))!;
            put(root, `changelog/changelog-${s.id}`, snapshotJson(s));
            keep.push(s);
          }
          const planted: string[] = [];
          for (let i = 0; i < orphanCount; i++) {
            const rel = [`bucket-0/data-orphan-${i}.parquet`, `manifest/manifest-orphan-${i}`, `index/index-orphan-${i}`][i % 3];
            put(root, rel);
            planted.push(rel.slice(rel.lastIndexOf('/') + 1));
          }
          put(root, 'snapshot/.snapshot-99.tmp-uuid.tmp'); // failed atomic rename
          planted.push('.snapshot-99.tmp-uuid.tmp');
          for (let i = 0; i < youngCount; i++) put(root, `bucket-0/data-young-${i}.parquet`, 'x', false);

          const found = await orphanNames(
            { tableRoot: root, partitionKeyCount: 0, dataRoot: root, externalPaths: [] },
            Date.now() - DAY,
            t,
            threshold,
            batched,
          );
          const reachable = new Set<string>();
          for (const s of keep) for (const f of t.reachable(s, true)) reachable.add(f);
          for (const f of found) assert.ok(!reachable.has(f), `deleted reachable ${f}`);
          for (const p of planted) assert.ok(found.includes(p), `missed planted orphan ${p}`);
          assert.ok(!found.some((f) => f.includes('young')), 'young file treated as orphan');
          // and every unreachable file that Paimon's metadata wrote is found too
          const all = new Set<string>();
          for (const s of t.snapshots.values()) for (const f of t.reachable(s, true)) all.add(f);
          for (const f of all) if (!reachable.has(f)) assert.ok(found.includes(f), `missed unreachable ${f}`);
          rmSync(root, { recursive: true, force: true });
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a branch directory without a schema aborts the clean, like Paimon', async () => {
    const root = join(dir, 'broken-branch');
    put(root, 'schema/schema-0', '{}');
    put(root, 'branch/branch-half/snapshot/EARLIEST', '1');
    await assert.rejects(
      orphanNames({ tableRoot: root, partitionKeyCount: 0, dataRoot: root, externalPaths: [] }, Date.now(), new FakeTable()),
      (e) => isPaimonError(e, 'CORRUPT_METADATA') && /Branches \[half\] have no schemas/.test(e.message),
    );
  });

  test('partition levels are walked down to bucket directories', async () => {
    const root = join(dir, 'partitioned');
    put(root, 'schema/schema-0', '{}');
    put(root, 'dt=1/hh=2/bucket-0/data-a.parquet');
    put(root, 'dt=1/not-a-partition/bucket-0/data-b.parquet');
    put(root, 'dt=1/hh=2/bucket-0/nested/deeper.parquet');
    for (const batched of [true, false]) {
      const names = await orphanNames({ tableRoot: root, partitionKeyCount: 2, dataRoot: root, externalPaths: [] }, Date.now(), new FakeTable(), 1_000_000, batched);
      assert.deepEqual(names, ['data-a.parquet']);
    }
  });

  test('parses the snapshot fields it needs, keeping 64-bit values out of the way', () => {
    const s = parseSnapshotFiles(
      '{"version":3,"id":7,"schemaId":0,"baseManifestList":"b","deltaManifestList":"d","commitIdentifier":9223372036854775807,"timeMillis":5,"indexManifest":"i","watermark":-9223372036854775808}',
      'snapshot-7',
    );
    assert.equal(s.id, 7);
    assert.equal(s.indexManifest, 'i');
    assert.equal(s.changelogManifestList, null);
  });
});
