/**
 * Manifests of real Paimon Java tables (PaimonTool `create-matrix`: append and primary-key tables,
 * partitioned on string/int/date with NULL and escaped values, fixed and -1 buckets, deletion
 * vectors, changelog producers, schema evolution, several commits) decode to exactly the entries
 * Java reports (`dump`), field by field: every manifest list, manifest and index manifest. Every
 * data file we locate with our partition-path encoding exists where Java wrote it, and our live
 * scan of every snapshot finds the files Java's manifests leave live.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson, type JsonObject } from '../../src/paimon/spec/json.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { binaryFieldTypeFromSql, defaultBucket } from '../../src/paimon/spec/binary-row.js';
import { FileStorePathFactory } from '../../src/paimon/table/file-store-path-factory.js';
import { ManifestFile } from '../../src/paimon/table/manifest-file.js';
import { ManifestList } from '../../src/paimon/table/manifest-list.js';
import { IndexManifestFile } from '../../src/paimon/table/index-manifest.js';
import { FileStoreScan } from '../../src/paimon/table/file-store-scan.js';
import { SnapshotManager } from '../../src/paimon/table/snapshot-manager.js';
import type { PartitionField } from '../../src/paimon/spec/partition-path.js';
import { VERSIONS, arr, assertEntry, assertStats, big, obj, paimonToolBatch, paimonToolJson, tempDir } from './avro-support.js';

function latestSchema(table: string): JsonObject {
  const ids = readdirSync(join(table, 'schema'))
    .map((n) => /^schema-(\d+)$/.exec(n))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]));
  return obj(parseJson(readFileSync(join(table, 'schema', `schema-${Math.max(...ids)}`), 'utf8'), 'schema'));
}

for (const version of VERSIONS) {
  describe(`manifests of the Paimon Java ${version} table matrix`, () => {
    let wh = '';
    let tables: string[] = [];
    before(async () => {
      wh = tempDir(`matrix-${version}-`);
      const out = obj(await paimonToolJson(version, 'create-matrix', wh));
      tables = Object.keys(obj(out.tables)).sort();
      assert.ok(tables.length >= 10, `matrix has ${tables.length} tables`);
    });

    test('every manifest list, manifest and index manifest decodes to what Java reports; data files are where we say', async () => {
      const io = new LocalFileIO();
      let entriesChecked = 0;
      let filesLocated = 0;
      let indexEntries = 0;
      let nullPartitions = 0;
      let bucketsChecked = 0;
      // One JVM for every dump.
      const dumps = await paimonToolBatch(version, tables.map((name) => ['dump', wh, 'interop', name]));
      for (const [ti, name] of tables.entries()) {
        const table = join(wh, 'interop.db', name);
        const schema = latestSchema(table);
        const options = obj(schema.options);
        const fields = arr(schema.fields).map(obj);
        const partitionFields: PartitionField[] = arr(schema.partitionKeys).map((k) => {
          const f = fields.find((x) => x.name === k);
          assert.ok(f, `partition key ${String(k)}`);
          return { name: String(k), type: binaryFieldTypeFromSql(String(f.type)) };
        });
        const pf = new FileStorePathFactory(table, partitionFields, {
          defaultName: options['partition.default-name'] as string | undefined,
          legacyName: options['partition.legacy-name'] === undefined ? true : options['partition.legacy-name'] === 'true',
        });
        const manifestFile = new ManifestFile(io, pf, partitionFields.map((f) => f.type));
        const manifestList = new ManifestList(io, pf);
        const dump = obj(dumps[ti]);

        for (const [listName, content] of Object.entries(obj(dump.manifestLists))) {
          const java = arr(obj(content).manifests).map(obj);
          const kind = obj(content).kind;
          // Java's dump lists a base list without the delta part; ours reads the file itself.
          const ours = await manifestList.read(listName);
          assert.equal(ours.length, java.length, `${name}: ${kind} list ${listName}`);
          ours.forEach((m, i) => {
            const j = java[i];
            assert.equal(m.fileName, j.fileName);
            assert.equal(m.fileSize, big(j.fileSize));
            assert.equal(m.numAddedFiles, big(j.numAddedFiles));
            assert.equal(m.numDeletedFiles, big(j.numDeletedFiles));
            assertStats(m.partitionStats, obj(j.partitionStats), `${name} ${m.fileName} partition stats`);
            assert.equal(m.schemaId, big(j.schemaId));
            assert.deepEqual([m.minBucket, m.maxBucket, m.minLevel, m.maxLevel], [j.minBucket, j.maxBucket, j.minLevel, j.maxLevel]);
            assert.deepEqual([m.minRowId, m.maxRowId], [big(j.minRowId), big(j.maxRowId)]);
          });
        }

        for (const [fileName, list] of Object.entries(obj(dump.manifests))) {
          // Java's reader may hand entries out grouped by partition and bucket (its manifest cache
          // segments them), not in file order: compare in one canonical order.
          const key = (kind: unknown, part: unknown, bucket: unknown, level: unknown, file: unknown): string =>
            `${String(kind)}|${String(part)}|${String(bucket)}|${String(level)}|${String(file)}`;
          const java = arr(list)
            .map(obj)
            .sort((a, b) => {
              const ka = key(a.kind, obj(a.partition).serializedHex, a.bucket, obj(a.file).level, obj(a.file).fileName);
              const kb = key(b.kind, obj(b.partition).serializedHex, b.bucket, obj(b.file).level, obj(b.file).fileName);
              return ka < kb ? -1 : ka > kb ? 1 : 0;
            });
          const ours = (await manifestFile.read(fileName)).sort((a, b) => {
            const ka = key(a.kind, a.partition.serialize().toString('hex'), a.bucket, a.file.level, a.file.fileName);
            const kb = key(b.kind, b.partition.serialize().toString('hex'), b.bucket, b.file.level, b.file.fileName);
            return ka < kb ? -1 : ka > kb ? 1 : 0;
          });
          assert.equal(ours.length, java.length, `${name}: manifest ${fileName}`);
          ours.forEach((e, i) => assertEntry(e, java[i]));
          entriesChecked += ours.length;
          const fixedPk = arr(schema.primaryKeys).length > 0 && Number(options.bucket ?? '-1') > 0 && options['bucket-key'] === undefined;
          for (const e of ours) {
            if (fixedPk && e.file.minKey.arity > 0) {
              // Our BinaryRow.hashCode + DefaultBucketFunction put the file's keys in Java's bucket.
              assert.equal(defaultBucket(e.file.minKey, e.totalBuckets), e.bucket, `${name}: bucket of min key of ${e.file.fileName}`);
              assert.equal(defaultBucket(e.file.maxKey, e.totalBuckets), e.bucket, `${name}: bucket of max key of ${e.file.fileName}`);
              bucketsChecked++;
            }
            if (partitionFields.some((_, k) => e.partition.isNullAt(k))) nullPartitions++;
            const p = pf.toDataFilePath(e.partition, e.bucket, e.file);
            // Files deleted by later compactions may be gone; every ADD of a live snapshot is checked below.
            if (existsSync(p)) filesLocated++;
          }
        }

        const indexFile = new IndexManifestFile(io, pf);
        for (const [fileName, list] of Object.entries(obj(dump.indexManifests))) {
          const java = arr(list).map(obj);
          const ours = await indexFile.read(fileName);
          assert.equal(ours.length, java.length);
          ours.forEach((e, i) => {
            const j = java[i];
            const jf = obj(j.indexFile);
            assert.equal(e.kind, j.kind);
            assert.equal(e.partition.serialize().toString('hex'), obj(j.partition).serializedHex);
            assert.equal(e.bucket, j.bucket);
            assert.equal(e.indexFile.indexType, jf.indexType);
            assert.equal(e.indexFile.fileName, jf.fileName);
            assert.equal(e.indexFile.fileSize, big(jf.fileSize));
            assert.equal(e.indexFile.rowCount, big(jf.rowCount));
            assert.equal(e.indexFile.externalPath, jf.externalPath);
            assert.deepEqual(
              e.indexFile.dvRanges?.map((d) => [d.dataFileName, d.offset, d.length, d.cardinality]) ?? null,
              jf.dvRanges === null ? null : arr(jf.dvRanges).map(obj).map((d) => [d.dataFileName, d.offset, d.length, big(d.cardinality)]),
            );
            assert.ok(existsSync(pf.toIndexFilePath(e.indexFile.fileName, e.indexFile.externalPath)), `index file ${e.indexFile.fileName}`);
          });
          indexEntries += ours.length;
        }

        // Live files of every snapshot: ours (scan + merge) against the merge of Java's entries.
        const sm = new SnapshotManager(io, table);
        const scan = new FileStoreScan(manifestList, manifestFile);
        const manifests = obj(dump.manifests);
        for (const id of await sm.sortedSnapshotIds()) {
          const s = await sm.snapshot(id);
          const live = await scan.readLiveEntries(s);
          const expected = new Set<string>();
          for (const m of await manifestList.readDataManifests(s)) {
            for (const e of arr(manifests[m.fileName]).map(obj)) {
              const f = obj(e.file);
              const key = `${String(obj(e.partition).serializedHex)}|${String(e.bucket)}|${String(f.level)}|${String(f.fileName)}`;
              if (e.kind === 'ADD') expected.add(key);
              else expected.delete(key);
            }
          }
          assert.deepEqual(
            new Set(live.map((e) => `${e.partition.serialize().toString('hex')}|${e.bucket}|${e.file.level}|${e.file.fileName}`)),
            expected,
            `${name}@${id}`,
          );
          if (id === (await sm.latestSnapshotId())) {
            for (const e of live) assert.ok(existsSync(pf.toDataFilePath(e.partition, e.bucket, e.file)), `${name}: live file ${e.file.fileName} at our path`);
          }
        }
      }
      assert.ok(entriesChecked > 50, `${entriesChecked} entries compared`);
      assert.ok(filesLocated > 30, `${filesLocated} data files located`);
      assert.ok(indexEntries > 0, 'deletion-vector index entries compared');
      assert.ok(nullPartitions > 0, 'NULL partition values covered');
      assert.ok(bucketsChecked > 10, `${bucketsChecked} bucket assignments checked`);
    });
  });
}
