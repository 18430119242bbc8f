/**
 * The field-by-field merge of a data-evolution file group and the planner's handling of blob
 * files, with cases taken from Paimon's own tests and rules: DataEvolutionTableTest.testBasic
 * (a full file, then a file of f2 only over the same row: the row reads f0, f1 of the first and f2
 * of the second), DataEvolutionSplitRead.createUnionReader (files newest first by max sequence
 * number, fields matched by field id, an unheld NOT NULL field is an error) and
 * DataEvolutionCompactCoordinator (blob files are not part of a task when blob compaction is off).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { fieldsOfFile, mergeFieldRows, planFieldMerge } from '../../../../src/paimon/compact/data-evolution-merge.js';
import { checkDataEvolutionCompactable, dataEvolutionWriteType, planDataEvolution } from '../../../../src/paimon/compact/data-evolution-compaction.js';
import { checkCompactable } from '../../../../src/paimon/compact/compact-table.js';
import { PaimonError } from '../../../../src/paimon/errors.js';
import { parseTableSchema } from '../../../../src/paimon/spec/table-schema.js';
import type { DataFieldSpec, FieldType } from '../../../../src/paimon/data/field-type.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';

const INT: FieldType = { root: 'INT', nullable: true };
const STRING: FieldType = { root: 'VARCHAR', nullable: true, length: 2147483647 };
const f = (id: number, name: string, type: FieldType = STRING): DataFieldSpec => ({ id, name, type });

describe('planFieldMerge / mergeFieldRows', () => {
  const table = [f(0, 'f0', INT), f(1, 'f1'), f(2, 'f2')];

  test('a partial file over the same row gives its column; the full file the others (DataEvolutionTableTest.testBasic)', () => {
    const files = [
      { name: 'full', fields: fieldsOfFile(table, null), maxSequenceNumber: 1n },
      { name: 'f2', fields: fieldsOfFile(table, ['f2']), maxSequenceNumber: 2n },
    ];
    const plan = planFieldMerge(table, files, 't');
    assert.deepEqual(plan.order, [1, 0]);
    assert.deepEqual(plan.perFile[0].winners.map((x) => x.name), ['f0', 'f1']);
    assert.deepEqual(plan.perFile[1].winners.map((x) => x.name), ['f2']);
    assert.deepEqual(mergeFieldRows(plan, [[[1, 'a']], [['c']]], 1), [[1, 'a', 'c']]);
  });

  test('the file of the highest max sequence number wins a field both hold, whatever the input order', () => {
    const files = [
      { name: 'new-f1', fields: fieldsOfFile(table, ['f1']), maxSequenceNumber: 9n },
      { name: 'full', fields: fieldsOfFile(table, null), maxSequenceNumber: 1n },
      { name: 'old-f1', fields: fieldsOfFile(table, ['f1']), maxSequenceNumber: 5n },
    ];
    const plan = planFieldMerge(table, files, 't');
    assert.deepEqual(plan.sources, [{ file: 1, column: 0 }, { file: 0, column: 0 }, { file: 1, column: 1 }]);
    assert.deepEqual(plan.perFile[2].winners, [], 'an older file of the same column gives nothing');
    assert.deepEqual(mergeFieldRows(plan, [[['new']], [[7, null]], null], 1), [[7, 'new', null]]);
  });

  test('fields are matched by id: a file of an older schema gives a renamed column, an added column reads null', () => {
    const older = [f(0, 'f0', INT), f(1, 'old_name')];
    const current = [f(0, 'f0', INT), f(1, 'f1'), f(3, 'added')];
    const plan = planFieldMerge(current, [{ name: 'old', fields: fieldsOfFile(older, ['old_name']), maxSequenceNumber: 3n }, { name: 'full', fields: fieldsOfFile(older, null), maxSequenceNumber: 1n }], 't');
    assert.deepEqual(plan.perFile[0].fileFields.map((x) => x.name), ['old_name'], 'read under the name of its own schema');
    assert.equal(plan.sources[2], null);
    assert.deepEqual(mergeFieldRows(plan, [[['v']], [[1]]], 1), [[1, 'v', null]]);
  });

  test('a NOT NULL field no file holds is refused as CORRUPT_METADATA', () => {
    const read = [f(0, 'f0', { root: 'INT', nullable: false }), f(1, 'f1')];
    assert.throws(() => planFieldMerge(read, [{ name: 'x', fields: fieldsOfFile(read, ['f1']), maxSequenceNumber: 1n }], 't'), (e: Error & { code?: string }) => e.code === 'CORRUPT_METADATA');
  });
});

describe('blob files in data-evolution compaction', () => {
  const meta = (fileName: string, firstRowId: bigint, rowCount: bigint): DataFileMeta => ({ fileName, firstRowId, rowCount, fileSize: 100n, minSequenceNumber: 1n, maxSequenceNumber: 1n } as DataFileMeta);

  test('the planner leaves blob files out of the tasks (compactBlob = false)', () => {
    const files = [meta('d0.parquet', 0n, 3n), meta('b0.blob', 0n, 3n), meta('d1.parquet', 3n, 3n), meta('b1.blob', 3n, 3n)];
    const tasks = planDataEvolution(files, { targetFileSize: 1 << 20, openFileCost: 10, minFileNum: 2 });
    assert.deepEqual(tasks.map((t) => t.map((x) => x.fileName)), [['d0.parquet', 'd1.parquet']]);
  });

  test('the write type drops BLOB fields kept in blob files, not inline ones (CoreOptions.blobInlineField)', () => {
    const blob: FieldType = { root: 'BLOB', nullable: true };
    const target = { id: 0, fields: [], partitionKeys: [], primaryKeys: [], options: {}, fieldSpecs: [f(0, 'id', INT), f(1, 'pic', blob), f(2, 'doc', blob)] };
    assert.deepEqual(dataEvolutionWriteType(target, {}).writeCols, ['id']);
    assert.deepEqual(dataEvolutionWriteType(target, { 'blob-descriptor-field': 'doc' }).writeCols, ['id', 'doc']);
    assert.equal(dataEvolutionWriteType({ ...target, fieldSpecs: [f(0, 'id', INT)] }, {}).writeCols, null);
  });
});

describe('what data-evolution compaction accepts', () => {
  const meta = (fileName: string, writeCols: string[] | null): DataFileMeta => ({ fileName, firstRowId: 0n, rowCount: 3n, writeCols } as DataFileMeta);
  const refused = (fn: () => void, why: RegExp): void => {
    assert.throws(fn, (e: unknown) => e instanceof PaimonError && e.code === 'UNSUPPORTED_TABLE' && why.test(e.message) && /CALL sys\.compact/.test(e.message));
  };
  const DE = { bucket: '-1', 'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true' };
  const schema = (options: Record<string, string>, primaryKeys: string[] = []) => parseTableSchema(JSON.stringify({
    version: 3, id: 0, highestFieldId: 2, partitionKeys: [], primaryKeys, options, timeMillis: 0,
    fields: [{ id: 0, name: 'id', type: 'INT NOT NULL' }, { id: 1, name: 'v', type: 'STRING' }, { id: 2, name: 'pic', type: 'BLOB' }],
  }));

  test('files of some columns and blob files are accepted; vector-store files and tables are refused', () => {
    assert.doesNotThrow(() => checkDataEvolutionCompactable('db.t', [meta('a.parquet', ['v']), meta('b.blob', ['pic'])], DE, false));
    refused(() => checkDataEvolutionCompactable('db.t', [meta('a.vector.lance', ['e'])], DE, false), /vector-store/);
    refused(() => checkDataEvolutionCompactable('db.t', [], { ...DE, 'vector.file.format': 'lance' }, false), /vector-store/);
  });

  test('a BLOB column kept in blob files passes checkCompactable only on a data-evolution append table, not stored inline', () => {
    assert.doesNotThrow(() => checkCompactable('db.t', schema(DE), DE));
    refused(() => checkCompactable('db.t', schema({ ...DE, 'blob-descriptor-field': 'pic' }), { ...DE, 'blob-descriptor-field': 'pic' }), /column pic holds BLOB/);
    refused(() => checkCompactable('db.t', schema({ bucket: '2' }, ['id']), { bucket: '2' }), /column pic holds BLOB/);
  });
});
