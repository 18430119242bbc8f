/**
 * One record of running CALLs: the router registers every intercepted CALL in the shared
 * CancellationRegistry (procedures/framework/cancellation.ts) under the query id the executor, the audit
 * record and the trace use; KILL through the router, a kill through the registry and a client
 * disconnect all act on that one entry, and it is gone when the CALL ends. Also: a CALL that
 * does not parse is answered 1064 and audited once, through the router.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../src/catalogs.js';
import { LocalFileIO } from '../../../src/paimon/fs/local-file-io.js';
import { ProcedureRegistry } from '../../../procedures/framework/registry.js';
import { ProcedureExecutor } from '../../../procedures/framework/executor.js';
import { CancellationRegistry } from '../../../procedures/framework/cancellation.js';
import { configSchema } from '../../../src/config-schema.js';
import { Router } from '../../../src/router/router.js';
import { createOpsHooks } from '../../../src/observability/ops-hooks.js';
import type { AuditRecord, AuditSink } from '../../../src/observability/audit.js';
import { maskText } from '../../../src/security/masking.js';
import { echoProcedure, makeSession, makeWarehouse, runLocal } from '../router/router-fixtures.js';
import { until } from '../../support/wait.js';

class Memory implements AuditSink {
  records: AuditRecord[] = [];
  async write(r: AuditRecord) { this.records.push(r); }
  async close() {}
}

const SLOW = "CALL paimon.sys.test_echo(`table` => 'sales.orders', sleep_ms => 10000)";


describe('running CALLs: one registry for the router, KILL and the ops runtime', () => {
  let wh: string;
  let router: Router;
  const calls = new CancellationRegistry();
  const audit = new Memory();

  before(async () => {
    wh = await makeWarehouse();
    const executor = new ProcedureExecutor({
      registry: new ProcedureRegistry([echoProcedure]),
      catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]),
      limits: configSchema.parse({}).procedures,
      maskMessage: maskText,
      hooks: createOpsHooks({ audit }),
    });
    router = new Router({ executor, defaultCatalog: null, calls });
  });
  after(() => rm(wh, { recursive: true, force: true }));

  test('a running CALL is in the registry under the query id of its audit record, and leaves it when done', async () => {
    const pending = runLocal(router.route(SLOW.replace('10000', '300'), makeSession({ connectionId: 41 })));
    await until(() => calls.isRunning(41), 'the CALL to be registered');
    const [entry] = calls.of(41);
    assert.equal(entry!.procedure, 'test_echo');
    assert.equal(entry!.user, 'alice');
    assert.ok(router.isRunning(41));
    const replies = await pending;
    assert.equal(replies[0]!.kind, 'resultset');
    assert.equal(calls.isRunning(41), false);
    assert.equal(audit.records.at(-1)!.queryId, entry!.queryId);
  });

  test('KILL QUERY through the router stops it with 1317; another user gets 1095', async () => {
    const pending = runLocal(router.route(SLOW, makeSession({ connectionId: 42 })));
    await until(() => calls.isRunning(42), 'registered');
    const denied = await runLocal(router.route('KILL QUERY 42', makeSession({ connectionId: 43, user: 'mallory' })));
    assert.ok(denied[0]!.kind === 'error' && denied[0].errno === 1095);
    assert.ok(calls.isRunning(42), 'still running after a refused KILL');
    assert.deepEqual(await runLocal(router.route('KILL QUERY 42', makeSession({ connectionId: 44 }))), [{ kind: 'ok' }]);
    const replies = await pending;
    assert.ok(replies[0]!.kind === 'error' && replies[0].errno === 1317, JSON.stringify(replies[0]));
    assert.match(replies[0]!.kind === 'error' ? replies[0].message : '', /Nothing was committed/);
    assert.equal(calls.isRunning(42), false);
    assert.equal(audit.records.at(-1)!.outcome, 'cancelled');
  });

  test('a kill through the shared registry (the ops runtime) reaches the router\'s CALL', async () => {
    const pending = runLocal(router.route(SLOW, makeSession({ connectionId: 45 })));
    await until(() => calls.isRunning(45), 'registered');
    assert.equal(calls.list().filter((c) => c.connectionId === 45).length, 1);
    assert.ok(calls.kill(45, 'connection', 46));
    const replies = await pending;
    assert.ok(replies[0]!.kind === 'error' && replies[0].errno === 1317);
    assert.match(replies[0]!.kind === 'error' ? replies[0].message : '', /KILL CONNECTION 45 from connection 46/);
  });

  test('a client disconnect (the session aborts the route signal) stops it and unregisters it', async () => {
    const ac = new AbortController();
    const pending = runLocal(router.route(SLOW, makeSession({ connectionId: 47 })), ac.signal);
    await until(() => calls.isRunning(47), 'registered');
    ac.abort(new Error('client closed the connection'));
    const replies = await pending;
    assert.ok(replies[0]!.kind === 'error' && replies[0].errno === 1317);
    assert.equal(calls.isRunning(47), false);
  });

  test('an intercepted CALL that does not parse is answered 1064, masked, and audited once', async () => {
    const before = audit.records.length;
    const replies = await runLocal(router.route("CALL paimon.sys.test_echo(`table` => 'sales.orders', token => 'pp-test-secret-parse-x' n => 1)", makeSession({ connectionId: 48 })));
    assert.ok(replies[0]!.kind === 'error' && replies[0].errno === 1064, JSON.stringify(replies[0]));
    assert.ok(replies[0]!.kind === 'error' && !replies[0].message.includes('pp-test-secret-parse-x'), replies[0]!.kind === 'error' ? replies[0].message : '');
    assert.equal(audit.records.length, before + 1);
    const r = audit.records.at(-1)!;
    assert.equal(r.errorCode, 'PARSE_ERROR');
    assert.equal(r.procedure, 'test_echo');
    assert.equal(r.connectionId, 48);
    assert.ok(!JSON.stringify(r).includes('pp-test-secret-parse-x'));
    assert.equal(calls.isRunning(48), false);
  });
});
