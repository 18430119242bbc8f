/**
 * The job procedures check their declared privilege within the catalog (ops hooks'
 * authorizeWithinCatalog) and act only on the caller's own jobs and calls: through the real
 * Router, ProcedureExecutor, ops hooks with configured grants, and job procedures.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../../src/catalogs.js';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { defineProcedure, ProcedureRegistry, type ProcedureDefinition } from '../../../../procedures/framework/registry.js';
import type { ParamSpec } from '../../../../procedures/framework/signature.js';
import { ProcedureExecutor } from '../../../../procedures/framework/executor.js';
import { CancellationRegistry } from '../../../../procedures/framework/cancellation.js';
import { jobProcedures } from '../../../../procedures/jobs/job-procedures.js';
import { configSchema } from '../../../../src/config-schema.js';
import { Router } from '../../../../src/router/router.js';
import { createOpsHooks } from '../../../../src/observability/ops-hooks.js';
import { ConfigGrantSource } from '../../../../src/security/grant-source.js';
import type { LocalReply } from '../../../../src/router/route.js';
import { makeSession, makeWarehouse, runLocal } from '../../router/router-fixtures.js';
import { until } from '../../../support/wait.js';

let release: () => void = () => undefined;
const waiting = defineProcedure({
  name: 'test_wait',
  description: 'test-only: waits until released or aborted',
  params: [{ name: 'table', type: 'string', required: true, description: 'db.table' }],
  resultColumns: [{ name: 'identifier', type: 'string', description: 'resolved table' }],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: false,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    ctx.progress({ phase: 'work' });
    await new Promise<void>((resolve) => {
      release = resolve;
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    ctx.throwIfAborted();
    return { rows: [{ identifier: t.identifier }] };
  },
});

function errorOf(replies: LocalReply[]): { errno: number; message: string } {
  const e = replies.at(-1)!;
  assert.equal(e.kind, 'error', JSON.stringify(replies[0]));
  return e.kind === 'error' ? { errno: e.errno, message: e.message } : { errno: 0, message: '' };
}

function rows(replies: LocalReply[]): Record<string, unknown>[] {
  const rs = replies[0]!;
  assert.equal(rs.kind, 'resultset', JSON.stringify(rs));
  return rs.kind === 'resultset' ? rs.rows.map((r) => Object.fromEntries(rs.columns.map((c, i) => [c.name, r[i]]))) : [];
}

describe('job procedures: privilege within the catalog, own jobs only', () => {
  let wh: string;
  let router: Router;
  const calls = new CancellationRegistry();
  before(async () => {
    wh = await makeWarehouse();
    const grants = new ConfigGrantSource([
      // Can run test_wait on one table (and so follow and cancel it).
      { name: 'alice', grants: ['ALTER ON paimon.sales.orders'] },
      { name: 'bob', grants: ['ALTER ON paimon.sales.orders'] },
      // Reads the catalog: may list (its own, none), not cancel.
      { name: 'reader', grants: ['SELECT ON paimon.sales.*'] },
      // Privileges only in another catalog.
      { name: 'elsewhere', grants: ['ALTER ON lake.*.*', 'SELECT ON lake.*.*'] },
      { name: 'admin', grants: ['ADMIN ON *.*.*'] },
    ]);
    const executor = new ProcedureExecutor({
      registry: new ProcedureRegistry([waiting as unknown as ProcedureDefinition<readonly ParamSpec[]>, ...jobProcedures(() => undefined, () => calls)]),
      catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO()), new FileSystemProcedureCatalog('lake', wh, new LocalFileIO())]),
      limits: configSchema.parse({}).procedures,
      hooks: createOpsHooks({ calls, grants }),
    });
    router = new Router({ executor, defaultCatalog: null, calls });
  });
  after(async () => {
    release();
    await rm(wh, { recursive: true, force: true });
  });
  const call = (sql: string, user: string, connectionId: number) => runLocal(router.route(sql, makeSession({ connectionId, user })));

  test('no privilege in the catalog: list_jobs, job_status and cancel_job are refused with 1044 naming the catalog', async () => {
    for (const sql of ['CALL paimon.sys.list_jobs()', "CALL paimon.sys.job_status('call-0123456789ab')", "CALL paimon.sys.cancel_job('call-0123456789ab')"]) {
      const e = errorOf(await call(sql, 'elsewhere', 30));
      assert.equal(e.errno, 1044, sql);
      assert.match(e.message, /to catalog 'paimon'/, sql);
      const stranger = errorOf(await call(sql, 'nobody', 31));
      assert.equal(stranger.errno, 1044, sql);
    }
  });

  test('SELECT in the catalog lists and inspects (own jobs) but does not cancel: cancel_job needs ALTER', async () => {
    assert.deepEqual(rows(await call('CALL paimon.sys.list_jobs()', 'reader', 32)), []);
    const e = errorOf(await call("CALL paimon.sys.cancel_job('call-0123456789ab')", 'reader', 32));
    assert.equal(e.errno, 1044);
    assert.match(e.message, /cancel_job needs ALTER/);
    // With the privilege, an unknown id is "not found" (JOB_NOT_FOUND), not a privilege error.
    assert.notEqual(errorOf(await call("CALL paimon.sys.cancel_job('call-0123456789ab')", 'alice', 33)).errno, 1044);
  });

  test("a table-level ALTER grant is enough to follow and cancel one's own call; another user sees and cancels nothing of it", async () => {
    const running = call("CALL paimon.sys.test_wait('sales.orders')", 'alice', 40);
    await until(() => calls.list().some((c) => c.connectionId === 40 && c.progress?.phase === 'work'), 'alice call running');
    const mine = rows(await call('CALL paimon.sys.list_jobs()', 'alice', 41));
    assert.equal(mine.length, 1);
    const id = String(mine[0]!.job_id);
    assert.deepEqual(rows(await call('CALL paimon.sys.list_jobs()', 'bob', 42)), [], 'bob does not see alice\u2019s call');
    assert.match(errorOf(await call(`CALL paimon.sys.job_status('${id}')`, 'bob', 42)).message, /no synchronous CALL of user bob/);
    assert.match(errorOf(await call(`CALL paimon.sys.cancel_job('${id}')`, 'bob', 42)).message, /no synchronous CALL of user bob/);
    assert.ok(calls.list().some((c) => c.connectionId === 40), 'still running after bob tried');
    const cancelled = rows(await call(`CALL paimon.sys.cancel_job('${id}')`, 'alice', 41));
    assert.equal(cancelled[0]!.action, 'aborted');
    assert.equal(errorOf(await running).errno, 1317);
  });

  test('ADMIN satisfies all three', async () => {
    assert.deepEqual(rows(await call('CALL paimon.sys.list_jobs()', 'admin', 50)), []);
    assert.notEqual(errorOf(await call("CALL paimon.sys.cancel_job('call-0123456789ab')", 'admin', 50)).errno, 1044);
  });
});
