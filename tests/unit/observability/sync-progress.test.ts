/**
 * Progress of synchronous CALLs is reported as it goes, while they run:
 *  - the running-calls registry keeps each call's id, target and last progress;
 *  - list_jobs / job_status from another session show a running synchronous CALL (mode sync)
 *    with its phase and counts, only to its own user, and no longer once it ended;
 *  - cancel_job('call-...') stops it as KILL QUERY does (1317, "Nothing was committed");
 *  - the progress log: a line per phase change, then one per interval while the phase runs;
 *  - metrics: calls_running by procedure and the progress ratio of the running phase.
 * Through the real Router, ProcedureExecutor, ops hooks and job procedures, with a test
 * procedure that reports progress and then waits for the test (or its abort signal).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../src/catalogs.js';
import { LocalFileIO } from '../../../src/paimon/fs/local-file-io.js';
import { defineProcedure, ProcedureRegistry, type ProcedureDefinition } from '../../../procedures/framework/registry.js';
import type { ParamSpec } from '../../../procedures/framework/signature.js';
import { ProcedureExecutor } from '../../../procedures/framework/executor.js';
import { CancellationRegistry, callIdOf, isCallId } from '../../../procedures/framework/cancellation.js';
import { jobProcedures } from '../../../procedures/jobs/job-procedures.js';
import { configSchema } from '../../../src/config-schema.js';
import { Router } from '../../../src/router/router.js';
import { createOpsHooks } from '../../../src/observability/ops-hooks.js';
import { CallProgressLog } from '../../../src/observability/progress-log.js';
import { PromClientMeterProvider, ProxyMetrics } from '../../../src/observability/metrics.js';
import { TableLockManager } from '../../../procedures/framework/concurrency/table-lock.js';
import type { LocalReply } from '../../../src/router/route.js';
import { makeSession, makeWarehouse, runLocal } from '../router/router-fixtures.js';
import { until } from '../../support/wait.js';


/** Result rows as objects by column name. */
function rowsOf(replies: LocalReply[]): Record<string, string | null>[] {
  const rs = replies[0]!;
  assert.equal(rs.kind, 'resultset', JSON.stringify(rs));
  if (rs.kind !== 'resultset') return [];
  return rs.rows.map((r) => Object.fromEntries(rs.columns.map((c, i) => [c.name, r[i] ?? null])));
}

/** Reports plan, then work 3/10, then waits for `gates[gate]` (or its abort) before finishing. */
const gates = new Map<string, () => void>();
const progressProcedure = makeProgressProcedure('test_progress', 'SELECT');
/** The same, as a metadata-changing procedure: it holds the table's lock while it runs. */
const alteringProcedure = makeProgressProcedure('test_progress_alter', 'ALTER');

function makeProgressProcedure(name: string, privilege: 'SELECT' | 'ALTER') {
  return defineProcedure({
    name,
    description: 'test-only: reports progress, then waits for the test',
    params: [
      { name: 'table', type: 'string', required: true, description: 'db.table' },
      { name: 'gate', type: 'string', required: true, description: 'gate name' },
    ],
    resultColumns: [{ name: 'identifier', type: 'string', description: 'resolved table' }],
    privilege: { privilege, on: 'table' },
    destructive: false,
    async run(args, ctx) {
      const t = await ctx.resolveTable(args.table);
      ctx.progress({ phase: 'plan' });
      ctx.progress({ phase: 'delete data files', done: 0, total: 10 });
      ctx.progress({ phase: 'delete data files', done: 3, total: 10, message: 'bytes 300' });
      await new Promise<void>((resolve) => {
        gates.set(args.gate, resolve);
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      ctx.throwIfAborted();
      return { rows: [{ identifier: t.identifier }] };
    },
  });
}

describe('registry: call ids, progress and details of running calls', () => {
  test('the call id is call- and the first 12 hex digits of a UUID query id; other ids are hashed', () => {
    assert.equal(callIdOf('3f2a9c1e-77b4-4d2a-9e1f-0123456789ab'), 'call-3f2a9c1e77b4');
    assert.ok(isCallId(callIdOf('q1')));
    assert.notEqual(callIdOf('q1'), callIdOf('q2'));
    assert.ok(!isCallId('job-0123456789ab'));
  });

  test('progress keeps the phase start across reports of one phase; describe fills the target; cancel aborts one call', () => {
    let t = 1000;
    const reg = new CancellationRegistry(() => t);
    const a = new AbortController();
    const b = new AbortController();
    const untrackA = reg.track({ connectionId: 5, queryId: 'qa', procedure: 'compact', user: 'u' }, a);
    reg.track({ connectionId: 5, queryId: 'qb', procedure: 'expire_snapshots', user: 'u' }, b);
    t = 1100;
    reg.progress('qa', { phase: 'compact', done: 1, total: 4 });
    t = 1200;
    reg.progress('qa', { phase: 'compact', done: 2, total: 4, message: 'rows 20' });
    reg.describe('qa', { target: 'db.t', catalog: 'paimon', dryRun: false });
    const got = reg.get(callIdOf('qa'))!;
    assert.deepEqual(got.progress, { phase: 'compact', done: 2, total: 4, message: 'rows 20', phaseStartedAt: 1100, updatedAt: 1200 });
    assert.equal(got.target, 'db.t');
    t = 1300;
    reg.progress('qa', { phase: 'commit' });
    assert.equal(reg.get(callIdOf('qa'))!.progress!.phaseStartedAt, 1300);
    // A snapshot is a copy: changing it changes nothing in the registry.
    got.progress!.phase = 'tampered';
    assert.equal(reg.get(callIdOf('qa'))!.progress!.phase, 'commit');
    assert.equal(reg.cancel(callIdOf('qa'), new Error('stop')), true);
    assert.ok(a.signal.aborted);
    assert.ok(!b.signal.aborted, 'only that call, not the whole connection');
    untrackA();
    assert.equal(reg.get(callIdOf('qa')), undefined);
    assert.equal(reg.cancel(callIdOf('qa'), new Error('stop')), false);
    reg.progress('qa', { phase: 'late' }); // ignored: ended
    assert.deepEqual(reg.list().map((c) => c.queryId), ['qb']);
  });
});

describe('progress log lines', () => {
  test('a line per phase change at once, then at most one per interval with the latest counts; none after the end', async () => {
    const lines: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
    const log = new CallProgressLog({ logger: { info: (obj, msg) => lines.push({ obj, msg }) }, intervalMs: 60 });
    const subject = { queryId: 'q', callId: callIdOf('q'), procedure: 'compact', catalog: 'paimon', target: 'db.t', connectionId: 9, user: 'u', dryRun: false, startedAt: Date.now() };
    log.report(subject, { phase: 'plan' });
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.obj.phase, 'plan');
    assert.equal(lines[0]!.obj.reason, 'phase');
    log.report(subject, { phase: 'compact', done: 0, total: 4 });
    assert.equal(lines.length, 2, 'a phase change is logged at once');
    for (let i = 1; i <= 3; i++) log.report(subject, { phase: 'compact', done: i, total: 4, message: `rows ${i * 10}` });
    assert.equal(lines.length, 2, 'reports within the phase wait for the interval');
    await until(() => lines.length >= 3, 'the interval line');
    const l = lines[2]!;
    assert.equal(l.obj.reason, 'interval');
    assert.equal(l.obj.done, 3);
    assert.equal(l.obj.total, 4);
    assert.equal(l.obj.fraction, 0.75);
    assert.equal(l.obj.progressMessage, 'rows 30');
    assert.equal(l.obj.callId, subject.callId);
    assert.equal(l.obj.mode, 'sync');
    assert.equal(l.obj.reportsSinceLastLine, 3);
    assert.equal(l.msg, 'compact db.t: compact 3/4: rows 30');
    // Nothing new: a line still comes after the next interval (the phase has been running that long).
    await until(() => lines.length >= 4, 'the next interval line');
    assert.equal(lines[3]!.obj.reportsSinceLastLine, 0);
    assert.ok((lines[3]!.obj.phaseElapsedMs as number) >= 100);
    log.end('q');
    const n = lines.length;
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(lines.length, n, 'no line after the call ended');
    assert.equal(log.size, 0);
  });

  test("an async job's work is logged with its job id, mode async", () => {
    const lines: Record<string, unknown>[] = [];
    const log = new CallProgressLog({ logger: { info: (obj) => lines.push(obj) }, intervalMs: 10_000 });
    log.report({ queryId: 'qj', jobId: 'job-0123456789ab', procedure: 'compact', catalog: 'paimon', target: 'db.t', connectionId: 3, user: 'u', dryRun: false, startedAt: Date.now() }, { phase: 'plan' });
    assert.deepEqual([lines[0]!.jobId, lines[0]!.mode, lines[0]!.callId], ['job-0123456789ab', 'async', undefined]);
    log.close();
  });

  test('interval 0 turns the lines off', () => {
    const lines: unknown[] = [];
    const log = new CallProgressLog({ logger: { info: (obj) => lines.push(obj) }, intervalMs: 0 });
    log.report({ queryId: 'q', procedure: 'p', catalog: 'c', connectionId: 1, user: 'u', dryRun: false, startedAt: 0 }, { phase: 'plan' });
    assert.equal(lines.length, 0);
    assert.equal(log.size, 0);
  });
});

describe('metrics of async work', () => {
  test("an async job's work counts as a running async call, not as a sync one too", async () => {
    const provider = new PromClientMeterProvider();
    const metrics = new ProxyMetrics(provider.getMeter('sync-progress-async'));
    const hooks = createOpsHooks({ metrics });
    const info = {
      queryId: 'q-async', catalog: 'paimon', procedure: 'test_progress', signature: progressProcedure as never, args: {}, frameworkArgs: {},
      caller: { user: 'u', connectionId: 1, clientAddress: '127.0.0.1', currentDatabase: null }, statement: 'CALL ...', startedAt: Date.now(), dryRun: false, jobId: 'job-0123456789ab',
    };
    hooks.onStart!(info);
    const text = await provider.registry.metrics();
    assert.match(text, /paimon_proxy_calls_running\{[^}]*mode="async"[^}]*\} 1/);
    assert.doesNotMatch(text, /paimon_proxy_jobs_active\{mode="sync"\} 1/);
    hooks.close();
  });
});

describe('a running synchronous CALL seen from another session', () => {
  let wh: string;
  let router: Router;
  const calls = new CancellationRegistry();
  const provider = new PromClientMeterProvider();
  const metrics = new ProxyMetrics(provider.getMeter('sync-progress-test'));
  const logLines: Record<string, unknown>[] = [];
  let hooks: ReturnType<typeof createOpsHooks>;

  before(async () => {
    wh = await makeWarehouse();
    hooks = createOpsHooks({ calls, metrics, logger: { info: (o: Record<string, unknown>) => logLines.push(o), warn() {}, error() {} } as never, progressLog: { intervalMs: 10_000 } });
    const registry = new ProcedureRegistry([progressProcedure as unknown as ProcedureDefinition<readonly ParamSpec[]>, ...jobProcedures(() => undefined, () => calls)]);
    const executor = new ProcedureExecutor({
      registry,
      catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]),
      limits: configSchema.parse({}).procedures,
      hooks,
    });
    router = new Router({ executor, defaultCatalog: null, calls });
  });
  after(async () => {
    hooks.close();
    await rm(wh, { recursive: true, force: true });
  });

  const call = (sql: string, connectionId: number, user = 'alice') => runLocal(router.route(sql, makeSession({ connectionId, user })));

  test('list_jobs and job_status show it with phase and counts while it runs, and not after', async () => {
    const pending = call("CALL paimon.sys.test_progress(table => 'sales.orders', gate => 'g1')", 51);
    await until(() => gates.has('g1'), 'the procedure waits at its gate');
    const listed = rowsOf(await call('CALL paimon.sys.list_jobs()', 52));
    assert.equal(listed.length, 1, JSON.stringify(listed));
    const r = listed[0]!;
    assert.match(r.job_id!, /^call-[0-9a-f]{12}$/);
    assert.equal(r.mode, 'sync');
    assert.equal(r.state, 'running');
    assert.equal(r.procedure, 'test_progress');
    assert.equal(r.target, 'sales.orders');
    assert.equal(r.connection_id, '51');
    assert.equal(r.user, 'alice');
    assert.equal(r.phase, 'delete data files');
    assert.equal(r.done, '3');
    assert.equal(r.total, '10');
    assert.equal(r.message, 'bytes 300');
    assert.equal(r.progress, 'delete data files 3/10: bytes 300');
    assert.equal(r.committed, null);
    assert.equal(r.job_id, callIdOf(r.query_id!));
    assert.ok(r.started_at);
    // job_status of that id: the same row.
    const st = rowsOf(await call(`CALL paimon.sys.job_status('${r.job_id}')`, 52));
    assert.deepEqual(st, listed);
    // Filters: state => 'running' lists it, another state does not; another user sees nothing.
    assert.equal(rowsOf(await call("CALL paimon.sys.list_jobs(state => 'running')", 52)).length, 1);
    assert.equal(rowsOf(await call("CALL paimon.sys.list_jobs(state => 'succeeded')", 52)).length, 0);
    assert.equal(rowsOf(await call('CALL paimon.sys.list_jobs()', 53, 'mallory')).length, 0);
    const theirs = (await call(`CALL paimon.sys.job_status('${r.job_id}')`, 53, 'mallory'))[0]!;
    assert.ok(theirs.kind === 'error' && /no synchronous CALL of user mallory/.test(theirs.message), JSON.stringify(theirs));
    // Metrics while it runs: one running call of the procedure, its phase 30 % done.
    const text = await provider.registry.metrics();
    assert.match(text, /paimon_proxy_calls_running\{[^}]*procedure="test_progress"[^}]*\} 1/);
    assert.match(text, new RegExp(`paimon_proxy_call_progress_ratio\\{[^}]*id="${r.job_id}"[^}]*\\} 0\\.3`));
    // The log: one line per phase so far, with the call id.
    const mine = logLines.filter((l) => l.callId === r.job_id);
    assert.deepEqual(mine.map((l) => l.phase), ['plan', 'delete data files']);
    gates.get('g1')!();
    const replies = await pending;
    assert.equal(replies[0]!.kind, 'resultset');
    assert.equal(rowsOf(await call('CALL paimon.sys.list_jobs()', 52)).length, 0, 'gone once it ended');
    const gone = (await call(`CALL paimon.sys.job_status('${r.job_id}')`, 52))[0]!;
    assert.ok(gone.kind === 'error', JSON.stringify(gone));
    assert.match(gone.kind === 'error' ? gone.message : '', /audit log under a query id starting with/);
    const after = await provider.registry.metrics();
    assert.match(after, /paimon_proxy_calls_running\{[^}]*procedure="test_progress"[^}]*\} 0/);
    assert.doesNotMatch(after, new RegExp(`id="${r.job_id}"`));
  });

  test('cancel_job of a call id stops it as KILL QUERY does; another user cannot', async () => {
    const pending = call("CALL paimon.sys.test_progress(table => 'sales.orders', gate => 'g2')", 61);
    await until(() => gates.has('g2'), 'the procedure waits at its gate');
    const [r] = rowsOf(await call('CALL paimon.sys.list_jobs()', 62));
    const denied = (await call(`CALL paimon.sys.cancel_job('${r!.job_id}')`, 63, 'mallory'))[0]!;
    assert.ok(denied.kind === 'error', JSON.stringify(denied));
    assert.ok(calls.isRunning(61), 'still running after a refused cancel');
    const own = (await call(`CALL paimon.sys.cancel_job('${r!.job_id}')`, 61))[0]!;
    assert.ok(own.kind === 'error' && /cannot cancel itself/.test(own.message), JSON.stringify(own));
    const c = rowsOf(await call(`CALL paimon.sys.cancel_job('${r!.job_id}')`, 62));
    assert.deepEqual([c[0]!.job_id, c[0]!.action], [r!.job_id, 'aborted']);
    const replies = await pending;
    const e = replies[0]!;
    assert.ok(e.kind === 'error' && e.errno === 1317, JSON.stringify(e));
    assert.match(e.kind === 'error' ? e.message : '', new RegExp(`cancel_job\\('${r!.job_id}'\\) from connection 62.*Nothing was committed`));
    assert.equal(calls.isRunning(61), false);
  });
});

describe('a synchronous CALL waiting for the table lock', () => {
  test('list_jobs says it waits and for which table; the log has the wait; then it runs', async () => {
    const wh = await makeWarehouse();
    const calls = new CancellationRegistry();
    const logLines: Record<string, unknown>[] = [];
    const hooks = createOpsHooks({
      calls,
      logger: { info: (o: Record<string, unknown>) => logLines.push(o), warn() {}, error() {} } as never,
      progressLog: { intervalMs: 10_000 },
      locks: { manager: new TableLockManager(), mode: 'wait', waitMs: 60_000 },
    });
    try {
      const registry = new ProcedureRegistry([alteringProcedure as unknown as ProcedureDefinition<readonly ParamSpec[]>, ...jobProcedures(() => undefined, () => calls)]);
      const executor = new ProcedureExecutor({ registry, catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]), limits: configSchema.parse({}).procedures, hooks });
      const router = new Router({ executor, defaultCatalog: null, calls });
      const call = (sql: string, connectionId: number) => runLocal(router.route(sql, makeSession({ connectionId })));
      const first = call("CALL paimon.sys.test_progress_alter(table => 'sales.orders', gate => 'l1')", 71);
      await until(() => gates.has('l1'), 'the first holds the lock at its gate');
      const second = call("CALL paimon.sys.test_progress_alter(table => 'sales.orders', gate => 'l2')", 72);
      await until(() => calls.of(72)[0]?.progress?.phase === 'waiting for the table lock', 'the second waits');
      const rows = rowsOf(await call('CALL paimon.sys.list_jobs()', 73));
      const waiting = rows.find((r) => r.connection_id === '72')!;
      assert.equal(waiting.phase, 'waiting for the table lock');
      assert.match(waiting.message!, /another CALL changes paimon\.sales\.orders/);
      assert.equal(rows.find((r) => r.connection_id === '71')!.phase, 'delete data files');
      const id = waiting.job_id!;
      assert.deepEqual(logLines.filter((l) => l.callId === id).map((l) => l.phase), ['waiting for the table lock']);
      gates.get('l1')!();
      await first;
      await until(() => gates.has('l2'), 'the second runs once the lock is free');
      assert.deepEqual(logLines.filter((l) => l.callId === id).map((l) => l.phase), ['waiting for the table lock', 'started', 'plan', 'delete data files']);
      gates.get('l2')!();
      assert.equal((await second)[0]!.kind, 'resultset');
    } finally {
      hooks.close();
      await rm(wh, { recursive: true, force: true });
    }
  });
});
