/**
 * The router's hook for ALTER TABLE tag/branch DDL: which statements it takes (tables of a
 * configured Paimon catalog, named or the session's current one), which it forwards, and the
 * standalone path.
 */
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../../src/catalogs.js';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { ProcedureRegistry } from '../../../../procedures/framework/registry.js';
import { ProcedureExecutor } from '../../../../procedures/framework/executor.js';
import { configSchema } from '../../../../src/config-schema.js';
import { Router } from '../../../../src/router/router.js';
import { classifyStatement, classifyStatementBytes } from '../../../../src/router/statement-prefilter.js';
import { makeSession, makeWarehouse, runLocal } from '../router-fixtures.js';
import { recordingProcedures, type Recorder } from './recording-procedures.js';

let router: Router;
let rec: Recorder;

describe('router: ALTER TABLE tag/branch hook', () => {
  before(async () => {
    const wh = await makeWarehouse();
    rec = recordingProcedures();
    const catalogs = new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]);
    const executor = new ProcedureExecutor({ registry: new ProcedureRegistry(rec.procedures), catalogs, limits: configSchema.parse({}).procedures });
    router = new Router({ executor, defaultCatalog: null });
  });

  test('ALTER is its own statement kind, on strings and bytes', () => {
    for (const [sql, kind] of [['ALTER TABLE t DROP TAG x', 'alter'], ['  /* c */ alter table', 'alter'], ['ALTERED', 'other'], ['ALTER', 'alter'], ['/*! ALTER */', 'other']] as const) {
      assert.equal(classifyStatement(sql), kind, sql);
      assert.equal(classifyStatementBytes(Buffer.from(sql)), kind, sql);
    }
  });

  test('with an FE: other catalogs, unknown catalogs, an unset session catalog and other ALTERs are forwarded', () => {
    const s = makeSession();
    for (const sql of [
      'ALTER TABLE internal.db.t CREATE TAG x',
      'ALTER TABLE nocat.sales.orders CREATE TAG x',
      'ALTER TABLE sales.orders CREATE TAG x',
      'ALTER TABLE paimon.sales.orders ADD COLUMN c INT',
      'ALTER TABLE paimon.sales.orders CREATE INDEX i (c)',
    ]) assert.equal(router.route(sql, s).kind, 'forward', sql);
    assert.equal(router.route('ALTER TABLE sales.orders CREATE TAG x', makeSession({ currentCatalog: 'internal' })).kind, 'forward');
  });

  test('names resolve with the session catalog and database as a CALL does', async () => {
    rec.calls.length = 0;
    const s = makeSession({ currentCatalog: 'paimon', currentDatabase: 'sales' });
    assert.deepEqual(await runLocal(router.route('ALTER TABLE orders CREATE TAG a1', s)), [{ kind: 'ok', affectedRows: 0 }]);
    assert.deepEqual(await runLocal(router.route('ALTER TABLE ops.events CREATE TAG a1', s)), [{ kind: 'ok', affectedRows: 0 }]);
    // a catalog named explicitly while the session is elsewhere: the session's database does not apply
    const other = makeSession({ currentCatalog: 'internal', currentDatabase: 'sales' });
    assert.deepEqual(await runLocal(router.route('ALTER TABLE paimon.sales.items CREATE TAG a1', other)), [{ kind: 'ok', affectedRows: 0 }]);
    assert.deepEqual(rec.calls.map((c) => [c.procedure, c.args.table, c.identifier]), [
      ['create_tag', 'orders', 'sales.orders'],
      ['create_tag', 'ops.events', 'ops.events'],
      ['create_tag', 'sales.items', 'sales.items'],
    ]);
    // an unqualified table without a current database: the CALL path's own error
    const [e] = await runLocal(router.route('ALTER TABLE orders CREATE TAG a2', makeSession({ currentCatalog: 'paimon' })));
    assert.equal(e!.kind, 'error');
    assert.match(e!.kind === 'error' ? e!.message : '', /no current database/);
  });

  test('standalone mode reaches the same hook; other ALTERs stay with the standalone responder', async () => {
    rec.calls.length = 0;
    const s = makeSession({ standalone: true, currentCatalog: 'paimon', currentDatabase: 'sales' });
    assert.deepEqual(await runLocal(router.route('ALTER TABLE orders CREATE BRANCH b1', s)), [{ kind: 'ok', affectedRows: 0 }]);
    assert.deepEqual(rec.calls.map((c) => [c.procedure, c.args]), [['create_branch', { table: 'orders', branch: 'b1', tag: null, ignore_if_exists: false }]]);
    const [r] = await runLocal(router.route('ALTER TABLE orders ADD COLUMN c INT', s));
    assert.equal(r!.kind, 'error');
  });

  test('syntax errors and refusals are answered only for Paimon tables', async () => {
    const s = makeSession();
    const [p] = await runLocal(router.route('ALTER TABLE paimon.sales.orders CREATE TAG x RETAIN 2 WEEKS', s));
    assert.deepEqual(p && p.kind === 'error' ? [p.errno, /ALTER TABLE syntax/.test(p.message)] : null, [1064, true]);
    const [n] = await runLocal(router.route('ALTER TABLE paimon.sales.orders CREATE BRANCH b AS OF VERSION 1', s));
    assert.deepEqual(n && n.kind === 'error' ? [n.errno, /create_tag.*create_branch/.test(n.message)] : null, [1235, true]);
    assert.equal(router.route('ALTER TABLE internal.sales.orders CREATE TAG x RETAIN 2 WEEKS', s).kind, 'forward');
  });
});
