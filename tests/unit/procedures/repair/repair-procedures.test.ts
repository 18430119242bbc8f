/**
 * The repair procedures' declarations and refusals through the real executor over a filesystem
 * catalog of a bare schema file (no snapshot): registration, purge_files' safety defaults, and the
 * errors an empty table or a bad argument gives.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executorFor, callNamed } from '../../../interop/procedures-support.js';
import { repairProcedures } from '../../../../procedures/repair/index.js';
import { purgeFiles } from '../../../../procedures/repair/purge-files.js';
import { createDefaultRegistry } from '../../../../procedures/index.js';
import type { CallOutcome } from '../../../../procedures/framework/executor.js';

const wh = mkdtempSync(join(tmpdir(), 'repair-proc-'));
after(() => rmSync(wh, { recursive: true, force: true }));
const dir = join(wh, 'db.db', 't', 'schema');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'schema-0'), JSON.stringify({
  version: 3, id: 0, fields: [{ id: 0, name: 'id', type: 'INT NOT NULL' }], highestFieldId: 0, partitionKeys: [], primaryKeys: ['id'], options: { bucket: '1' }, timeMillis: 0,
}));

const ex = executorFor(wh, repairProcedures);
const err = (o: CallOutcome): string => (o.ok ? 'OK' : `${o.error.code}: ${o.error.message}`);

test('the repair procedures are registered among the built-in ones', () => {
  const reg = createDefaultRegistry();
  for (const n of ['remove_unexisting_files', 'repair_earliest_snapshot', 'purge_files']) assert.ok(reg.lookup(n), n);
});

test('purge_files needs ADMIN and dry-runs unless dry_run => false is given', async () => {
  assert.equal(purgeFiles.privilege.privilege, 'ADMIN');
  assert.equal(purgeFiles.params.find((p) => p.name === 'dry_run')!.default, true);
  const o = await callNamed(ex, 'purge_files', { table: 'db.t' });
  assert.ok(o.ok, err(o));
  assert.ok(o.result.rows.every((r) => r.dry_run === true));
  assert.match(String(o.result.info), /dry_run => false/);
  assert.deepEqual(readdirSync(join(wh, 'db.db', 't')), ['schema']);
});

test('remove_unexisting_files: nothing to do on an empty table; parallelism must be positive', async () => {
  const o = await callNamed(ex, 'remove_unexisting_files', { table: 'db.t' });
  assert.ok(o.ok && o.result.rows.length === 0, err(o));
  assert.match(err(await callNamed(ex, 'remove_unexisting_files', { table: 'db.t', parallelism: 0 })), /^INVALID_ARGUMENT: parallelism must be at least 1/);
});

test("repair_earliest_snapshot refuses an empty table with Java's message", async () => {
  assert.match(err(await callNamed(ex, 'repair_earliest_snapshot', { table: 'db.t', snapshot_id: 1n })), /^SNAPSHOT_NOT_FOUND: Cannot repair earliest snapshot for an empty table\./);
});
