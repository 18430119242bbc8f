/**
 * Our commit path against Paimon Java: on a table written by Java, we scan the live files (equal to
 * what Java's own manifests say), commit a rewrite that replaces a data file with a copy (DELETE +
 * ADD, written by our manifest/manifest-list/snapshot writers), and Java then reads the same rows,
 * finds every referenced file, sees our entries in its dump, and commits on top of our snapshot.
 * Conflicts (a file already gone, a moved base) are refused without writing a snapshot.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isJsonObject, parseJson, type JsonObject, type JsonValue } from '../../src/paimon/spec/json.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { FileStoreCommit } from '../../src/paimon/table/file-store-commit.js';
import { binaryFieldTypeFromSql } from '../../src/paimon/spec/binary-row.js';
import { toDeleteEntry, type ManifestEntry } from '../../src/paimon/spec/manifest-entry.js';
import { FileSource } from '../../src/paimon/spec/data-file-meta.js';
import { isPaimonError } from '../../src/paimon/errors.js';
import { VERSIONS, paimonTool, paimonToolJson, tempDir } from './avro-support.js';
import { pypaimons } from './peers.js';

const obj = (v: JsonValue | undefined): JsonObject => {
  assert.ok(v !== undefined && isJsonObject(v), 'expected a JSON object');
  return v;
};
const arr = (v: JsonValue | undefined): JsonValue[] => {
  assert.ok(Array.isArray(v), 'expected a JSON array');
  return v;
};

for (const version of VERSIONS) {
  describe(`our commits on a table written by Paimon Java ${version}`, () => {
    let wh = '';
    let table = '';
    let rowsBefore: string[] = [];
    let pyRowsBefore: unknown[] = [];
    const fileIO = new LocalFileIO();
    const newCommit = (): FileStoreCommit =>
      new FileStoreCommit({
        fileIO,
        tablePath: table,
        commitUser: 'ts-interop-test',
        partitionFields: [
          { name: 'dt', type: binaryFieldTypeFromSql('STRING') },
          { name: 'hr', type: binaryFieldTypeFromSql('INT') },
        ],
        keyTypes: [binaryFieldTypeFromSql('BIGINT')],
        bucketMode: 'HASH_FIXED',
        tableOptions: { bucket: '2' },
      });

    before(async () => {
      const dir = tempDir(`commit-${version}-`);
      await paimonToolJson(version, 'golden', join(dir, 'g'));
      wh = join(dir, 'wh');
      cpSync(join(dir, 'g', 'warehouse'), wh, { recursive: true });
      table = join(wh, 'interop.db', 'golden');
      rowsBefore = (await paimonTool(version, 'read', wh, 'interop', 'golden')).sort();
      assert.equal(rowsBefore.length, 2, 'the golden table has two live rows (one updated, one deleted)');
      pyRowsBefore = await pypaimons.read(wh, 'interop', 'golden');
      assert.equal(pyRowsBefore.length, 2);
    });

    test('our scan finds exactly the live files of Java\'s manifests', async () => {
      const c = newCommit();
      const latest = await c.snapshotManager.latestSnapshot();
      assert.ok(latest);
      const live = await c.scan.readLiveEntries(latest);
      const dump = obj(await paimonToolJson(version, 'dump', wh, 'interop', 'golden'));
      const lists = obj(dump.manifestLists);
      const manifests = obj(dump.manifests);
      const javaFiles = new Map<string, string>();
      for (const listName of [latest.baseManifestList, latest.deltaManifestList]) {
        for (const m of arr(obj(lists[listName]).manifests).map(obj)) {
          for (const e of arr(manifests[String(m.fileName)]).map(obj)) {
            const name = String(obj(e.file).fileName);
            if (e.kind === 'ADD') javaFiles.set(name, String(obj(e.partition).serializedHex));
            else javaFiles.delete(name);
          }
        }
      }
      assert.deepEqual(
        new Map(live.map((e) => [e.file.fileName, e.partition.serialize().toString('hex')])),
        javaFiles,
      );
      assert.equal(live.length, 5);
    });

    test('a rewrite commit (DELETE + ADD of a copied file) is read back by Java with the same rows', async () => {
      const c = newCommit();
      const before = await c.snapshotManager.latestSnapshot();
      assert.ok(before);
      const live = await c.scan.readLiveEntries(before);
      const victim = live[0];
      const src = c.pathFactory.toDataFilePath(victim.partition, victim.bucket, victim.file);
      assert.ok(existsSync(src), `data file ${src} exists`);
      const copyName = `data-ts-rewrite-${version}-0.parquet`;
      copyFileSync(src, join(c.pathFactory.bucketPath(victim.partition, victim.bucket), copyName));
      const added: ManifestEntry = {
        ...victim,
        file: { ...victim.file, fileName: copyName, level: 5, fileSource: FileSource.COMPACT },
      };
      const result = await c.commit({
        kind: 'COMPACT',
        deltaEntries: [toDeleteEntry(victim), added],
        commitIdentifier: 9223372036854775807n,
        baseSnapshotId: before.id,
        requireBase: true,
      });
      assert.equal(result.snapshot.id, before.id + 1);
      assert.equal(result.snapshot.deltaRecordCount, 0n);
      assert.equal(result.snapshot.totalRecordCount, before.totalRecordCount);
      assert.equal(await c.snapshotManager.readLatestHint(), before.id + 1);

      const after = (await paimonTool(version, 'read', wh, 'interop', 'golden')).sort();
      assert.deepEqual(after, rowsBefore, 'Java reads the same rows through our snapshot');
      assert.deepEqual(await pypaimons.read(wh, 'interop', 'golden'), pyRowsBefore, 'pypaimon reads the same rows through our snapshot');
      const check = obj(await paimonToolJson(version, 'check', wh, 'interop', 'golden'));
      assert.equal(check.ok, true, `Java finds every referenced file: ${JSON.stringify(check.missing)}`);

      const dump = obj(await paimonToolJson(version, 'dump', wh, 'interop', 'golden'));
      const snaps = arr(dump.snapshots).map(obj);
      const ours = snaps[snaps.length - 1];
      assert.equal(ours.id, before.id + 1);
      assert.equal(ours.commitKind, 'COMPACT');
      assert.equal(ours.commitUser, 'ts-interop-test');
      const deltaList = obj(obj(dump.manifestLists)[String(ours.deltaManifestList)]);
      assert.equal(BigInt(deltaList.fileSize as number), BigInt(result.snapshot.deltaManifestListSize ?? -1));
      const metas = arr(deltaList.manifests).map(obj);
      assert.equal(metas.length, 1);
      assert.equal(metas[0].numAddedFiles, 1);
      assert.equal(metas[0].numDeletedFiles, 1);
      assert.equal(metas[0].minLevel, 0);
      assert.equal(metas[0].maxLevel, 5);
      const entries = arr(obj(dump.manifests)[String(metas[0].fileName)]).map(obj);
      assert.deepEqual(
        entries.map((e) => [e.kind, obj(e.file).fileName, obj(e.file).level, obj(e.file).fileSource]),
        [
          ['DELETE', victim.file.fileName, victim.file.level, 'APPEND'],
          ['ADD', copyName, 5, 'COMPACT'],
        ],
      );
      assert.equal(obj(entries[1].partition).serializedHex, victim.partition.serialize().toString('hex'));
    });

    test('Java commits on top of our snapshot', async () => {
      const rows = join(tempDir(`rows-${version}-`), 'rows.jsonl');
      writeFileSync(rows, '{"dt":"2024-01-03","hr":4,"id":77,"v":"after-ts","d":"2.5000"}\n');
      const out = obj(await paimonToolJson(version, 'write', wh, 'interop', 'golden', rows));
      const c = newCommit();
      assert.equal(out.snapshotId, (await c.snapshotManager.latestSnapshotId()) ?? -1);
      const after = await paimonTool(version, 'read', wh, 'interop', 'golden');
      assert.equal(after.length, rowsBefore.length + 1);
      assert.ok(after.some((l) => l.includes('after-ts')));
      // And we read Java's newest snapshot back: our copy plus its new file are live.
      const live = await c.scan.readLiveEntries(await c.snapshotManager.latestSnapshot());
      assert.ok(live.some((e) => e.file.fileName === `data-ts-rewrite-${version}-0.parquet`));
      assert.equal(live.length, 6);
    });

    test('deleting a file that is no longer live is a COMMIT_CONFLICT and writes no snapshot', async () => {
      const c = newCommit();
      const latest = await c.snapshotManager.latestSnapshot();
      assert.ok(latest);
      const gone = (await c.scan.readDeltaEntries({ deltaManifestList: latest.deltaManifestList })).length;
      assert.ok(gone >= 1);
      // The DELETE entry of our earlier rewrite names a file that is gone now.
      const snaps = await c.snapshotManager.sortedSnapshotIds();
      const ourSnap = await c.snapshotManager.snapshot(snaps[snaps.length - 2]);
      const removed = (await c.scan.readDeltaEntries(ourSnap)).find((e) => e.kind === 'DELETE');
      assert.ok(removed);
      const manifestCount = readdirSync(join(table, 'manifest')).length;
      await assert.rejects(
        c.commit({ kind: 'COMPACT', deltaEntries: [removed], commitIdentifier: 1n }),
        (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /no longer live|deletion conflicts/.test((e as Error).message),
      );
      await assert.rejects(
        c.commit({ kind: 'APPEND', deltaEntries: [], commitIdentifier: 2n, baseSnapshotId: latest.id - 1, requireBase: true }),
        (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /plan again/.test((e as Error).message),
      );
      assert.equal(await c.snapshotManager.latestSnapshotId(), latest.id);
      assert.equal(readdirSync(join(table, 'manifest')).length, manifestCount, 'no manifest left behind');
      const check = obj(await paimonToolJson(version, 'check', wh, 'interop', 'golden'));
      assert.equal(check.ok, true);
    });

    test('thirty of our commits later, the merged base manifests read the same in Java and pypaimon', async () => {
      const c = newCommit();
      const javaRows = (await paimonTool(version, 'read', wh, 'interop', 'golden')).sort();
      const pyRows = await pypaimons.read(wh, 'interop', 'golden');
      for (let i = 0; i < 30; i++) {
        const latest = await c.snapshotManager.latestSnapshot();
        assert.ok(latest);
        const live = await c.scan.readLiveEntries(latest);
        const victim = live[i % live.length];
        const copyName = `data-ts-loop-${version}-${i}.parquet`;
        const dir = c.pathFactory.bucketPath(victim.partition, victim.bucket);
        copyFileSync(c.pathFactory.toDataFilePath(victim.partition, victim.bucket, victim.file), join(dir, copyName));
        await c.commit({
          kind: 'COMPACT',
          deltaEntries: [toDeleteEntry(victim), { ...victim, file: { ...victim.file, fileName: copyName, fileSource: FileSource.COMPACT } }],
          commitIdentifier: 9223372036854775807n,
        });
      }
      const latest = await c.snapshotManager.latestSnapshot();
      assert.ok(latest);
      const base = await c.manifestList.read(latest.baseManifestList);
      assert.ok(base.length < 30, `base list was merged (${base.length} manifests)`);
      assert.deepEqual((await paimonTool(version, 'read', wh, 'interop', 'golden')).sort(), javaRows);
      assert.deepEqual(await pypaimons.read(wh, 'interop', 'golden'), pyRows);
      const check = obj(await paimonToolJson(version, 'check', wh, 'interop', 'golden'));
      assert.equal(check.ok, true);
    });
  });
}
