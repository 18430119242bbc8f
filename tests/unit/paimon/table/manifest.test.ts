import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { encodeObjectsFile, readBlocks, readHeader, readObjectsFile } from '../../../../src/paimon/spec/objects-file.js';
import { MANIFEST_ENTRY_SCHEMA, MANIFEST_FILE_META_SCHEMA } from '../../../../src/paimon/spec/avro-schemas.js';
import { BinaryRow, binaryFieldTypeFromSql, toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS, toSimpleStats } from '../../../../src/paimon/spec/simple-stats.js';
import { manifestEntryFromRecord, manifestEntryToRecord, toDeleteEntry, type ManifestEntry } from '../../../../src/paimon/spec/manifest-entry.js';
import { manifestFileMetaFromRecord } from '../../../../src/paimon/spec/manifest-file-meta.js';
import { manifestFileMetaOf } from '../../../../src/paimon/table/manifest-file.js';
import { newAppendFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { mergeEntries } from '../../../../src/paimon/spec/file-entry.js';
import { combineIndexEntries, type IndexManifestEntry } from '../../../../src/paimon/table/index-manifest.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';

const STRING = binaryFieldTypeFromSql('STRING');
const INT = binaryFieldTypeFromSql('INT');

function entry(name: string, dt: string | null, opts: Partial<{ bucket: number; level: number; kind: 'ADD' | 'DELETE'; rows: bigint; firstRowId: bigint | null; schemaId: bigint }> = {}): ManifestEntry {
  const file = newAppendFileMeta({
    fileName: name,
    fileSize: 100n,
    rowCount: opts.rows ?? 10n,
    valueStats: EMPTY_STATS,
    minSequenceNumber: 0n,
    maxSequenceNumber: 9n,
    schemaId: opts.schemaId ?? 0n,
    level: opts.level ?? 0,
    firstRowId: opts.firstRowId ?? null,
    creationTime: 1_700_000_000_000n,
  });
  return { kind: opts.kind ?? 'ADD', partition: toBinaryRow([STRING, INT], [dt, 1]), bucket: opts.bucket ?? 0, totalBuckets: 2, file };
}

describe('Avro object container files', () => {
  for (const codec of ['null', 'deflate', 'zstandard', 'snappy'] as const) {
    test(`${codec}: entries survive encode/decode across several blocks`, async () => {
      const entries = Array.from({ length: 300 }, (_, i) => entry(`data-${i}.parquet`, `2024-01-${String((i % 28) + 1).padStart(2, '0')}`));
      const buf = await encodeObjectsFile(MANIFEST_ENTRY_SCHEMA, entries.map(manifestEntryToRecord), { codec, syncInterval: 4096 });
      assert.equal(readHeader(buf, 't').codec, codec);
      assert.ok([...readBlocks(buf, 't')].length > 1, 'several blocks');
      const back = [...readObjectsFile(buf, 't')].map((r) => manifestEntryFromRecord(r, 't'));
      assert.equal(back.length, 300);
      // Rows compare by their bytes (decoded rows point into the decoded block).
      const canon = (x: unknown): string => JSON.stringify(x, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
      assert.equal(canon(back), canon(entries));
    });
  }

  test('a file without records is a header only (magic, metadata map, sync marker)', async () => {
    const sync = Buffer.alloc(16, 7);
    const buf = await encodeObjectsFile(MANIFEST_FILE_META_SCHEMA, [], { codec: 'null', syncMarker: sync });
    assert.equal(buf.subarray(0, 4).toString('latin1'), 'Obj\x01');
    assert.deepEqual(buf.subarray(buf.length - 16), sync);
    assert.deepEqual([...readObjectsFile(buf, 't')], []);
    const h = readHeader(buf, 't');
    assert.deepEqual(JSON.parse(h.schema), MANIFEST_FILE_META_SCHEMA);
    assert.equal(h.dataStart, buf.length);
  });

  test('corrupt files fail with CORRUPT_METADATA', async () => {
    const buf = await encodeObjectsFile(MANIFEST_ENTRY_SCHEMA, [manifestEntryToRecord(entry('a', 'x'))], { codec: 'deflate' });
    assert.throws(() => [...readObjectsFile(Buffer.from('not avro at all, definitely'), 't')], (e: unknown) => isPaimonError(e, 'CORRUPT_METADATA'));
    const bad = Buffer.from(buf);
    bad[bad.length - 1] ^= 0xff; // sync marker of the block
    assert.throws(() => [...readObjectsFile(bad, 't')], (e: unknown) => isPaimonError(e, 'CORRUPT_METADATA'));
    assert.throws(() => [...readObjectsFile(buf.subarray(0, buf.length - 20), 't')], (e: unknown) => isPaimonError(e, 'CORRUPT_METADATA'));
  });

  test('files of older writers (fewer fields) read with nulls for the missing ones, as Paimon reads them by name', async () => {
    // A 0.9-style manifest list: ManifestFileMeta without bucket/level/row-id bounds.
    const old = JSON.parse(JSON.stringify(MANIFEST_FILE_META_SCHEMA)) as { fields: { name: string }[] };
    old.fields = old.fields.filter((f) => !/_(MIN|MAX)_(BUCKET|LEVEL|ROW_ID)$/.test(f.name));
    const rec = {
      _VERSION: 2, _FILE_NAME: 'manifest-x-0', _FILE_SIZE: 123n, _NUM_ADDED_FILES: 2n, _NUM_DELETED_FILES: 0n,
      _PARTITION_STATS: { _MIN_VALUES: BinaryRow.EMPTY_ROW.serialize(), _MAX_VALUES: BinaryRow.EMPTY_ROW.serialize(), _NULL_COUNTS: [] },
      _SCHEMA_ID: 0n,
    };
    const buf = await encodeObjectsFile(old, [rec], { codec: 'deflate' });
    const [m] = [...readObjectsFile(buf, 't')].map((r) => manifestFileMetaFromRecord(r, 't'));
    assert.equal(m.fileSize, 123n);
    assert.equal(m.minBucket, null);
    assert.equal(m.maxRowId, null);
  });

  test('wrong _VERSION is refused', async () => {
    const rec = { ...manifestEntryToRecord(entry('a', 'x')), _VERSION: 3 };
    const buf = await encodeObjectsFile(MANIFEST_ENTRY_SCHEMA, [rec], { codec: 'null' });
    assert.throws(() => [...readObjectsFile(buf, 't')].map((r) => manifestEntryFromRecord(r, 't')), (e: unknown) => isPaimonError(e, 'UNSUPPORTED_FORMAT'));
  });

  test('a deflate block written by zlib (as Java\'s DeflateCodec, nowrap) decodes', () => {
    // Hand-built container: header with codec "deflate", one block with two Avro ints (1, 2).
    const schema = Buffer.from('"int"');
    const sync = Buffer.alloc(16, 1);
    const zz = (n: number): number[] => [n * 2];
    const meta = Buffer.from([
      ...zz(2),
      ...zz(11), ...Buffer.from('avro.schema'), ...zz(schema.length), ...schema,
      ...zz(10), ...Buffer.from('avro.codec'), ...zz(7), ...Buffer.from('deflate'),
      0,
    ]);
    const block = deflateRawSync(Buffer.from([2, 4]));
    const file = Buffer.concat([Buffer.from('Obj\x01', 'latin1'), meta, sync, Buffer.from([...zz(2), ...zz(block.length)]), block, sync]);
    assert.deepEqual([...readObjectsFile(file, 't')], [1, 2]);
  });
});

describe('ManifestFileMeta of a written manifest (ManifestEntryWriter.result)', () => {
  test('counts, max schema id, bucket/level bounds and FULL partition stats', () => {
    const es = [
      entry('a', '2024-01-02', { bucket: 1, level: 0, schemaId: 1n }),
      entry('b', null, { bucket: 0, level: 3 }),
      entry('c', '2024-01-01', { bucket: 5, level: 1, kind: 'DELETE' }),
    ];
    const m = manifestFileMetaOf('manifest-u-0', 999n, es, [STRING, INT], 7n);
    assert.equal(m.numAddedFiles, 2n);
    assert.equal(m.numDeletedFiles, 1n);
    assert.equal(m.schemaId, 1n);
    assert.deepEqual([m.minBucket, m.maxBucket, m.minLevel, m.maxLevel], [0, 5, 0, 3]);
    assert.equal(m.minRowId, null);
    const expected = toSimpleStats([STRING, INT], [
      { min: '2024-01-01', max: '2024-01-02', nullCount: 1n },
      { min: 1, max: 1, nullCount: 0n },
    ]);
    assert.deepEqual(m.partitionStats, expected);
  });

  test('row-id bounds only when every entry has a first row id', () => {
    const es = [entry('a', 'x', { firstRowId: 100n, rows: 10n }), entry('b', 'x', { firstRowId: 5n, rows: 3n })];
    const m = manifestFileMetaOf('m', 1n, es, [STRING, INT], 0n);
    assert.equal(m.minRowId, 5n);
    assert.equal(m.maxRowId, 109n);
    const m2 = manifestFileMetaOf('m', 1n, [...es, entry('c', 'x')], [STRING, INT], 0n);
    assert.equal(m2.minRowId, null);
  });
});

describe('FileEntry.mergeEntries semantics', () => {
  test('DELETE cancels an earlier ADD; an unmatched DELETE is kept; a second ADD throws', () => {
    const a = entry('a', 'x');
    const b = entry('b', 'x');
    const m = mergeEntries([a, b, toDeleteEntry(a)]);
    assert.deepEqual([...m.values()].map((e) => [e.kind, e.file.fileName]), [['ADD', 'b']]);
    const m2 = mergeEntries([toDeleteEntry(entry('old', 'x'))]);
    assert.deepEqual([...m2.values()].map((e) => e.kind), ['DELETE']);
    assert.throws(() => mergeEntries([a, a]), /already added/);
  });

  test('identity includes partition bytes, bucket and level: a move to another level is DELETE + ADD', () => {
    const a = entry('a', 'x', { level: 0 });
    const up = { ...a, file: { ...a.file, level: 2 } };
    const m = mergeEntries([a, toDeleteEntry(a), up]);
    assert.deepEqual([...m.values()].map((e) => e.file.level), [2]);
    // Same name in another partition or bucket is a different file.
    const m2 = mergeEntries([a, entry('a', 'y'), entry('a', 'x', { bucket: 1 })]);
    assert.equal(m2.size, 3);
  });
});

describe('index manifest combination (IndexManifestFileHandler)', () => {
  const idx = (name: string, type: string, bucket: number, kind: 'ADD' | 'DELETE' = 'ADD', dv: string[] | null = null): IndexManifestEntry => ({
    kind,
    partition: BinaryRow.EMPTY_ROW,
    bucket,
    indexFile: {
      indexType: type,
      fileName: name,
      fileSize: 10n,
      rowCount: 1n,
      dvRanges: dv === null ? null : dv.map((d, i) => ({ dataFileName: d, offset: 1 + i * 10, length: 10, cardinality: 1n })),
      externalPath: null,
      globalIndexMeta: null,
    },
  });

  test('bucketed: one file per (partition, bucket, type); DELETE before ADD', () => {
    const out = combineIndexEntries(
      [idx('h0', 'HASH', 0), idx('d0', 'DELETION_VECTORS', 0), idx('d1', 'DELETION_VECTORS', 1)],
      [idx('d0', 'DELETION_VECTORS', 0, 'DELETE'), idx('d0b', 'DELETION_VECTORS', 0), idx('d1', 'DELETION_VECTORS', 1, 'DELETE')],
      'HASH_FIXED',
    );
    assert.deepEqual(out.map((e) => e.indexFile.fileName).sort(), ['d0b', 'h0']);
  });

  test('bucket-unaware DV: by file name, a data file has at most one vector', () => {
    const prev = [idx('dv-1', 'DELETION_VECTORS', 0, 'ADD', ['f1', 'f2'])];
    assert.deepEqual(
      combineIndexEntries(prev, [idx('dv-1', 'DELETION_VECTORS', 0, 'DELETE', ['f1', 'f2']), idx('dv-2', 'DELETION_VECTORS', 0, 'ADD', ['f1'])], 'BUCKET_UNAWARE').map((e) => e.indexFile.fileName),
      ['dv-2'],
    );
    assert.throws(() => combineIndexEntries(prev, [idx('dv-3', 'DELETION_VECTORS', 0, 'ADD', ['f2'])], 'BUCKET_UNAWARE'), /already has one/);
    assert.throws(() => combineIndexEntries(prev, [idx('nope', 'DELETION_VECTORS', 0, 'DELETE', [])], 'BUCKET_UNAWARE'), /does not exist/);
  });
});

describe('manifest skipping by partition stats (FileStoreScan)', () => {
  test('a partition outside [min, max], or null where no nulls were counted, is excluded', async () => {
    const { partitionMayBeIn } = await import('../../../../src/paimon/table/file-store-scan.js');
    const types = [STRING, INT];
    const m = manifestFileMetaOf('m', 1n, [entry('a', '2024-01-02'), entry('b', '2024-01-05')], types, 0n);
    const row = (dt: string | null, i: number | null) => toBinaryRow(types, [dt, i]);
    assert.equal(partitionMayBeIn(row('2024-01-03', 1), m, types), true);
    assert.equal(partitionMayBeIn(row('2024-01-05', 1), m, types), true);
    assert.equal(partitionMayBeIn(row('2024-01-06', 1), m, types), false);
    assert.equal(partitionMayBeIn(row('2024-01-01', 1), m, types), false);
    assert.equal(partitionMayBeIn(row('2024-01-03', 2), m, types), false);
    assert.equal(partitionMayBeIn(row(null, 1), m, types), false);
    const withNull = manifestFileMetaOf('m', 1n, [entry('a', null)], types, 0n);
    assert.equal(partitionMayBeIn(row(null, 1), withNull, types), true);
    assert.equal(partitionMayBeIn(row('x', 1), withNull, types), false, 'every partition value of the field is null');
  });
});
