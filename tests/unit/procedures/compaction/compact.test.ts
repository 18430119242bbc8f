/**
 * The compact procedure's argument validation and refusals, through the real executor over a
 * filesystem catalog (tables are bare schema files; no data is needed for these paths).
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executorFor, callNamed } from '../../../interop/procedures-support.js';
import { compact } from '../../../../procedures/compaction/compact.js';
import { createDefaultRegistry } from '../../../../procedures/index.js';
import type { CallOutcome } from '../../../../procedures/framework/executor.js';

const wh = mkdtempSync(join(tmpdir(), 'compact-proc-'));
after(() => rmSync(wh, { recursive: true, force: true }));

function table(name: string, options: Record<string, string>, pk = true): void {
  const dir = join(wh, 'db.db', name, 'schema');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'schema-0'), JSON.stringify({
    version: 3, id: 0,
    fields: [{ id: 0, name: 'dt', type: 'STRING NOT NULL' }, { id: 1, name: 'id', type: 'INT NOT NULL' }, { id: 2, name: 'v', type: 'STRING' }],
    highestFieldId: 2, partitionKeys: ['dt'], primaryKeys: pk ? ['dt', 'id'] : [], options, timeMillis: 0,
  }));
}
table('pk', { bucket: '2' });
table('dv', { bucket: '2', 'deletion-vectors.enabled': 'true' });
table('lookup', { bucket: '2', 'changelog-producer': 'lookup' });
table('agg', { bucket: '2', 'merge-engine': 'aggregation', 'fields.v.aggregate-function': 'theta_sketch' });
table('app', { bucket: '-1' }, false);

const ex = executorFor(wh, [compact]);
const err = (o: CallOutcome): string => (o.ok ? 'OK' : `${o.error.code}: ${o.error.message}`);

describe('compact arguments', () => {
  test('is registered among the built-in procedures', () => {
    assert.ok(createDefaultRegistry().lookup('compact'));
  });
  test("strategy, order_by and exclusivity errors use Spark's wording", async () => {
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.pk', compact_strategy: 'major' })), /INVALID_ARGUMENT: The compact strategy only supports 'full' or 'minor', but compact_strategy => 'major' was given\./);
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.pk', order_by: 'id' })), /order_strategy "none" \(the default\) cannot work with order_by columns/);
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.pk', partitions: 'dt=a', where: "dt='a'" })), /partitions and where cannot be used together\./);
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.app', order_strategy: 'zorder', order_by: 'id', partition_idle_time: '1 d' })), /sort compact \(order_strategy => 'zorder'\) does not support partition_idle_time/);
  });
  test('where on a non-partition column, bad partition keys and buckets out of range are refused', async () => {
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.pk', where: 'id = 1' })), /INVALID_ARGUMENT: Only partition predicate is supported/);
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.pk', partitions: 'id=1' })), /Partition keys \[id\] are invalid/);
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.pk', buckets: '0,2' })), /out of range \[0, 2\)/);
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.app', buckets: '0' })), /only supported for fixed-bucket tables/);
  });
  test('sort compaction: refused on PK tables as Spark does, accepted on unaware-bucket append tables', async () => {
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.pk', order_strategy: 'zorder', order_by: 'v' })), /only supports unaware-bucket append-only tables/);
    const o = await callNamed(ex, 'compact', { table: 'db.app', order_strategy: 'order', order_by: 'v' });
    assert.ok(o.ok, err(o));
    assert.match(String(o.result.rows[0].message), /no snapshot/);
  });
  test('tables this proxy does not compact are refused, naming what to use', async () => {
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.dv', compact_strategy: 'minor' })), /UNSUPPORTED_TABLE: .*deletion-vector.*compact_strategy => 'full'/);
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.lookup' })), /UNSUPPORTED_TABLE: .*changelog-producer 'lookup'.*Flink or Spark/);
    assert.match(err(await callNamed(ex, 'compact', { table: 'db.agg' })), /UNSUPPORTED_TABLE: .*theta_sketch/);
  });
  test('a table without snapshots: result true, nothing committed, the reason given', async () => {
    const o = await callNamed(ex, 'compact', { table: 'db.pk', partitions: 'dt=a;dt=b', compact_strategy: 'minor' });
    assert.ok(o.ok, err(o));
    const row = o.result.rows[0];
    assert.equal(row.result, true);
    assert.equal(row.snapshot_id, null);
    assert.match(String(row.message), /no snapshot/);
  });
});
