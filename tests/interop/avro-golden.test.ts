/**
 * Golden bytes written by Paimon Java during this run (PaimonTool `golden`): BinaryRows of every
 * type, a manifest and a manifest list from a real commit. We decode them exactly, and our encoders
 * reproduce them byte for byte (rows from Java's own values; Avro records from the decoded entries,
 * compared with the decompressed record bytes of Java's file; the Avro schemas in the file headers).
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson, type JsonObject } from '../../src/paimon/spec/json.js';
import { binaryFieldTypeFromSql, deserializeBinaryRow, toBinaryRow, type BinaryFieldType } from '../../src/paimon/spec/binary-row.js';
import { readBlocks, readHeader, readObjectsFile } from '../../src/paimon/spec/objects-file.js';
import { avroType, MANIFEST_ENTRY_SCHEMA, MANIFEST_FILE_META_SCHEMA } from '../../src/paimon/spec/avro-schemas.js';
import { manifestEntryFromRecord, manifestEntryToRecord } from '../../src/paimon/spec/manifest-entry.js';
import { manifestFileMetaFromRecord, manifestFileMetaToRecord } from '../../src/paimon/spec/manifest-file-meta.js';
import { VERSIONS, arr, assertEntry, assertStats, big, canonicalToValue, obj, paimonToolJson, tempDir, valueToCanonical } from './avro-support.js';

/** Avro schema with every named type spelled by full name, for structural comparison. */
function normalizeSchema(s: unknown, ns = ''): unknown {
  if (typeof s === 'string') return s;
  if (Array.isArray(s)) return s.map((x) => normalizeSchema(x, ns));
  const o = s as Record<string, unknown>;
  if (o.type === 'record') {
    const name = String(o.name);
    const full = name.includes('.') ? name : `${(o.namespace as string | undefined) ?? ns}.${name}`;
    const childNs = full.slice(0, full.lastIndexOf('.'));
    return {
      type: 'record',
      name: full,
      fields: (o.fields as Record<string, unknown>[]).map((f) => ({
        name: f.name,
        type: normalizeSchema(f.type, childNs),
        ...('default' in f ? { default: f.default } : {}),
      })),
    };
  }
  if (o.type === 'array') return { type: 'array', items: normalizeSchema(o.items, ns) };
  return { ...o };
}

function recordBytes(file: Buffer): Buffer {
  return Buffer.concat([...readBlocks(file, 'golden')].map((b) => b.data));
}

for (const version of VERSIONS) {
  describe(`golden bytes from Paimon Java ${version}`, () => {
    let dir = '';
    let golden: JsonObject;
    before(async () => {
      dir = tempDir(`golden-${version}-`);
      await paimonToolJson(version, 'golden', dir);
      golden = obj(parseJson(readFileSync(join(dir, 'golden.json'), 'utf8'), 'golden.json'));
    });

    test('every BinaryRow decodes to the values Java reports, and re-encodes to the same bytes', () => {
      const rows = arr(golden.binaryRows).map(obj);
      assert.ok(rows.length > 100, `expected the full type matrix, got ${rows.length} rows`);
      for (const r of rows) {
        const name = String(r.name);
        const types: BinaryFieldType[] = arr(r.types).map((t) => binaryFieldTypeFromSql(String(t)));
        const raw = readFileSync(join(dir, String(r.file)));
        const ser = readFileSync(join(dir, String(r.serializedFile)));
        const row = deserializeBinaryRow(ser);
        assert.equal(row.arity, types.length, name);
        assert.equal(row.bytes.toString('hex'), raw.toString('hex'), `${name}: serialized form = arity + row bytes`);
        const javaValues = arr(r.values);
        const ours = row.toValues(types);
        for (let i = 0; i < types.length; i++) {
          const t = types[i];
          if (t.root === 'FLOAT' && ours[i] !== null) assert.equal(ours[i], Math.fround(Number(javaValues[i])), `${name}[${i}]`);
          else if (t.root === 'DOUBLE' && ours[i] !== null) assert.equal(ours[i], Number(String(javaValues[i])), `${name}[${i}]`);
          else if (t.root === 'BIGINT' && ours[i] !== null) assert.equal(ours[i], BigInt(javaValues[i] as number | bigint), `${name}[${i}]`);
          else if (t.root === 'TIME' && ours[i] !== null) assert.equal(ours[i], canonicalToValue(t, javaValues[i]), `${name}[${i}]`);
          else if (t.root === 'DATE' && ours[i] !== null) assert.equal(ours[i], canonicalToValue(t, javaValues[i]), `${name}[${i}]`);
          else assert.deepEqual(valueToCanonical(t, ours[i]), javaValues[i], `${name}[${i}] (${t.root})`);
        }
        // Our encoder, fed with Java's values (not with our decoder's output), writes Java's bytes.
        const encoded = toBinaryRow(types, types.map((t, i) => canonicalToValue(t, javaValues[i])));
        assert.equal(encoded.serialize().toString('hex'), ser.toString('hex'), `${name}: encoder reproduces Java's bytes`);
      }
    });

    test('the manifest decodes to the entries Java reports; our schema and record bytes equal Java\'s', () => {
      const m = obj(golden.manifest);
      const file = readFileSync(join(dir, String(m.file)));
      assert.equal(BigInt(file.length), big(m.fileSize), 'manifest size recorded by Java');
      const header = readHeader(file, 'manifest');
      assert.equal(header.codec, 'zstandard', 'Paimon writes manifests with zstd by default');
      assert.deepEqual(normalizeSchema(MANIFEST_ENTRY_SCHEMA), normalizeSchema(JSON.parse(header.schema)));
      const entries = [...readObjectsFile(file, 'manifest')].map((r) => manifestEntryFromRecord(r, 'manifest'));
      const javaEntries = arr(m.entries).map(obj);
      assert.equal(entries.length, javaEntries.length);
      assert.ok(entries.length >= 2);
      entries.forEach((e, i) => assertEntry(e, javaEntries[i]));
      const type = avroType(MANIFEST_ENTRY_SCHEMA);
      const ours = Buffer.concat(entries.map((e) => type.toBuffer(manifestEntryToRecord(e))));
      assert.equal(ours.toString('hex'), recordBytes(file).toString('hex'), 'Avro record bytes');
    });

    test('the manifest list decodes to the metas Java reports; our schema and record bytes equal Java\'s', () => {
      const ml = obj(golden.manifestList);
      const file = readFileSync(join(dir, String(ml.file)));
      assert.equal(BigInt(file.length), big(ml.fileSize), 'manifest list size recorded in the snapshot');
      const header = readHeader(file, 'manifest list');
      assert.deepEqual(normalizeSchema(MANIFEST_FILE_META_SCHEMA), normalizeSchema(JSON.parse(header.schema)));
      const metas = [...readObjectsFile(file, 'manifest list')].map((r) => manifestFileMetaFromRecord(r, 'manifest list'));
      const java = arr(obj(ml.content).manifests).map(obj);
      assert.equal(metas.length, java.length);
      metas.forEach((m, i) => {
        const j = java[i];
        assert.equal(m.fileName, j.fileName);
        assert.equal(m.fileSize, big(j.fileSize));
        assert.equal(m.numAddedFiles, big(j.numAddedFiles));
        assert.equal(m.numDeletedFiles, big(j.numDeletedFiles));
        assertStats(m.partitionStats, obj(j.partitionStats), 'partition stats');
        assert.equal(m.schemaId, big(j.schemaId));
        assert.equal(m.minBucket, j.minBucket);
        assert.equal(m.maxBucket, j.maxBucket);
        assert.equal(m.minLevel, j.minLevel);
        assert.equal(m.maxLevel, j.maxLevel);
        assert.equal(m.minRowId, big(j.minRowId));
        assert.equal(m.maxRowId, big(j.maxRowId));
      });
      const type = avroType(MANIFEST_FILE_META_SCHEMA);
      const ours = Buffer.concat(metas.map((m) => type.toBuffer(manifestFileMetaToRecord(m))));
      assert.equal(ours.toString('hex'), recordBytes(file).toString('hex'), 'Avro record bytes');
    });
  });
}
