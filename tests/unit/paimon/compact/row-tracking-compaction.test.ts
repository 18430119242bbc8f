/**
 * Row-tracking and data-evolution compaction, the pure parts: how a row's _ROW_ID and
 * _SEQUENCE_NUMBER are derived when a file does not hold them
 * (`ColumnarRowIterator.assignRowTracking`), which tables and files compact accepts, and the
 * plan of `DataEvolutionCompactCoordinator` (`RangeHelper.mergeOverlappingRanges`, the bins).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { rowTrackingEnabled, trackedFields } from '../../../../src/paimon/compact/row-tracking-compaction.js';
import { checkCompactable } from '../../../../src/paimon/compact/compact-table.js';
import { checkDataEvolutionCompactable, mergeOverlappingRanges, planDataEvolution } from '../../../../src/paimon/compact/data-evolution-compaction.js';
import { BinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { PaimonError } from '../../../../src/paimon/errors.js';
import { parseTableSchema, type TableSchema } from '../../../../src/paimon/spec/table-schema.js';

const file = { fileName: 'data-1.parquet', firstRowId: 100n, maxSequenceNumber: 7n };

describe('trackedFields', () => {
  test('a row without physical values gets firstRowId + its position and the file\'s max sequence number', () => {
    assert.deepEqual(trackedFields(file, 0, null, null), [100n, 7n]);
    assert.deepEqual(trackedFields(file, 5, null, null), [105n, 7n]);
  });

  test('physical values win over the file\'s', () => {
    assert.deepEqual(trackedFields(file, 5, 42n, 3n), [42n, 3n]);
    assert.deepEqual(trackedFields({ ...file, firstRowId: null }, 5, 42n, null), [42n, 7n]);
  });

  test('a file with neither a first row id nor a _ROW_ID value is corrupt metadata', () => {
    assert.throws(() => trackedFields({ ...file, firstRowId: null }, 0, null, 1n), (e: unknown) => e instanceof PaimonError && e.code === 'CORRUPT_METADATA' && /data-1\.parquet/.test(e.message));
  });
});

function schema(options: Record<string, string>): TableSchema {
  return parseTableSchema(JSON.stringify({
    version: 3, id: 0, highestFieldId: 1, partitionKeys: [], primaryKeys: [], options, timeMillis: 0,
    fields: [{ id: 0, name: 'id', type: 'INT NOT NULL' }, { id: 1, name: 'v', type: 'STRING' }],
  }));
}

describe('checkCompactable for row-tracking tables', () => {
  test('an unaware-bucket row-tracking append table is accepted', () => {
    const o = { bucket: '-1', 'row-tracking.enabled': 'true' };
    assert.equal(rowTrackingEnabled(o), true);
    assert.doesNotThrow(() => checkCompactable('db.t', schema(o), o));
  });

  test('a data-evolution table is accepted; without row tracking it is refused', () => {
    const o = { bucket: '-1', 'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true' };
    assert.doesNotThrow(() => checkCompactable('db.t', schema(o), o));
    const bad = { bucket: '-1', 'data-evolution.enabled': 'true' };
    assert.throws(() => checkCompactable('db.t', schema(bad), bad), (e: unknown) =>
      e instanceof PaimonError && e.code === 'UNSUPPORTED_TABLE' && e.message.startsWith('compact on db.t: ') && /data-evolution/.test(e.message) && /Spark CALL sys\.compact/.test(e.message));
  });

  test('a row-tracking table with deletion vectors is accepted (compacted as an append table with its vectors)', () => {
    const o = { bucket: '-1', 'row-tracking.enabled': 'true', 'deletion-vectors.enabled': 'true' };
    assert.doesNotThrow(() => checkCompactable('db.t', schema(o), o));
  });

  test('a row-tracking table with fixed buckets (which Java does not create) is refused', () => {
    const o = { bucket: '2', 'row-tracking.enabled': 'true' };
    assert.throws(() => checkCompactable('db.t', schema(o), o), (e: unknown) => e instanceof PaimonError && e.code === 'UNSUPPORTED_TABLE' && /bucket = -1/.test(e.message));
  });
});

const MB = 1024 * 1024;

function meta(name: string, firstRowId: bigint, rowCount: bigint, fileSize = MB, writeCols: string[] | null = null): DataFileMeta {
  const m: DataFileMeta = {
    fileName: name, fileSize: BigInt(fileSize), rowCount, minKey: BinaryRow.EMPTY_ROW, maxKey: BinaryRow.EMPTY_ROW, keyStats: EMPTY_STATS, valueStats: EMPTY_STATS,
    minSequenceNumber: 1n, maxSequenceNumber: 1n, schemaId: 0n, level: 0, extraFiles: [], creationTime: 0n, deleteRowCount: 0n, embeddedIndex: null,
    fileSource: 0, valueStatsCols: null, externalPath: null, firstRowId, writeCols,
  };
  return m;
}

const names = (groups: DataFileMeta[][]): string[][] => groups.map((g) => g.map((f) => f.fileName));
const plan = { targetFileSize: 256 * MB, openFileCost: 4 * MB, minFileNum: 5 };

describe('mergeOverlappingRanges', () => {
  test('groups overlapping ranges, each group in input order, groups in range order', () => {
    const items = [[10n, 12n], [0n, 3n], [3n, 5n], [20n, 21n], [11n, 15n]] as const;
    assert.deepEqual(mergeOverlappingRanges(items, (r) => [r[0], r[1]]), [[[0n, 3n], [3n, 5n]], [[10n, 12n], [11n, 15n]], [[20n, 21n]]]);
  });
});

describe('planDataEvolution', () => {
  test('contiguous files make one task once there are compaction.min.file-num of them; a gap splits the groups', () => {
    const five = [0n, 3n, 6n, 9n, 12n].map((r, i) => meta(`a${i}`, r, 3n));
    assert.deepEqual(names(planDataEvolution(five, plan)), [['a0', 'a1', 'a2', 'a3', 'a4']]);
    assert.deepEqual(planDataEvolution(five.slice(0, 4), plan), [], 'four files: no task');
    const gap = [...five.slice(0, 3), meta('b0', 100n, 3n), meta('b1', 103n, 3n)];
    assert.deepEqual(planDataEvolution(gap, plan), [], 'row ids 0-8 and 100-105 are two groups of fewer than five files');
  });

  test('files of the same row-id range go together; a file group heavier than the target is a task of its own', () => {
    const files = [meta('x0', 0n, 3n), meta('x0-cols', 0n, 3n), meta('x1', 3n, 3n, 300 * MB), meta('x2', 6n, 3n), meta('x3', 9n, 3n), meta('x4', 12n, 3n), meta('x5', 15n, 3n), meta('x6', 18n, 3n)];
    // x1 alone (one file: no task); x0 + x0-cols before it (two files: no task); x2..x6 after it.
    assert.deepEqual(names(planDataEvolution(files, plan)), [['x2', 'x3', 'x4', 'x5', 'x6']]);
  });

  test('a bin is closed when it passes the target size', () => {
    const files = Array.from({ length: 12 }, (_, i) => meta(`f${i}`, BigInt(i * 3), 3n, 50 * MB));
    // 50 MB each: the sixth file makes 300 MB > 256 MB and closes the bin.
    assert.deepEqual(names(planDataEvolution(files, plan)), [['f0', 'f1', 'f2', 'f3', 'f4', 'f5'], ['f6', 'f7', 'f8', 'f9', 'f10', 'f11']]);
  });

  test('overlapping files that do not cover the same rows are corrupt metadata', () => {
    const files = [meta('p', 0n, 3n), meta('q', 1n, 3n), ...[3n, 6n, 9n, 12n].map((r, i) => meta(`r${i}`, r + 1n, 3n))];
    assert.throws(() => planDataEvolution(files, plan), (e: unknown) => e instanceof PaimonError && e.code === 'CORRUPT_METADATA');
  });
});

describe('checkDataEvolutionCompactable', () => {
  const refused = (fn: () => void, why: RegExp): void => {
    assert.throws(fn, (e: unknown) => e instanceof PaimonError && e.code === 'UNSUPPORTED_TABLE' && e.message.startsWith('compact on db.t: ') && why.test(e.message) && /Spark CALL sys\.compact/.test(e.message));
  };
  test('full-row files are accepted', () => {
    assert.doesNotThrow(() => checkDataEvolutionCompactable('db.t', [meta('a', 0n, 3n)], {}, false));
  });
  test('files of some columns and blob files are accepted', () => {
    assert.doesNotThrow(() => checkDataEvolutionCompactable('db.t', [meta('a', 0n, 3n, MB, ['v']), meta('a.blob', 0n, 3n)], {}, false));
  });
  test('vector-store files, deletion vectors and index files are refused', () => {
    refused(() => checkDataEvolutionCompactable('db.t', [meta('a.vector.lance', 0n, 3n)], {}, false), /vector-store/);
    refused(() => checkDataEvolutionCompactable('db.t', [], { 'deletion-vectors.enabled': 'true' }, false), /deletion vectors/);
    refused(() => checkDataEvolutionCompactable('db.t', [], {}, true), /index files/);
  });
});
