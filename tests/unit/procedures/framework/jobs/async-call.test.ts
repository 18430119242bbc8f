import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mask } from '../../../../../src/security/masking.js';
import { defineProcedure, ProcedureRegistry } from '../../../../../procedures/framework/registry.js';
import { ProcedureExecutor } from '../../../../../procedures/framework/executor.js';
import type { CallArgument, ArgumentValue } from '../../../../../procedures/framework/binding.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../../../src/catalogs.js';
import { LocalFileIO } from '../../../../../src/paimon/fs/local-file-io.js';
import { configSchema } from '../../../../../src/config-schema.js';
import { FileJobStore } from '../../../../../procedures/framework/jobs/file-job-store.js';
import { JobManager } from '../../../../../procedures/framework/jobs/job-manager.js';
import { FRAMEWORK_PARAMS, isAsyncCall, submitAsyncCall } from '../../../../../procedures/framework/jobs/async-call.js';
import { jobProcedures } from '../../../../../procedures/jobs/job-procedures.js';
import { createOpsHooks } from '../../../../../src/observability/ops-hooks.js';

const str = (value: string): ArgumentValue => ({ kind: 'string', value });
const bool = (value: boolean): ArgumentValue => ({ kind: 'boolean', value });
const named = (...pairs: [string, ArgumentValue][]): CallArgument[] => pairs.map(([name, value], i) => ({ name, value, offset: i }));

const slow = defineProcedure({
  name: 'slow_probe',
  description: 'test: resolves its table, waits until released or aborted, commits',
  params: [
    { name: 'table', type: 'string', required: true, description: 'db.table' },
    { name: 'fail', type: 'boolean', default: false, description: 'fail instead' },
  ],
  resultColumns: [{ name: 'result', type: 'boolean', description: '' }],
  privilege: { privilege: 'SELECT', on: 'table' },
  destructive: false,
  async run(args, ctx) {
    await ctx.resolveTable(args.table);
    while (!released) {
      ctx.throwIfAborted();
      await new Promise((r) => setTimeout(r, 5));
    }
    if (args.fail) throw new Error('boom');
    return { rows: [{ result: true }], info: 'probe done' };
  },
});
let released = false;

describe('async => true through the executor', () => {
  let wh: string;
  let jobs: JobManager;
  let executor: ProcedureExecutor;
  const caller = { user: 'ops', connectionId: 4, clientAddress: '127.0.0.1:1', currentDatabase: null };
  const call = (procedure: string, args: CallArgument[]) => executor.run({ catalog: 'paimon', procedure, args, statement: 'CALL ...' }, caller, new AbortController().signal);

  before(async () => {
    wh = await mkdtemp(join(process.env.TEST_TMP ?? tmpdir(), 'async-call-'));
    await mkdir(join(wh, 'db.db', 't', 'schema'), { recursive: true });
    await writeFile(join(wh, 'db.db', 't', 'schema', 'schema-0'), '{}');
    jobs = new JobManager({ redact: mask, store: new FileJobStore({ dir: join(wh, '.jobs'), retentionMs: 1e9, owner: 'p' }), owner: 'p' });
    await jobs.open();
    executor = new ProcedureExecutor({
      registry: new ProcedureRegistry([slow, ...jobProcedures(() => jobs)]),
      catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO())]),
      limits: configSchema.parse({}).procedures,
      frameworkParams: FRAMEWORK_PARAMS,
      hooks: createOpsHooks({ timeouts: { defaultMs: 60_000, maxMs: 120_000 } }),
    });
  });
  after(async () => { await jobs.close(); await rm(wh, { recursive: true, force: true }); });

  test('returns a job id at once; job_status shows running, then the result', async () => {
    released = false;
    const args = named(['table', str('db.t')], ['async', bool(true)]);
    assert.equal(isAsyncCall(args), true);
    const replies = await submitAsyncCall(jobs, executor, { catalog: 'paimon', procedure: 'slow_probe', args, statement: 'CALL paimon.sys.slow_probe(...)' }, caller, { heavy: false });
    assert.equal(replies[0]!.kind, 'resultset');
    const id = replies[0]!.kind === 'resultset' ? replies[0]!.rows[0]![0]! : '';
    assert.match(id, /^job-[0-9a-f]{12}$/);
    for (let i = 0; i < 200 && (await jobs.get(id)).state !== 'running'; i++) await new Promise((r) => setTimeout(r, 5));
    const st = await call('job_status', named(['job_id', str(id)]));
    assert.ok(st.ok);
    if (st.ok) assert.equal(st.result.rows[0]!.state, 'running');
    released = true;
    await jobs.whenFinished(id);
    const fin = await call('job_status', named(['job_id', str(id)]));
    assert.ok(fin.ok);
    if (!fin.ok) return;
    assert.equal(fin.result.rows[0]!.state, 'succeeded');
    assert.deepEqual(JSON.parse(String(fin.result.rows[0]!.result)), { columns: ['result'], rows: [['1']], info: 'probe done' });
    const list = await call('list_jobs', named(['state', str('succeeded')]));
    assert.ok(list.ok && list.result.rows.some((r) => r.job_id === id));
    // Another user neither sees nor cancels it.
    const other = { ...caller, user: 'someone_else' };
    const asOther = (procedure: string, args: CallArgument[]) => executor.run({ catalog: 'paimon', procedure, args, statement: 'CALL ...' }, other, new AbortController().signal);
    const theirs = await asOther('list_jobs', []);
    assert.ok(theirs.ok && !theirs.result.rows.some((r) => r.job_id === id));
    const peek = await asOther('job_status', named(['job_id', str(id)]));
    assert.ok(!peek.ok && peek.error.code === 'JOB_NOT_FOUND');
    const kill = await asOther('cancel_job', named(['job_id', str(id)]));
    assert.ok(!kill.ok && kill.error.code === 'JOB_NOT_FOUND');
  });

  test('cancel_job stops a running job; bad arguments surface as the job\'s error', async () => {
    released = false;
    const replies = await submitAsyncCall(jobs, executor, { catalog: 'paimon', procedure: 'slow_probe', args: named(['table', str('db.t')], ['async', bool(true)]), statement: 'CALL ...' }, caller, { heavy: false });
    const id = replies[0]!.kind === 'resultset' ? replies[0]!.rows[0]![0]! : '';
    for (let i = 0; i < 200 && (await jobs.get(id)).state !== 'running'; i++) await new Promise((r) => setTimeout(r, 5));
    const c = await call('cancel_job', named(['job_id', str(id)]));
    assert.ok(c.ok);
    if (c.ok) assert.equal(c.result.rows[0]!.action, 'aborted');
    await jobs.whenFinished(id);
    const rec = await jobs.get(id);
    assert.equal(rec.state, 'cancelled');
    assert.equal(rec.error?.code, 'QUERY_INTERRUPTED');
    assert.equal(rec.committed, false);
    const bad = await submitAsyncCall(jobs, executor, { catalog: 'paimon', procedure: 'slow_probe', args: named(['table', str('db.missing')], ['async', bool(true)]), statement: 'CALL ...' }, caller, { heavy: false });
    const badId = bad[0]!.kind === 'resultset' ? bad[0]!.rows[0]![0]! : '';
    await jobs.whenFinished(badId);
    assert.equal((await jobs.get(badId)).error?.code, 'TABLE_NOT_FOUND');
    const unknown = await call('job_status', named(['job_id', str('job-000000000000')]));
    assert.ok(!unknown.ok && unknown.error.code === 'JOB_NOT_FOUND');
  });

  test('the timeout framework argument is honoured and bounded by the maximum', async () => {
    released = false;
    const o = await call('slow_probe', named(['table', str('db.t')], ['timeout', str('50ms')]));
    assert.ok(!o.ok);
    if (!o.ok) {
      assert.equal(o.error.code, 'TIMEOUT');
      assert.equal(o.error.errno, 3024);
      assert.match(o.error.message, /Nothing was committed/);
    }
    const tooLong = await call('slow_probe', named(['table', str('db.t')], ['timeout', str('3h')]));
    assert.ok(!tooLong.ok && tooLong.error.code === 'INVALID_ARGUMENT');
    released = true;
  });
});
