/**
 * Deletion vectors: the decoder against bytes Paimon Java serialized
 * (tests/unit/paimon/spec/deletion-vector.golden.json is the output of `DvTool golden`, identical for Paimon
 * 1.4.2 and 2.0.0: V1 BitmapDeletionVector and V2 Bitmap64DeletionVector over array, bitmap and
 * run containers, many containers, positions near 2^31 and 64-bit keys), plus the index file
 * layout and the errors for damaged input.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDeletionVector, RoaringBitmap32 } from '../../../../src/paimon/spec/deletion-vector.js';
import { encodeDeletionVectorsIndexFile, readDeletionVectorsIndexFile, writeDeletionVectorsIndexFile, indexFilePath } from '../../../../src/paimon/table/deletion-vectors-index-file.js';
import { FileStorePathFactory } from '../../../../src/paimon/table/file-store-path-factory.js';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';

interface GoldenCase {
  name: string;
  bitmap64: boolean;
  ranges: Array<[number, number, number]>;
  cardinality: number;
  hex: string;
}
const golden = (JSON.parse(readFileSync(new URL('./deletion-vector.golden.json', import.meta.url), 'utf8')) as { cases: GoldenCase[] }).cases;

function positionsOf(c: GoldenCase): number[] {
  const out: number[] = [];
  for (const [start, end, step] of c.ranges) for (let p = start; p < end; p += step) out.push(p);
  return out;
}

describe('deletion vectors serialized by Paimon Java', () => {
  assert.ok(golden.length >= 10);
  for (const c of golden) {
    test(c.name, () => {
      const bytes = Buffer.from(c.hex, 'hex');
      const { dv, blob, metaLength } = readDeletionVector(bytes, 0, null, c.name);
      assert.equal(dv.bitmap64, c.bitmap64);
      const expected = positionsOf(c);
      assert.equal(dv.cardinality, c.cardinality);
      assert.equal(expected.length, c.cardinality);
      assert.deepEqual([...dv.positions()], expected);
      const set = new Set(expected);
      for (const p of expected) {
        assert.equal(dv.isDeleted(p), true, `${p} deleted`);
        for (const q of [p - 1, p + 1]) if (q >= 0 && !set.has(q)) assert.equal(dv.isDeleted(q), false, `${q} not deleted`);
      }
      assert.equal(dv.isDeleted(123456789), set.has(123456789));
      // The blob is the whole serialized vector; meta length follows Java's DeletionFileWriter.
      assert.deepEqual(blob, bytes);
      assert.equal(metaLength, c.bitmap64 ? bytes.length : bytes.length - 8);
      // The entry's length is checked.
      assert.doesNotThrow(() => readDeletionVector(bytes, 0, metaLength));
      assert.throws(() => readDeletionVector(bytes, 0, metaLength + 1), (e: unknown) => isPaimonError(e, 'CORRUPT_METADATA'));
    });
  }

  test('a flipped byte fails the CRC; a wrong magic and truncation are named', () => {
    const c = golden.find((x) => x.name === 'sparse-array')!;
    const bytes = Buffer.from(c.hex, 'hex');
    const flipped = Buffer.from(bytes);
    flipped[12] ^= 0x01;
    assert.throws(() => readDeletionVector(flipped, 0, null), /CRC32 mismatch/);
    const magic = Buffer.from(bytes);
    magic[5] ^= 0xff;
    assert.throws(() => readDeletionVector(magic, 0, null), /invalid magic number/);
    assert.throws(() => readDeletionVector(bytes.subarray(0, bytes.length - 3), 0, null), /runs past the end/);
    assert.throws(() => readDeletionVector(bytes, bytes.length - 2, null), /outside/);
  });

  test('a bitmap whose header lies about its content is refused', () => {
    // cookie 12346, one container key 0 cardinality 5000 (bitmap), but all-zero bits
    const b = Buffer.alloc(4 + 4 + 4 + 4 + 8192);
    b.writeUInt32LE(12346, 0);
    b.writeUInt32LE(1, 4);
    b.writeUInt16LE(0, 8);
    b.writeUInt16LE(4999, 10);
    assert.throws(() => RoaringBitmap32.deserialize(b), /holds 0 values, header says 5000/);
    b.writeUInt32LE(9999, 0);
    assert.throws(() => RoaringBitmap32.deserialize(b), /unknown cookie/);
  });
});

describe('deletion-vector index files', () => {
  test('encode lays out version byte + blobs with Java offsets and lengths; read takes them back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-index-'));
    try {
      const io = new LocalFileIO();
      const pf = new FileStorePathFactory(dir);
      const blobs = golden.filter((c) => c.name !== 'empty').slice(0, 4).map((c) => readDeletionVector(Buffer.from(c.hex, 'hex'), 0, null));
      const vectors = blobs.map((blob, i) => ({ dataFileName: `data-${i}.parquet`, blob }));
      const { meta, path } = await writeDeletionVectorsIndexFile(io, { pathFactory: pf, inDataFileDir: false }, join(dir, 'bucket-0'), vectors);
      assert.match(meta.fileName, new RegExp(`^index-${pf.uuid}-0$`));
      assert.equal(path, join(dir, 'index', meta.fileName));
      assert.equal(meta.rowCount, 4n);
      const file = readFileSync(path);
      assert.equal(file[0], 1);
      assert.equal(meta.fileSize, BigInt(file.length));
      assert.equal(meta.dvRanges![0].offset, 1);
      assert.equal(meta.dvRanges![1].offset, 1 + blobs[0].blob.length);
      const back = await readDeletionVectorsIndexFile(io, path, meta);
      assert.deepEqual([...back.keys()], vectors.map((v) => v.dataFileName));
      for (const v of vectors) assert.deepEqual([...back.get(v.dataFileName)!.dv.positions()], [...v.blob.dv.positions()]);
      // A wrong cardinality in the entry is corruption.
      const bad = { ...meta, dvRanges: meta.dvRanges!.map((r, i) => (i === 0 ? { ...r, cardinality: r.cardinality! + 1n } : r)) };
      await assert.rejects(readDeletionVectorsIndexFile(io, path, bad), /the index entry says/);
      // In-data-dir location.
      assert.equal(indexFilePath({ pathFactory: pf, inDataFileDir: true }, meta, '/b'), `/b/${meta.fileName}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an empty index file is the version byte alone (what Java writes when a compaction removes every vector)', () => {
    const { data, meta } = encodeDeletionVectorsIndexFile('index-x-0', []);
    assert.deepEqual(data, Buffer.from([1]));
    assert.equal(meta.rowCount, 0n);
    assert.deepEqual(meta.dvRanges, []);
  });
});
