/**
 * partial-update merge function (sequence groups, aggregators in groups, retracts, deletes, nulls):
 * the scenarios and expected rows of Paimon's own PartialUpdateMergeFunction behaviour (1.4.2 and
 * 2.0.0 agree on all of them), driven record by record as Paimon's merge does.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createMergeFunction, type MergeFunction } from '../../../../src/paimon/compact/merge-function.js';
import type { DataFieldSpec, FieldType } from '../../../../src/paimon/data/field-type.js';
import { RowKind, type Datum, type RowKindByte } from '../../../../src/paimon/data/internal-row.js';

const INT: FieldType = { root: 'INT', nullable: true };
const fieldsN = (n: number, notNull: number[] = []): DataFieldSpec[] =>
  Array.from({ length: n }, (_, i) => ({ id: i, name: `f${i}`, type: { ...INT, nullable: !notNull.includes(i) } as FieldType }));

class Driver {
  private seq = 0n;
  constructor(readonly mf: MergeFunction) {
    mf.reset();
  }
  add(...v: Array<number | null>): this {
    return this.addKind(RowKind.INSERT, ...v);
  }
  addKind(kind: RowKindByte, ...v: Array<number | null>): this {
    this.mf.add({ key: [1], sequenceNumber: this.seq++, valueKind: kind, value: v as Datum[] });
    return this;
  }
  get row(): Datum[] {
    return this.mf.result()!.value;
  }
  get kind(): number {
    return this.mf.result()!.valueKind;
  }
}

function pu(n: number, options: Record<string, string>, notNull: number[] = []): Driver {
  return new Driver(createMergeFunction(fieldsN(n, notNull), ['f0'], { 'merge-engine': 'partial-update', ...options }).createUnwrapped());
}

describe('partial-update without sequence groups', () => {
  test('non-null fields overwrite; the result is an INSERT', () => {
    const d = pu(7, {}).add(1, 1, 1, 1, 1, 1, 1).add(1, 2, 2, 2, 2, 2, null);
    assert.deepEqual(d.row, [1, 2, 2, 2, 2, 2, 1]);
    assert.equal(d.kind, RowKind.INSERT);
  });
  test('retracts are refused by default, naming the options', () => {
    const d = pu(3, {}).add(1, 1, 1);
    assert.throws(() => d.addKind(RowKind.DELETE, 1, 1, 1), /ignore-delete.*remove-record-on-delete.*sequence-group/s);
  });
  test('ignore-delete skips retracts; a leading retract still seeds the row, and alone it is a DELETE', () => {
    const d = pu(3, { 'ignore-delete': 'true' }).addKind(RowKind.DELETE, 1, 9, 9).add(1, 5, null);
    assert.deepEqual(d.row, [1, 5, 9]);
    assert.equal(d.kind, RowKind.INSERT);
    const only = pu(3, { 'partial-update.ignore-delete': 'true' }).addKind(RowKind.UPDATE_BEFORE, 1, 9, 9);
    assert.equal(only.kind, RowKind.DELETE);
  });
  test('remove-record-on-delete: DELETE removes the row (its values seed later records), -U is skipped', () => {
    const d = pu(4, { 'partial-update.remove-record-on-delete': 'true' }, [0, 1]).add(1, 3, 5, 7).addKind(RowKind.DELETE, 1, 2, 2, null);
    assert.deepEqual(d.row, [1, 2, 2, null]);
    assert.equal(d.kind, RowKind.DELETE);
    d.add(1, 4, null, 8);
    assert.deepEqual(d.row, [1, 4, 2, 8]);
    assert.equal(d.kind, RowKind.INSERT);
    d.addKind(RowKind.UPDATE_BEFORE, 1, 4, 2, 8);
    assert.deepEqual(d.row, [1, 4, 2, 8]);
    assert.equal(d.kind, RowKind.INSERT);
    const s = pu(5, { 'partial-update.remove-record-on-delete': 'true' }).add(1, 1, 1, 1, 1).addKind(RowKind.DELETE, 1, 1, 1, 1, 1);
    assert.equal(s.mf.result()!.sequenceNumber, 1n);
  });
  test('a NOT NULL field set to null fails as in Paimon', () => {
    assert.throws(() => pu(3, {}, [0, 2]).add(1, 1, 1).add(1, 2, null), /Field 2 can not be null/);
  });
  test('aggregate functions other than last_non_null_value need a sequence group', () => {
    assert.throws(() => pu(5, { 'fields.f1.aggregate-function': 'listagg' }), /Must use sequence group for aggregation functions but not found for field f1/);
    assert.throws(() => pu(5, { 'fields.f2.sequence-group': 'f1', 'fields.f1.aggregate-function': 'sum', 'fields.f3.aggregate-function': 'sum' }), /not found for field f3/);
    pu(3, { 'fields.default-aggregate-function': 'last_non_null_value' });
  });
});

describe('partial-update with sequence groups', () => {
  test('each group updates only when its sequence is not older; deletes retract the group', () => {
    const d = pu(7, { 'fields.f3.sequence-group': 'f1,f2', 'fields.f6.sequence-group': 'f4,f5' });
    d.add(1, 1, 1, 1, 1, 1, 1).add(1, 2, 2, 2, 2, 2, null);
    assert.deepEqual(d.row, [1, 2, 2, 2, 1, 1, 1]);
    d.add(1, 3, 3, 1, 3, 3, 3);
    assert.deepEqual(d.row, [1, 2, 2, 2, 3, 3, 3]);
    d.addKind(RowKind.DELETE, 1, 1, 1, 3, 1, 1, null);
    assert.deepEqual(d.row, [1, null, null, 3, 3, 3, 3]);
    d.addKind(RowKind.DELETE, 1, 1, 1, 3, 1, 1, 4);
    assert.deepEqual(d.row, [1, null, null, 3, null, null, 4]);
    d.add(1, 4, 4, 4, 5, 5, 5);
    assert.deepEqual(d.row, [1, 4, 4, 4, 5, 5, 5]);
    d.addKind(RowKind.DELETE, 1, 1, 1, 6, 1, 1, 6);
    assert.deepEqual(d.row, [1, null, null, 6, null, null, 6]);
    assert.equal(d.kind, RowKind.INSERT);
  });
  test('remove-record-on-sequence-group: a DELETE of that group removes the whole row', () => {
    const d = pu(7, { 'fields.f3.sequence-group': 'f1,f2', 'fields.f6.sequence-group': 'f4,f5', 'partial-update.remove-record-on-sequence-group': 'f6' });
    d.add(1, 1, 1, 1, 1, 1, 1).add(1, 2, 2, 2, 2, 2, null).add(1, 3, 3, 1, 3, 3, 3);
    d.addKind(RowKind.DELETE, 1, 1, 1, 3, 1, 1, null);
    assert.deepEqual(d.row, [1, null, null, 3, 3, 3, 3]);
    assert.equal(d.kind, RowKind.INSERT);
    d.addKind(RowKind.DELETE, 1, 1, 1, 3, 1, 1, 4);
    assert.deepEqual(d.row, [1, 1, 1, 3, 1, 1, 4]);
    assert.equal(d.kind, RowKind.DELETE);
    d.add(1, 4, 4, 4, 5, 5, 5);
    assert.deepEqual(d.row, [1, 4, 4, 4, 5, 5, 5]);
    assert.equal(d.kind, RowKind.INSERT);
    d.addKind(RowKind.DELETE, 1, 1, 1, 6, 1, 1, 6);
    assert.deepEqual(d.row, [1, 1, 1, 6, 1, 1, 6]);
    assert.equal(d.kind, RowKind.DELETE);
  });
  test('multiple sequence fields per group are compared in order and written together', () => {
    const opts = { 'fields.f3,f4.sequence-group': 'f1,f2', 'fields.f7,f8.sequence-group': 'f5,f6' };
    let d = pu(9, opts).add(1, null, null, null, null, 1, 1, 1, 3).add(1, 2, 2, null, null, 2, 2, 1, 3);
    assert.deepEqual(d.row, [1, null, null, null, null, 2, 2, 1, 3], 'a group whose sequence fields are all null is left alone');
    d = pu(9, opts).add(1, 1, 1, 1, 1, 1, 1, 1, 3).add(1, 2, 2, 2, 2, 2, 1, 1, null);
    assert.deepEqual(d.row, [1, 2, 2, 2, 2, 1, 1, 1, 3]);
    d.add(1, 1, 3, 1, 3, 3, 3, 3, 2);
    assert.deepEqual(d.row, [1, 2, 2, 2, 2, 3, 3, 3, 2]);
    d.addKind(RowKind.DELETE, 1, 1, 1, 3, 3, 1, 1, null, null);
    assert.deepEqual(d.row, [1, null, null, 3, 3, 3, 3, 3, 2]);
    d.addKind(RowKind.DELETE, 1, 1, 1, 3, 1, 1, 1, 4, 4);
    assert.deepEqual(d.row, [1, null, null, 3, 3, null, null, 4, 4]);
    d.add(1, 4, 4, 4, 4, 5, 5, 5, 5);
    assert.deepEqual(d.row, [1, 4, 4, 4, 4, 5, 5, 5, 5]);
    d.addKind(RowKind.DELETE, 1, 1, 1, 6, 1, 1, 1, 6, 1);
    assert.deepEqual(d.row, [1, null, null, 6, 1, null, null, 6, 1]);
  });
  test('default aggregate function last_non_null_value inside groups', () => {
    const d = pu(7, { 'fields.f3.sequence-group': 'f1,f2', 'fields.f6.sequence-group': 'f4,f5', 'fields.default-aggregate-function': 'last_non_null_value' });
    d.add(1, 1, 1, 1, 1, 1, 1).add(1, 2, 2, 2, 2, 2, null).add(1, 3, 3, 1, 3, 3, 3);
    assert.deepEqual(d.row, [1, 2, 2, 2, 3, 3, 3]);
    d.add(1, 4, null, 4, 5, null, 5);
    assert.deepEqual(d.row, [1, 4, 2, 4, 5, 3, 5]);
  });
  test('first_value / last_value in a group: older records go through aggReversed', () => {
    const d = pu(4, { 'fields.f1.sequence-group': 'f2,f3', 'fields.f2.aggregate-function': 'first_value', 'fields.f3.aggregate-function': 'last_value' });
    d.add(1, 1, 1, 1).add(1, 2, 2, 2);
    assert.deepEqual(d.row, [1, 2, 1, 2]);
    d.add(1, 0, 3, 3);
    assert.deepEqual(d.row, [1, 2, 3, 2]);
  });
  test('aggregators inside groups: sum, last_value, ignore-retract, null groups, retraction of old sequences', () => {
    const d = pu(8, {
      'fields.f1.sequence-group': 'f2,f3,f4', 'fields.f7.sequence-group': 'f6', 'fields.f0.aggregate-function': 'listagg',
      'fields.f2.aggregate-function': 'sum', 'fields.f4.aggregate-function': 'last_value', 'fields.f6.aggregate-function': 'last_non_null_value',
      'fields.f4.ignore-retract': 'true', 'fields.f6.ignore-retract': 'true',
    });
    d.add(1, 1, 1, 1, 1, 1, 1, 1).add(1, 2, 1, 2, 2, 2, 2, 0);
    assert.deepEqual(d.row, [1, 2, 2, 2, 2, 2, 1, 1]);
    d.add(1, 1, 1, 1, 1, 1, 2, 0);
    assert.deepEqual(d.row, [1, 2, 3, 2, 2, 1, 1, 1]);
    d.add(1, 1, -1, 1, 1, 2, 2, 0).add(1, 3, null, null, null, null, null, 2);
    assert.deepEqual(d.row, [1, 3, 2, null, null, 2, 1, 2]);
    d.add(1, 3, 1, 1, 1, 1, 1, 3);
    assert.deepEqual(d.row, [1, 3, 3, 1, 1, 1, 1, 3]);
    d.addKind(RowKind.UPDATE_BEFORE, 1, 3, 2, 1, 1, 1, 1, 3);
    assert.deepEqual(d.row, [1, 3, 1, null, 1, 1, 1, 3]);
    d.addKind(RowKind.DELETE, 1, 3, 2, 1, 1, 1, 1, 3);
    assert.deepEqual(d.row, [1, 3, -1, null, 1, 1, 1, 3]);
    d.addKind(RowKind.DELETE, 1, 2, 2, 1, 1, 1, 1, 3);
    assert.deepEqual(d.row, [1, 3, -3, null, 1, 1, 1, 3]);
  });
  test('multiple sequence fields with aggregators, null retract first', () => {
    const d = pu(9, {
      'fields.f1,f2.sequence-group': 'f3,f4,f5', 'fields.f7,f8.sequence-group': 'f6', 'fields.f3.aggregate-function': 'sum',
      'fields.f4.aggregate-function': 'first_value', 'fields.f5.aggregate-function': 'last_value', 'fields.f6.aggregate-function': 'last_non_null_value',
      'fields.f4.ignore-retract': 'true', 'fields.f6.ignore-retract': 'true',
    });
    d.add(1, null, null, 1, 1, 1, 1, 1, 1);
    assert.deepEqual(d.row, [1, null, null, null, null, null, 1, 1, 1]);
    d.addKind(RowKind.DELETE, 1, null, null, 1, 1, 1, 0, 1, 1);
    assert.deepEqual(d.row, [1, null, null, null, null, null, 1, 1, 1]);
    d.add(1, 1, 1, 1, 1, 1, 1, 1, 1).add(1, 1, 2, 1, 2, 2, null, 2, 0);
    assert.deepEqual(d.row, [1, 1, 2, 2, 1, 2, 1, 2, 0]);
    d.add(1, 1, 1, 1, 3, 1, 1, 2, 0);
    assert.deepEqual(d.row, [1, 1, 2, 3, 3, 2, 1, 2, 0]);
    d.add(1, 1, 3, null, null, null, null, 4, 2);
    assert.deepEqual(d.row, [1, 1, 3, 3, 3, null, 1, 4, 2]);
    d.add(1, 2, 3, 1, 1, 1, 1, 4, 3);
    assert.deepEqual(d.row, [1, 2, 3, 4, 3, 1, 1, 4, 3]);
    d.addKind(RowKind.UPDATE_BEFORE, 1, 2, 3, 2, 1, 2, 1, 4, 3);
    assert.deepEqual(d.row, [1, 2, 3, 2, 3, null, 1, 4, 3]);
  });
  test('a retract of a group without aggregator in an older sequence leaves the group', () => {
    const d = pu(4, { 'fields.f1.sequence-group': 'f2,f3' }).add(1, 5, 50, 500).addKind(RowKind.DELETE, 1, 4, 40, 400);
    assert.deepEqual(d.row, [1, 5, 50, 500]);
    assert.equal(d.kind, RowKind.INSERT);
  });
  test('option conflicts and bad groups are refused as Paimon refuses them', () => {
    assert.throws(() => pu(4, { 'fields.f0.sequence-group': 'f1,f2' }), /contains primary key field 'f0'/);
    assert.throws(() => pu(6, { 'fields.f4.sequence-group': 'f1,f0' }), /contains primary key field 'f0'/);
    assert.throws(() => pu(4, { 'fields.f1.sequence-group': 'f2', 'fields.f3.sequence-group': 'f2' }), /defined repeatedly/);
    assert.throws(() => pu(4, { 'fields.f1.sequence-group': 'f9' }), /Field f9 can not be found/);
    assert.throws(() => pu(5, { 'fields.f1.sequence-group': 'f2', 'fields.f2.sequence-group': 'f3' }), /ambiguous/);
    assert.throws(() => pu(5, { 'fields.f2.sequence-group': 'f3', 'fields.f1.sequence-group': 'f2' }), /ambiguous/);
    assert.throws(() => pu(5, { 'fields.f1.sequence-group': 'f2', 'fields.f1,f4.sequence-group': 'f3' }), /ambiguous/);
    assert.throws(() => pu(4, { 'fields.f1.sequence-group': 'f2', 'partial-update.remove-record-on-delete': 'true' }), /sequence-group and partial-update.remove-record-on-delete/);
    assert.throws(() => pu(4, { 'ignore-delete': 'true', 'partial-update.remove-record-on-delete': 'true' }), /conflicting/);
    assert.throws(() => pu(4, { 'fields.f1.sequence-group': 'f2', 'partial-update.remove-record-on-sequence-group': 'f2' }), /must be part of sequence groups/);
    assert.throws(() => pu(4, { 'fields.f1.sequence-group': 'f2', 'fields.f2.aggregate-function': 'hll_sketch' }), /hll_sketch.*not supported/);
  });
});

describe('compaction wrapper', () => {
  test('a key with one record keeps it unchanged (ReducerMergeFunctionWrapper)', () => {
    const mf = createMergeFunction(fieldsN(3), ['f0'], { 'merge-engine': 'aggregation', 'fields.f1.aggregate-function': 'sum' }).create();
    mf.reset();
    mf.add({ key: [1], sequenceNumber: 4n, valueKind: RowKind.UPDATE_BEFORE, value: [1, 7, 7] });
    assert.deepEqual(mf.result(), { key: [1], sequenceNumber: 4n, valueKind: RowKind.UPDATE_BEFORE, value: [1, 7, 7] });
    mf.add({ key: [1], sequenceNumber: 5n, valueKind: RowKind.INSERT, value: [1, 2, null] });
    assert.deepEqual(mf.result()!.value, [1, -5, null], 'sum retracts to -7 then adds 2; last_non_null_value retracts 7 to null');
  });
});

describe('k-way merge of sorted runs with sequence groups', () => {
  test('full compaction: groups merged across runs; a row removed by its group is dropped, kept below the top level', async () => {
    const { mergeRuns } = await import('../../../../src/paimon/compact/sorted-run-merge.js');
    const mf = () => createMergeFunction(fieldsN(5), ['f0'], { 'merge-engine': 'partial-update', 'fields.f1.sequence-group': 'f2', 'fields.f3.sequence-group': 'f4', 'partial-update.remove-record-on-sequence-group': 'f3' }).create();
    const kv = (id: number, seq: number, kind: RowKindByte, ...v: Array<number | null>) => ({ key: [id], sequenceNumber: BigInt(seq), valueKind: kind, value: [id, ...v] as Datum[] });
    const runs = () => [
      [kv(1, 1, RowKind.INSERT, 5, 50, 1, 10), kv(2, 2, RowKind.INSERT, 1, 1, 1, 1), kv(3, 3, RowKind.DELETE, 1, 1, 1, 1)],
      [kv(1, 4, RowKind.INSERT, 3, 30, 2, 20), kv(2, 5, RowKind.DELETE, null, null, 2, 2)],
    ];
    async function* gen(xs: ReturnType<typeof kv>[]) {
      yield xs;
    }
    const run = async (dropDelete: boolean): Promise<string[]> => {
      const out: string[] = [];
      for await (const b of mergeRuns(runs().map(gen), { keyTypes: [INT], sequenceFields: [] }, mf(), { dropDelete, stats: { read: 0n } })) {
        for (const r of b) out.push(`${r.valueKind}:${JSON.stringify(r.value)}@${r.sequenceNumber}`);
      }
      return out;
    };
    // key 1: group f1 keeps the newer 5/50, group f3 advances to 2/20; key 2 removed by the f3 group; key 3: a lone DELETE
    assert.deepEqual(await run(true), ['0:[1,5,50,2,20]@4']);
    assert.deepEqual(await run(false), ['0:[1,5,50,2,20]@4', '3:[2,null,null,2,2]@5', '3:[3,1,1,1,1]@3']);
  });
});
