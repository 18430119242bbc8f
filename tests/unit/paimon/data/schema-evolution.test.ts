import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rowEvolution } from '../../../../src/paimon/data/schema-evolution.js';
import { parseDataField } from '../../../../src/paimon/data/field-type.js';
import { Decimal } from '../../../../src/paimon/data/internal-row.js';

const f = (id: number, name: string, type: unknown) => parseDataField({ id, name, type });

test('columns are matched by field id: renamed keep values, added read null, dropped vanish', () => {
  const file = [f(0, 'id', 'INT NOT NULL'), f(1, 'name', 'STRING'), f(2, 'gone', 'INT')];
  const table = [f(0, 'id', 'BIGINT NOT NULL'), f(1, 'full_name', 'STRING'), f(3, 'added', 'DOUBLE')];
  const evolve = rowEvolution(file, table)!;
  assert.deepEqual(evolve([7, 'x', 9]), [7n, 'x', null]);
});

test('the same schema needs no mapping', () => {
  const fields = [f(0, 'id', 'INT'), f(1, 'v', 'STRING')];
  assert.equal(rowEvolution(fields, fields), null);
});

test('decimal scale widening rescales; narrowing is refused', () => {
  const evolve = rowEvolution([f(0, 'd', 'DECIMAL(10, 2)')], [f(0, 'd', 'DECIMAL(12, 4)')])!;
  assert.deepEqual(evolve([new Decimal(123n, 10, 2)]), [new Decimal(12300n, 12, 4)]);
  assert.throws(() => rowEvolution([f(0, 'd', 'DECIMAL(10, 2)')], [f(0, 'd', 'DECIMAL(10, 1)')]), /not supported/);
  assert.throws(() => rowEvolution([f(0, 'n', 'INT')], [f(0, 'n', 'STRING')]), (e: Error & { code?: string }) => e.code === 'UNSUPPORTED_TABLE');
});
