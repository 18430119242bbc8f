/**
 * The direct manifest-entry decoder (manifest-entry.ts `decodeManifestEntries`) against the
 * generic path (avsc with the file's schema + `manifestEntryFromRecord`): same entries, same
 * errors, and the layout check that chooses between them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeObjectsFile, prepareCodecs, readBlocks, readHeader, readObjectsFile } from '../../../../src/paimon/spec/objects-file.js';
import { MANIFEST_ENTRY_SCHEMA, MANIFEST_FILE_META_SCHEMA } from '../../../../src/paimon/spec/avro-schemas.js';
import { BinaryRow, binaryFieldTypeFromSql, toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS, toSimpleStats } from '../../../../src/paimon/spec/simple-stats.js';
import {
  decodeManifestEntries,
  hasCurrentManifestEntryLayout,
  manifestEntryFromRecord,
  manifestEntryToRecord,
  type ManifestEntry,
} from '../../../../src/paimon/spec/manifest-entry.js';
import { newAppendFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';

const STRING = binaryFieldTypeFromSql('STRING');
const INT = binaryFieldTypeFromSql('INT');
const BIGINT = binaryFieldTypeFromSql('BIGINT');

/** Comparable text of entries: rows by arity and bytes, bigints tagged, buffers as hex. */
function canon(x: unknown): string {
  return JSON.stringify(x, (_k, v: unknown) => {
    if (typeof v === 'bigint') return `${v}n`;
    if (v instanceof BinaryRow) return { arity: v.arity, bytes: v.bytes.toString('hex') };
    if (Buffer.isBuffer(v)) return `hex:${v.toString('hex')}`;
    if (v !== null && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer') return v;
    return v;
  });
}

function generic(buf: Buffer): ManifestEntry[] {
  return [...readObjectsFile(buf, 'm')].map((r) => manifestEntryFromRecord(r, 'm'));
}

function direct(buf: Buffer): ManifestEntry[] {
  const header = readHeader(buf, 'm');
  assert.ok(hasCurrentManifestEntryLayout(header.schema));
  const out: ManifestEntry[] = [];
  for (const b of readBlocks(buf, 'm', header)) out.push(...decodeManifestEntries(b.data, b.count, 'm'));
  return out;
}

function varied(i: number): ManifestEntry {
  const file = newAppendFileMeta({
    fileName: `data-ünï-${i}.parquet`,
    fileSize: i % 3 === 0 ? 9_223_372_036_854_775_807n : BigInt(i) * 1_000_003n,
    rowCount: i % 5 === 0 ? -1n : BigInt(i),
    valueStats:
      i % 4 === 0
        ? EMPTY_STATS
        : toSimpleStats([STRING, BIGINT], [
            { min: `a${i}`, max: `z${i}`, nullCount: i % 2 === 0 ? null : BigInt(i) },
            { min: -(2n ** 63n), max: 2n ** 62n + BigInt(i), nullCount: 0n },
          ]),
    minSequenceNumber: -(2n ** 63n) + BigInt(i),
    maxSequenceNumber: 2n ** 53n + BigInt(i),
    schemaId: BigInt(i % 3),
    level: i % 6,
    extraFiles: i % 2 === 0 ? [] : [`extra-${i}`, 'x'],
    embeddedIndex: i % 3 === 1 ? Buffer.from([i & 0xff, 1, 2, 3]) : null,
    externalPath: i % 4 === 1 ? `s3://b/p/${i}` : null,
    firstRowId: i % 2 === 1 ? BigInt(i) * 100n : null,
    writeCols: i % 5 === 2 ? ['a', 'b'] : null,
    valueStatsCols: i % 5 === 3 ? ['c'] : null,
    creationTime: 1_700_000_000_000n + BigInt(i),
  });
  if (i % 7 === 0) {
    file.creationTime = null;
    file.deleteRowCount = null;
    file.fileSource = null;
  }
  return {
    kind: i % 3 === 2 ? 'DELETE' : 'ADD',
    partition: toBinaryRow([STRING, INT], [i % 4 === 0 ? null : `p${i % 9}`, i]),
    bucket: i % 8 === 0 ? -1 : i,
    totalBuckets: i % 2 === 0 ? -1 : 16,
    file,
  };
}

describe('direct manifest-entry decoding', () => {
  test('equals the generic decoder on varied entries across several blocks', async () => {
    const entries = Array.from({ length: 400 }, (_, i) => varied(i));
    const buf = await encodeObjectsFile(MANIFEST_ENTRY_SCHEMA, entries.map(manifestEntryToRecord), { codec: 'null', syncInterval: 2048 });
    assert.ok([...readBlocks(buf, 'm')].length > 5);
    const a = generic(buf);
    const b = direct(buf);
    assert.equal(b.length, 400);
    assert.equal(canon(b), canon(a));
    assert.equal(canon(b), canon(entries));
  });

  test('property: any entry decodes the same both ways', async () => {
    const longArb = fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n);
    const optLong = fc.option(longArb, { nil: null });
    const str = fc.string({ maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            kind: fc.constantFrom('ADD' as const, 'DELETE' as const),
            p: fc.option(str, { nil: null }),
            bucket: fc.integer({ min: -2147483648, max: 2147483647 }),
            total: fc.integer({ min: -1, max: 1024 }),
            name: str,
            size: longArb,
            rows: longArb,
            seq: fc.tuple(longArb, longArb),
            level: fc.integer({ min: 0, max: 9 }),
            extra: fc.array(str, { maxLength: 3 }),
            created: optLong,
            deleted: optLong,
            index: fc.option(fc.uint8Array({ maxLength: 6 }), { nil: null }),
            source: fc.option(fc.integer({ min: 0, max: 1 }), { nil: null }),
            cols: fc.option(fc.array(str, { maxLength: 3 }), { nil: null }),
            ext: fc.option(str, { nil: null }),
            firstRow: optLong,
            write: fc.option(fc.array(str, { maxLength: 3 }), { nil: null }),
            nulls: fc.array(optLong, { maxLength: 3 }),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        async (rs) => {
          const entries: ManifestEntry[] = rs.map((r) => {
            const file = newAppendFileMeta({
              fileName: r.name,
              fileSize: r.size,
              rowCount: r.rows,
              valueStats: { minValues: toBinaryRow([STRING], [r.p]), maxValues: BinaryRow.EMPTY_ROW, nullCounts: r.nulls },
              minSequenceNumber: r.seq[0],
              maxSequenceNumber: r.seq[1],
              schemaId: r.seq[0],
              level: r.level,
              extraFiles: r.extra,
              embeddedIndex: r.index === null ? null : Buffer.from(r.index),
              externalPath: r.ext,
              firstRowId: r.firstRow,
              writeCols: r.write,
              valueStatsCols: r.cols,
              creationTime: 0n,
            });
            file.creationTime = r.created;
            file.deleteRowCount = r.deleted;
            file.fileSource = r.source;
            return { kind: r.kind, partition: toBinaryRow([STRING], [r.p]), bucket: r.bucket, totalBuckets: r.total, file };
          });
          const buf = await encodeObjectsFile(MANIFEST_ENTRY_SCHEMA, entries.map(manifestEntryToRecord), { codec: 'null', syncInterval: 256 });
          assert.equal(canon(direct(buf)), canon(generic(buf)));
        },
      ),
      { numRuns: 150 },
    );
  });

  test('a truncated block is CORRUPT_METADATA, as in the generic decoder', async () => {
    const buf = await encodeObjectsFile(MANIFEST_ENTRY_SCHEMA, [manifestEntryToRecord(varied(1)), manifestEntryToRecord(varied(2))], { codec: 'null' });
    const [block] = [...readBlocks(buf, 'm')];
    for (const cut of [1, 7, 30, block.data.length - 1]) {
      const data = block.data.subarray(0, block.data.length - cut);
      assert.throws(() => decodeManifestEntries(data, block.count, 'm'), (e: unknown) => isPaimonError(e, 'CORRUPT_METADATA') && /truncated/.test((e as Error).message));
    }
  });

  test('an unknown entry version or file kind is refused like the generic path', async () => {
    for (const [field, value, code] of [
      ['_VERSION', 3, 'UNSUPPORTED_FORMAT'],
      ['_KIND', 5, 'CORRUPT_METADATA'],
    ] as const) {
      const rec = { ...manifestEntryToRecord(varied(1)), [field]: value };
      const buf = await encodeObjectsFile(MANIFEST_ENTRY_SCHEMA, [rec], { codec: 'null' });
      const [block] = [...readBlocks(buf, 'm')];
      let genericError: unknown;
      try {
        generic(buf);
      } catch (e) {
        genericError = e;
      }
      assert.ok(isPaimonError(genericError, code));
      assert.throws(
        () => decodeManifestEntries(block.data, block.count, 'm'),
        (e: unknown) => isPaimonError(e, code) && (e as Error).message === (genericError as Error).message,
      );
    }
  });

  test('layout check: names, defaults and logical types do not matter; fields and their order do', () => {
    assert.ok(hasCurrentManifestEntryLayout(JSON.stringify(MANIFEST_ENTRY_SCHEMA)));
    const renamed = JSON.parse(JSON.stringify(MANIFEST_ENTRY_SCHEMA).replaceAll('org.apache.paimon.avro.generated.', 'x.')) as Record<string, unknown>;
    (renamed as { doc?: string }).doc = 'other doc';
    assert.ok(hasCurrentManifestEntryLayout(JSON.stringify(renamed)));
    const fields = (MANIFEST_ENTRY_SCHEMA.fields as { name: string; type: { fields?: unknown[] } }[]).map((f) => ({ ...f }));
    const file = fields.find((f) => f.name === '_FILE') as { type: { fields: { name: string }[] } };
    // An older manifest schema without the last DataFileMeta field.
    const older = { ...MANIFEST_ENTRY_SCHEMA, fields: fields.map((f) => (f.name === '_FILE' ? { ...f, type: { ...file.type, fields: file.type.fields.slice(0, -1) } } : f)) };
    assert.ok(!hasCurrentManifestEntryLayout(JSON.stringify(older)));
    const swapped = { ...MANIFEST_ENTRY_SCHEMA, fields: [fields[1], fields[0], ...fields.slice(2)] };
    assert.ok(!hasCurrentManifestEntryLayout(JSON.stringify(swapped)));
    assert.ok(!hasCurrentManifestEntryLayout(JSON.stringify(MANIFEST_FILE_META_SCHEMA)));
    assert.ok(!hasCurrentManifestEntryLayout('not json'));
  });
});

describe('zstd blocks', () => {
  /** Zig-zag varint as Avro writes a long. */
  const varint = (v: number): Buffer => {
    const out: number[] = [];
    let n = v >= 0 ? v * 2 : -v * 2 - 1;
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      out.push(b);
    } while (n > 0);
    return Buffer.from(out);
  };

  test('a frame without a content size (as Java streams it) decodes to the same entries', async () => {
    await prepareCodecs(); // the WebAssembly decoder, with a capacity bound instead of a declared size
    const entries = Array.from({ length: 120 }, (_, i) => varied(i));
    const buf = await encodeObjectsFile(MANIFEST_ENTRY_SCHEMA, entries.map(manifestEntryToRecord), { codec: 'zstandard', syncInterval: 1 << 30 });
    const header = readHeader(buf, 'm');
    // One block: count, size, frame, sync. Rewrite the frame header without its content size.
    const raw = [...readBlocks(buf, 'm', { ...header, codec: 'null' })];
    assert.equal(raw.length, 1);
    const frame = raw[0].data;
    const fhd = frame[4];
    const single = (fhd & 0x20) !== 0;
    const fcsBytes = fhd >> 6 === 0 ? (single ? 1 : 0) : [0, 2, 4, 8][fhd >> 6];
    const dictBytes = [0, 1, 2, 4][fhd & 3];
    const rest = frame.subarray(5 + (single ? 0 : 1) + dictBytes + fcsBytes);
    // Not single-segment, no content size; window 2^20 covers the block (Window_Descriptor 10 << 3).
    const noSize = Buffer.concat([frame.subarray(0, 4), Buffer.from([fhd & 0x07, 10 << 3]), frame.subarray(5 + (single ? 0 : 1), 5 + (single ? 0 : 1) + dictBytes), rest]);
    const file = Buffer.concat([buf.subarray(0, header.dataStart), varint(raw[0].count), varint(noSize.length), noSize, header.sync]);
    assert.equal(canon(direct(file)), canon(entries));
    assert.equal(canon(generic(file)), canon(entries));
  });
});
