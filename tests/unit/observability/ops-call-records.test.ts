/**
 * The records of every CALL, on the real executor with the real ops hooks:
 *  - one audit record for every CALL, also those refused before binding (unknown procedure,
 *    unknown / missing / wrongly typed argument, bad framework argument), never two;
 *  - an error message that echoes a secret is masked in the ERR reply, the log and the audit;
 *  - a span tree per CALL (resolve, plan, write, commit) through the recording tracer provider,
 *    with masked attributes;
 *  - waits for a table lock or a heavy-job slot end on KILL, timeout and disconnect, saying that
 *    nothing was committed;
 *  - async jobs show the procedure's progress while they run, and a heavy job takes one slot.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as prom from 'prom-client';
import { defineProcedure, ProcedureRegistry } from '../../../procedures/framework/registry.js';
import { ProcedureExecutor, type CallRequest } from '../../../procedures/framework/executor.js';
import { ProcedureError } from '../../../procedures/framework/errors.js';
import type { CallArgument, ArgumentValue } from '../../../procedures/framework/binding.js';
import { ClientGoneReason, KillReason } from '../../../procedures/framework/cancellation.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../src/catalogs.js';
import { LocalFileIO } from '../../../src/paimon/fs/local-file-io.js';
import { configSchema } from '../../../src/config-schema.js';
import { createOpsHooks } from '../../../src/observability/ops-hooks.js';
import { TableLockManager, tableLockKey } from '../../../procedures/framework/concurrency/table-lock.js';
import { HeavyJobLimiter } from '../../../procedures/framework/concurrency/heavy-job-limiter.js';
import { PromClientMeterProvider, ProxyMetrics } from '../../../src/observability/metrics.js';
import type { AuditRecord, AuditSink } from '../../../src/observability/audit.js';
import { createLogger } from '../../../src/observability/logger.js';
import { maskText, mask, registerSecret } from '../../../src/security/masking.js';
import { JsonLinesSpanExporter, RecordingTracerProvider, type FinishedSpan, type SpanExporter } from '../../../src/observability/tracer-provider.js';
import { TRACER_NAME } from '../../../src/observability/tracing.js';
import { FileJobStore } from '../../../procedures/framework/jobs/file-job-store.js';
import { JobManager } from '../../../procedures/framework/jobs/job-manager.js';
import { FRAMEWORK_PARAMS, submitAsyncCall } from '../../../procedures/framework/jobs/async-call.js';
import { jobProcedures } from '../../../procedures/jobs/job-procedures.js';
import { until } from '../../support/wait.js';

const str = (value: string): ArgumentValue => ({ kind: 'string', value });
const int = (n: number): ArgumentValue => ({ kind: 'integer', value: BigInt(n), text: String(n) });
const bool = (value: boolean): ArgumentValue => ({ kind: 'boolean', value });
const named = (...pairs: [string, ArgumentValue][]): CallArgument[] => pairs.map(([name, value], i) => ({ name, value, offset: i }));
const SECRET = 'pp-test-secret-records-unit';
/** A configured credential: masked wherever it appears, also without a key naming it. */
const REGISTERED = 'pp-test-secret-registered-unit';

class Memory implements AuditSink {
  records: AuditRecord[] = [];
  async write(r: AuditRecord) { this.records.push(r); }
  async close() {}
}

class MemoryExporter implements SpanExporter {
  spans: FinishedSpan[] = [];
  export(s: FinishedSpan) { this.spans.push(s); }
  async shutdown() {}
}

/** A gate per table: the procedure holds the table until the test opens it. */
const gates = new Map<string, Promise<void>>();
const started: string[] = [];

const change = defineProcedure({
  name: 'change_table',
  description: 'test: plans, writes, commits; waits on a gate in between',
  params: [
    { name: 'table', type: 'string', required: true, description: 'db.table' },
    { name: 'options', type: 'string', description: 'k=v' },
    { name: 'steps', type: 'int', default: 2, description: 'write steps' },
    { name: 'fail_with', type: 'string', description: 'throw this message' },
    { name: 'dry_run', type: 'boolean', default: false, description: '' },
  ],
  resultColumns: [{ name: 'result', type: 'boolean', description: '' }, { name: 'rewritten_rows', type: 'bigint', description: '' }],
  privilege: { privilege: 'ALTER', on: 'table' },
  destructive: true,
  async run(args, ctx) {
    const t = await ctx.resolveTable(args.table);
    started.push(t.identifier);
    ctx.progress({ phase: 'plan' });
    if (args.fail_with !== null) throw new ProcedureError('INVALID_ARGUMENT', args.fail_with);
    for (let i = 1; i <= args.steps; i++) {
      await (gates.get(t.identifier) ?? Promise.resolve());
      ctx.throwIfAborted();
      ctx.progress({ phase: 'rewrite data files', done: i, total: args.steps, message: `rows written ${i * 100}` });
    }
    if (args.options !== null) ctx.warn(`options ignored: ${args.options}`);
    ctx.progress({ phase: 'commit' });
    ctx.markCommitted();
    ctx.reportAffected(t.identifier);
    return { rows: [{ result: true, rewritten_rows: BigInt(args.steps * 100) }] };
  },
});

/** Same, but counts against the heavy-job cap. */
const heavyChange = defineProcedure({ ...change, name: 'compact', heavy: true });

function gate(table: string): () => void {
  let open!: () => void;
  gates.set(table, new Promise<void>((r) => (open = r)));
  return () => {
    gates.delete(table);
    open();
  };
}


describe('ops: records, masking, spans, abortable waits, job progress', () => {
  let wh: string;
  const audit = new Memory();
  const exporter = new MemoryExporter();
  const tracing = new RecordingTracerProvider({ exporter });
  const registry = new prom.Registry();
  const metrics = new ProxyMetrics(new PromClientMeterProvider(registry).getMeter('t'));
  const locks = new TableLockManager();
  const limiter = new HeavyJobLimiter(1);
  const logLines: string[] = [];
  const logger = createLogger({ level: 'debug', destination: new Writable({ write(chunk, _e, cb) { logLines.push(String(chunk)); cb(); } }) });
  let executor: ProcedureExecutor;
  let jobs: JobManager;
  const caller = (connectionId = 1) => ({ user: 'ops', connectionId, clientAddress: '10.1.1.1:4000', currentDatabase: null });
  const req = (procedure: string, args: CallArgument[], statement = `CALL paimon.sys.${procedure}(...)`): CallRequest => ({ catalog: 'paimon', procedure, args, statement });
  const run = (r: CallRequest, connectionId = 1, signal = new AbortController().signal) => executor.run(r, caller(connectionId), signal);

  before(async () => {
    registerSecret(REGISTERED);
    wh = await mkdtemp(join(process.env.TEST_TMP ?? tmpdir(), 'ops-records-'));
    for (const t of ['t', 'u', 'v', 'w']) {
      await mkdir(join(wh, 'db.db', t, 'schema'), { recursive: true });
      await writeFile(join(wh, 'db.db', t, 'schema', 'schema-0'), '{}');
    }
    jobs = new JobManager({ redact: mask, store: new FileJobStore({ dir: join(wh, '.jobs'), retentionMs: 1e9, owner: 'p' }), owner: 'p', limiter, progressIntervalMs: 50 });
    await jobs.open();
    executor = new ProcedureExecutor({
      registry: new ProcedureRegistry([change, heavyChange, ...jobProcedures(() => jobs)]),
      catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]),
      limits: configSchema.parse({}).procedures,
      logger,
      frameworkParams: FRAMEWORK_PARAMS,
      maskMessage: maskText,
      hooks: createOpsHooks({
        audit,
        metrics,
        logger,
        tracer: tracing.getTracer(TRACER_NAME),
        locks: { manager: locks, mode: 'wait', waitMs: 60_000 },
        limiter,
        jobsHoldHeavySlots: true,
        timeouts: { defaultMs: 60_000, maxMs: 3_600_000 },
      }),
    });
  });
  after(async () => {
    await jobs.close();
    await rm(wh, { recursive: true, force: true });
  });

  test('every CALL gets exactly one audit record, also when refused before binding', async () => {
    const before = audit.records.length;
    const calls: [CallRequest, string][] = [
      [req('no_such_procedure', named(['table', str('db.t')])), 'PROCEDURE_NOT_FOUND'],
      [req('change_table', named(['table', str('db.t')], ['bogus', int(1)])), 'ARGUMENT_UNKNOWN'],
      [req('change_table', named(['steps', int(1)])), 'ARGUMENT_MISSING'],
      [req('change_table', named(['table', str('db.t')], ['steps', str('many')])), 'ARGUMENT_TYPE'],
      [req('change_table', named(['table', str('db.t')], ['timeout', str('soon')])), 'INVALID_ARGUMENT'],
      [req('change_table', named(['table', str('db.nope')])), 'TABLE_NOT_FOUND'],
      [req('change_table', named(['table', str('db.t')], ['steps', int(1)])), ''],
    ];
    const seen: string[] = [];
    const codes: string[] = [];
    for (const [r] of calls) {
      const o = await run(r);
      codes.push(o.ok ? '' : o.error.code);
      seen.push(o.ok ? o.info.queryId : (o.info?.queryId ?? o.rejected!.queryId));
    }
    assert.deepEqual(codes, calls.map(([, c]) => c));
    const records = audit.records.slice(before);
    assert.equal(records.length, calls.length, 'one record per CALL, none twice');
    assert.deepEqual(records.map((r) => r.queryId), seen);
    assert.deepEqual(records.map((r) => r.errorCode ?? ''), calls.map(([, c]) => c));
    const unknown = records[0]!;
    assert.equal(unknown.procedure, 'no_such_procedure');
    assert.equal(unknown.outcome, 'failed');
    assert.equal(unknown.errno, 1305);
    assert.equal(unknown.user, 'ops');
    assert.equal(unknown.connectionId, 1);
    assert.deepEqual(unknown.arguments, { table: 'db.t' });
    assert.equal(records[1]!.arguments.bogus, '1');
    // An unknown procedure name is the client's invention: counted under one label, never its own series.
    const text = await registry.metrics();
    assert.match(text, /paimon_proxy_calls_total\{outcome="failed",procedure="unknown"\} 1/);
    assert.doesNotMatch(text, /no_such_procedure/);
  });

  test('the reject path (router parse errors, failed submissions) is audited once too', async () => {
    const before = audit.records.length;
    const o = await executor.reject(req('change_table', [], `CALL paimon.sys.change_table('db.t', options => 's3.secret-key=${SECRET}'`), caller(9), new ProcedureError('PARSE_ERROR', `You have an error in your CALL syntax: expected ')' near 's3.secret-key=${SECRET}'`));
    assert.equal(o.ok, false);
    assert.equal(audit.records.length, before + 1);
    const r = audit.records.at(-1)!;
    assert.equal(r.errorCode, 'PARSE_ERROR');
    assert.equal(r.errno, 1064);
    assert.equal(r.connectionId, 9);
    const reply = o.replies[0]!;
    assert.equal(reply.kind, 'error');
    assert.ok(reply.kind === 'error' && !reply.message.includes(SECRET) && reply.message.includes('******'), JSON.stringify(reply));
    assert.ok(!JSON.stringify(r).includes(SECRET));
  });

  test('a procedure error that echoes a secret is masked in the reply, the log and the audit record', async () => {
    for (const message of [`bad option 's3.secret-key=${SECRET}' in options`, `could not use ${REGISTERED} as a key`]) {
      const o = await run(req('change_table', named(['table', str('db.t')], ['fail_with', str(message)], ['options', str(`s3.secret-key=${SECRET}`)])));
      assert.equal(o.ok, false);
      if (o.ok) continue;
      assert.equal(o.error.code, 'INVALID_ARGUMENT');
      const reply = o.replies[0]!;
      assert.ok(reply.kind === 'error');
      if (reply.kind !== 'error') continue;
      assert.ok(!reply.message.includes(SECRET) && !reply.message.includes(REGISTERED), reply.message);
      assert.match(reply.message, /\*{6}/);
      assert.ok(!o.error.message.includes(SECRET) && !o.error.message.includes(REGISTERED));
      const rec = audit.records.at(-1)!;
      assert.equal(rec.errorCode, 'INVALID_ARGUMENT');
      assert.ok(!JSON.stringify(rec).includes(SECRET) && !JSON.stringify(rec).includes(REGISTERED));
    }
    // An unexpected error is logged (with its stack): masked there too.
    const o = await run(req('change_table', named(['table', str('db.nope$branch_x')])));
    assert.equal(o.ok, false);
    const boom = defineProcedure({ ...change, name: 'boom', async run() { throw new Error(`storage refused key ${REGISTERED} and s3.secret-key=${SECRET}`); } });
    executor.registry.register(boom);
    const b = await run(req('boom', named(['table', str('db.t')])));
    assert.ok(!b.ok && b.error.code === 'INTERNAL_ERROR');
    const reply = b.replies[0]!;
    assert.ok(reply.kind === 'error' && !reply.message.includes(SECRET) && !reply.message.includes(REGISTERED), JSON.stringify(reply));
    await until(() => logLines.some((l) => l.includes('procedure failed unexpectedly')), 'the log line');
    const log = logLines.join('');
    assert.ok(!log.includes(SECRET) && !log.includes(REGISTERED), 'no secret in the log');
  });

  test('a CALL is a span with a child per phase (resolve, plan, write, commit), attributes masked', async () => {
    exporter.spans = [];
    const o = await run(req('change_table', named(['table', str('db.t')], ['options', str(`s3.secret-key=${SECRET}`)]), `CALL paimon.sys.change_table(table => 'db.t', options => 's3.secret-key=${SECRET}')`));
    assert.ok(o.ok, o.ok ? '' : o.error.message);
    // A warning that echoes the secret (SHOW WARNINGS) is masked too.
    const ok = o.replies.at(-1)!;
    assert.ok(ok.kind === 'ok' && ok.warnings?.length === 1, JSON.stringify(ok));
    assert.equal(ok.kind === 'ok' ? ok.warnings![0]!.message : '', 'options ignored: s3.secret-key=******');
    const root = exporter.spans.find((s) => s.name === 'CALL change_table');
    assert.ok(root, exporter.spans.map((s) => s.name).join(','));
    assert.equal(root.parentSpanId, null);
    assert.equal(root.status.code, 'OK');
    assert.equal(root.attributes['paimon.outcome'], 'succeeded');
    assert.equal(root.attributes['paimon.query_id'], o.info.queryId);
    assert.match(String(root.attributes['db.statement']), /s3\.secret-key=\*{6}/);
    const children = exporter.spans.filter((s) => s.parentSpanId === root.spanId);
    assert.deepEqual(children.map((s) => s.name), ['resolve', 'plan', 'write', 'commit']);
    for (const c of children) {
      assert.equal(c.traceId, root.traceId);
      assert.ok(c.startTimeMs >= root.startTimeMs && c.startTimeMs + c.durationMs <= root.startTimeMs + root.durationMs + 1);
    }
    assert.ok(!JSON.stringify(exporter.spans).includes(SECRET));
    // A failed CALL: its span and open phase end with ERROR and the masked message.
    exporter.spans = [];
    await run(req('change_table', named(['table', str('db.t')], ['fail_with', str(`no s3.secret-key=${SECRET}`)])));
    const failed = exporter.spans.find((s) => s.name === 'CALL change_table')!;
    assert.equal(failed.status.code, 'ERROR');
    assert.equal(failed.attributes['paimon.error_code'], 'INVALID_ARGUMENT');
    assert.ok(!JSON.stringify(exporter.spans).includes(SECRET));
  });

  test('the JSON-lines exporter writes one parseable span per line to its file', async () => {
    const file = join(wh, 'traces', 'spans.jsonl');
    const p = new RecordingTracerProvider({ exporter: new JsonLinesSpanExporter({ file }) });
    const t = p.getTracer('x');
    const s = t.startSpan('CALL x', { attributes: { password: 'hunter22', note: `token=${SECRET}` } });
    s.end();
    await p.shutdown();
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as FinishedSpan);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.name, 'CALL x');
    assert.equal(lines[0]!.attributes.password, '******');
    assert.equal(lines[0]!.attributes.note, 'token=******');
    assert.match(lines[0]!.traceId, /^[0-9a-f]{32}$/);
  });

  for (const how of ['KILL', 'timeout', 'disconnect'] as const) {
    test(`a CALL waiting for the table lock stops on ${how}; nothing committed, the lock queue is left`, async () => {
      const open = gate('db.u');
      const first = run(req('change_table', named(['table', str('db.u')], ['steps', int(1)])), 11);
      await until(() => locks.holderOf(tableLockKey('paimon', 'db', 'u')) !== undefined, 'the first call to hold the lock');
      const ac = new AbortController();
      const args = named(['table', str('db.u')], ['steps', int(1)], ...(how === 'timeout' ? ([['timeout', str('150ms')]] as [string, ArgumentValue][]) : []));
      const t0 = Date.now();
      const second = run(req('change_table', args), 12, ac.signal);
      await until(() => locks.waiting(tableLockKey('paimon', 'db', 'u')) === 1, 'the second call to wait');
      if (how === 'KILL') ac.abort(new KillReason('query', 12, 99));
      if (how === 'disconnect') ac.abort(new ClientGoneReason(12));
      const o = await second;
      assert.ok(Date.now() - t0 < 5000, 'the wait ended at once, not after table_lock_wait_ms');
      assert.equal(o.ok, false);
      if (!o.ok) {
        assert.equal(o.error.code, how === 'timeout' ? 'TIMEOUT' : 'QUERY_INTERRUPTED');
        assert.match(o.error.message, /Nothing was committed/);
        assert.equal(o.error.committed, false);
        assert.equal(o.committed, false);
      }
      assert.equal(locks.waiting(tableLockKey('paimon', 'db', 'u')), 0, 'the waiter left the queue');
      const rec = audit.records.at(-1)!;
      assert.equal(rec.outcome, how === 'timeout' ? 'timeout' : 'cancelled');
      assert.equal(rec.committed, false);
      open();
      assert.ok((await first).ok);
      assert.equal(locks.holderOf(tableLockKey('paimon', 'db', 'u')), undefined, 'the lock is free: the killed waiter never took it');
    });
  }

  test('a CALL waiting for the heavy-job slot stops on KILL; the slot goes on to the next', async () => {
    const open = gate('db.v');
    const first = run(req('compact', named(['table', str('db.v')], ['steps', int(1)])), 21);
    await until(() => limiter.active === 1 && started.includes('db.v'), 'the first heavy call to run');
    const ac = new AbortController();
    const second = run(req('compact', named(['table', str('db.w')], ['steps', int(1)])), 22, ac.signal);
    await until(() => limiter.queued === 1, 'the second heavy call to queue');
    ac.abort(new KillReason('connection', 22, 99));
    const o = await second;
    assert.ok(!o.ok && o.error.code === 'QUERY_INTERRUPTED' && /Nothing was committed/.test(o.error.message), o.ok ? '' : o.error.message);
    assert.equal(limiter.queued, 0);
    open();
    assert.ok((await first).ok);
    assert.equal(limiter.active, 0);
    assert.match(await registry.metrics(), /paimon_proxy_jobs_queued\{reason="heavy_cap"\} 0/);
  });

  test('a queued heavy job says it waits for a slot; cancelled while queued it never runs', async () => {
    const open = gate('db.v');
    const sync = run(req('compact', named(['table', str('db.v')], ['steps', int(1)])), 51);
    await until(() => limiter.active === 1, 'the sync heavy call to hold the slot');
    const replies = await submitAsyncCall(jobs, executor, req('compact', named(['table', str('db.w')], ['async', bool(true)])), caller(52), { heavy: true });
    const id = replies[0]!.kind === 'resultset' ? String(replies[0]!.rows[0]![0]) : '';
    await until(async () => (await jobs.get(id)).progress?.phase === 'waiting for a heavy-job slot', 'the queued job to say why');
    const rec = await jobs.get(id);
    assert.equal(rec.state, 'queued');
    assert.match(rec.progress?.message ?? '', /1 of 1 running/);
    await jobs.cancel(id);
    await jobs.whenFinished(id);
    assert.equal((await jobs.get(id)).state, 'cancelled');
    assert.equal((await jobs.get(id)).committed, false);
    open();
    assert.ok((await sync).ok);
    assert.equal(limiter.active, 0);
  });

  test('an async job shows the procedure\'s progress while it runs; a heavy job holds one slot (cap 1)', async () => {
    const open1 = gate('db.w');
    const replies = await submitAsyncCall(jobs, executor, req('compact', named(['table', str('db.w')], ['steps', int(3)], ['async', bool(true)])), caller(31), { heavy: true });
    const rs = replies[0]!;
    assert.ok(rs.kind === 'resultset');
    const id = rs.kind === 'resultset' ? String(rs.rows[0]![0]) : '';
    const status = async () => {
      const o = await run(req('job_status', named(['job_id', str(id)])), 31);
      assert.ok(o.ok);
      const r = o.replies[0]!;
      return r.kind === 'resultset' ? { state: r.rows[0]![1], progress: r.rows[0]![8] } : { state: null, progress: null };
    };
    // The job waits on the gate after planning: running, progress 'plan', and the only slot is its own.
    await until(async () => (await status()).progress === 'plan', 'progress plan');
    assert.equal((await status()).state, 'running');
    assert.equal(limiter.active, 1, 'one slot, taken by the job manager, none by the executor');
    // Open the gate for one step at a time and see the counts move.
    open1();
    await until(async () => /^rewrite data files 3\/3: rows written 300$|^commit$|^done: /.test(String((await status()).progress)), 'progress of the write phase');
    await jobs.whenFinished(id);
    const end = await status();
    assert.equal(end.state, 'succeeded');
    assert.match(String(end.progress), /^done: /);
    assert.equal(limiter.active, 0);
    const rec = audit.records.find((r) => r.jobId === id);
    assert.ok(rec, 'the job\'s call is audited with its job id');
    assert.equal(rec.outcome, 'succeeded');
  });
});
