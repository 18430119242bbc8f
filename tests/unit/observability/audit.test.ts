import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import {
  AUDIT_MAX_ARGUMENT_BYTES, AUDIT_MAX_RECORD_BYTES, AUDIT_MAX_STATEMENT_BYTES, boundAuditRecord, FileAuditSink, MultiAuditSink, runAudited, outcomeOf, safeRecord,
  type AuditRecord, type AuditSink,
} from '../../../src/observability/audit.js';
import { ProcedureError, CallTimeoutReason, abortError } from '../../../procedures/framework/errors.js';
import { registerSecret } from '../../../src/security/masking.js';
import { builtinProcedures } from '../../../procedures/index.js';
import type { ParamType } from '../../../procedures/framework/signature.js';

const dir = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'audit-unit-'));
const SECRET = 'pp-test-secret-audit-unit-1';

function start(extra: Partial<Parameters<typeof runAudited>[1]> = {}) {
  return {
    connectionId: 42, user: 'ops', clientAddress: '127.0.0.1:5000', catalog: 'paimon', procedure: 'expire_snapshots',
    arguments: { table: 'sales.orders', retain_max: 5, options: `s3.secret-key=${SECRET}` },
    statement: `CALL paimon.sys.expire_snapshots(table => 'sales.orders', options => 's3.secret-key=${SECRET}')`,
    ...extra,
  };
}

class MemorySink implements AuditSink {
  records: AuditRecord[] = [];
  async write(r: AuditRecord) { this.records.push(r); }
  async close() {}
}

describe('runAudited', () => {
  test('a successful call writes one record with progress, duration and succeeded outcome', async () => {
    const sink = new MemorySink();
    let t = 1_000;
    const res = await runAudited(sink, start(), async (p) => {
      p.pinnedSnapshot = 7; p.resultingSnapshot = 8; p.affectedObjects.push('paimon.sales.orders'); p.phases.plan = 3;
      t += 250;
      return 'ok';
    }, { now: () => t });
    assert.equal(res, 'ok');
    assert.equal(sink.records.length, 1);
    const r = sink.records[0]!;
    assert.equal(r.outcome, 'succeeded');
    assert.equal(r.durationMs, 250);
    assert.equal(r.pinnedSnapshot, 7);
    assert.equal(r.resultingSnapshot, 8);
    assert.equal(r.committed, true);
    assert.deepEqual(r.affectedObjects, ['paimon.sales.orders']);
    assert.equal(r.errorCode, null);
  });
  test('failed, cancelled, timed out and denied calls are written with code, errno and committed flag', async () => {
    const sink = new MemorySink();
    const ac = new AbortController();
    ac.abort(new CallTimeoutReason(1000));
    const cases: [unknown, string, string][] = [
      [new ProcedureError('COMMIT_CONFLICT', 'conflict', { committed: false }), 'failed', 'COMMIT_CONFLICT'],
      [new ProcedureError('QUERY_INTERRUPTED', 'killed', { committed: false }), 'cancelled', 'QUERY_INTERRUPTED'],
      [abortError(ac.signal, false), 'timeout', 'TIMEOUT'],
      [new ProcedureError('TABLE_ACCESS_DENIED', 'denied'), 'denied', 'TABLE_ACCESS_DENIED'],
      [new Error('plain'), 'failed', 'INTERNAL_ERROR'],
    ];
    for (const [err, outcome, code] of cases) {
      await assert.rejects(runAudited(sink, start(), async () => { throw err; }), (e) => e === err);
      const r = sink.records.at(-1)!;
      assert.equal(r.outcome, outcome);
      assert.equal(r.errorCode, code);
    }
    assert.equal(sink.records.length, cases.length);
    assert.equal(sink.records[0]!.errno, 1213);
    assert.equal(sink.records[0]!.committed, false);
    assert.equal(sink.records[2]!.errno, 3024);
  });
  test('an audit write failure does not fail the call but is reported', async () => {
    const bad: AuditSink = { write: async () => { throw new Error('disk full'); }, close: async () => {} };
    let reported: unknown;
    const v = await runAudited(bad, start(), async () => 5, { onAuditError: (e) => { reported = e; } });
    assert.equal(v, 5);
    assert.match(String(reported), /disk full/);
  });
  test('outcomeOf maps the framework codes', () => {
    assert.equal(outcomeOf({ code: 'ADMIN_REQUIRED' }), 'denied');
    assert.equal(outcomeOf(undefined), 'failed');
  });
});

describe('FileAuditSink', () => {
  test('appends masked JSON lines, one per record, across reopen', async () => {
    const path = join(dir, 'nested', 'audit.jsonl');
    let sink = new FileAuditSink(path);
    await runAudited(sink, start(), async () => 1);
    await assert.rejects(runAudited(sink, start({ procedure: 'compact' }), async () => { throw new ProcedureError('TIMEOUT', `t password=${SECRET}`, { committed: false }); }));
    await sink.close();
    sink = new FileAuditSink(path);
    await runAudited(sink, start({ procedure: 'create_tag' }), async () => 1);
    await sink.close();
    const text = readFileSync(path, 'utf8');
    assert.ok(!text.includes(SECRET), 'secret leaked into the audit file');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as AuditRecord);
    assert.deepEqual(lines.map((l) => [l.procedure, l.outcome]), [['expire_snapshots', 'succeeded'], ['compact', 'timeout'], ['create_tag', 'succeeded']]);
    assert.equal(lines[1]!.committed, false);
    assert.equal(lines[0]!.arguments.retain_max, 5);
  });
});

test('MultiAuditSink keeps writing to healthy sinks and rejects only if all fail', async () => {
  const good = new MemorySink();
  const bad: AuditSink = { write: async () => { throw new Error('down'); }, close: async () => {} };
  const multi = new MultiAuditSink([bad, good]);
  await runAudited(multi, start(), async () => 1);
  assert.equal(good.records.length, 1);
  await assert.rejects(new MultiAuditSink([bad]).write(good.records[0]!), /no audit sink/);
});

describe('FileAuditSink and every procedure\'s argument kinds', () => {
  const sample: Record<ParamType, unknown> = { string: 'sales.orders', int: 7, bigint: 9223372036854775807n, boolean: true, double: 0.5 };
  for (const def of builtinProcedures) {
    test(`a CALL of ${def.name} with every parameter bound leaves exactly one record`, async () => {
      const path = join(dir, `kinds-${def.name}.jsonl`);
      const sink = new FileAuditSink(path);
      const args = Object.fromEntries(def.params.map((p) => [p.name, sample[p.type]]));
      await runAudited(sink, start({ procedure: def.name, arguments: args }), async () => 1);
      await sink.close();
      const lines = readFileSync(path, 'utf8').trim().split('\n');
      assert.equal(lines.length, 1);
      const rec = JSON.parse(lines[0]!) as AuditRecord;
      assert.equal(rec.procedure, def.name);
      for (const p of def.params) {
        // 64-bit values keep every digit (as a decimal string); the rest are JSON as they were.
        const want = p.type === 'bigint' ? '9223372036854775807' : sample[p.type];
        assert.deepEqual(rec.arguments[p.name], want, `${def.name}.${p.name}`);
      }
    });
  }
});

describe('bounded audit records', () => {
  test('each argument, the statement and the error message are cut to their limits, with the original sizes recorded', async () => {
    const path = join(dir, 'bounded.jsonl');
    const sink = new FileAuditSink(path);
    const where = 'é'.repeat(AUDIT_MAX_ARGUMENT_BYTES); // 2 bytes each: twice the limit
    const statement = `CALL paimon.sys.compact(table => 'db.t', where => '${'x'.repeat(1_000_000)}')`;
    await assert.rejects(
      runAudited(sink, start({ procedure: 'compact', arguments: { table: 'db.t', where, n: 5 }, statement }), async () => {
        throw new ProcedureError('INVALID_ARGUMENT', `bad where ${'w'.repeat(100_000)}`);
      }),
    );
    await sink.close();
    const text = readFileSync(path, 'utf8');
    assert.ok(Buffer.byteLength(text) <= AUDIT_MAX_RECORD_BYTES + 1, `record of ${Buffer.byteLength(text)} bytes`);
    const r = JSON.parse(text) as AuditRecord;
    assert.equal(r.arguments.table, 'db.t');
    assert.equal(r.arguments.n, 5);
    const w = r.arguments.where as string;
    assert.ok(Buffer.byteLength(w) <= AUDIT_MAX_ARGUMENT_BYTES);
    assert.match(w, /^é+\.\.\. \[truncated, 8192 bytes\]$/, 'cut on a character boundary, marked');
    assert.equal(r.truncated?.['arguments.where'], 2 * AUDIT_MAX_ARGUMENT_BYTES);
    assert.equal(r.truncated?.['statement'], Buffer.byteLength(statement));
    assert.ok(Buffer.byteLength(r.statement!) <= AUDIT_MAX_STATEMENT_BYTES);
    assert.ok(r.truncated?.['errorMessage']! > 100_000);
  });

  test('many long arguments together still give one record within the record limit', () => {
    const args = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`a${i}`, 'v'.repeat(10_000)]));
    const r = boundAuditRecord({ ...sampleRecord(), arguments: args, affectedObjects: Array.from({ length: 50_000 }, (_, i) => `paimon.db.t/data-${i}.parquet`) });
    assert.ok(Buffer.byteLength(JSON.stringify(r)) <= AUDIT_MAX_RECORD_BYTES, `${Buffer.byteLength(JSON.stringify(r))} bytes`);
    assert.equal(r.truncated?.['arguments.a0'], 10_000);
    assert.equal(r.truncated?.['affectedObjects'], 50_000);
    assert.equal(Object.keys(r.arguments).length, 64, 'every argument is still named');
  });

  test('a secret longer than the cut is masked before it is cut', () => {
    const secret = 'S'.repeat(AUDIT_MAX_ARGUMENT_BYTES * 2);
    registerSecret(secret);
    const r = safeRecord({ ...sampleRecord(), arguments: { options: `s3.secret-key=${secret}` } });
    assert.ok(!JSON.stringify(r).includes('S'.repeat(100)), 'no part of the secret in the record');
  });

  test('the file rotates by size, keeping N files, and reopens on request (logrotate)', async () => {
    const d = mkdtempSync(join(dir, 'rotate-'));
    const path = join(d, 'audit.jsonl');
    const sink = new FileAuditSink(path, { maxBytes: 4096, keep: 2 });
    for (let i = 0; i < 40; i++) await runAudited(sink, start({ procedure: `p${i}` }), async () => 1);
    const files = readdirSync(d).sort();
    assert.deepEqual(files, ['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
    for (const f of files) assert.ok(statSync(join(d, f)).size <= 4096, `${f} within max_bytes`);
    const procs = (f: string): string[] => readFileSync(join(d, f), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as AuditRecord).procedure);
    // Newest in the live file, older ones in .1 then .2, none split across files.
    const all = [...procs('audit.jsonl.2'), ...procs('audit.jsonl.1'), ...procs('audit.jsonl')];
    assert.deepEqual(all, all.map((_, i) => `p${40 - all.length + i}`));
    // logrotate: move the file away, then SIGHUP -> reopen: new records go to a new file.
    renameSync(path, join(d, 'moved.jsonl'));
    await runAudited(sink, start({ procedure: 'before_reopen' }), async () => 1);
    await sink.reopen();
    await runAudited(sink, start({ procedure: 'after_reopen' }), async () => 1);
    await sink.close();
    assert.deepEqual(procs('audit.jsonl'), ['after_reopen']);
    assert.equal(procs('moved.jsonl').at(-1), 'before_reopen');
  });
});

function sampleRecord(): AuditRecord {
  return {
    time: new Date(0).toISOString(), endTime: new Date(0).toISOString(), queryId: 'q', connectionId: 1, user: 'u', clientAddress: '127.0.0.1:1',
    catalog: 'paimon', procedure: 'compact', arguments: {}, statement: null, pinnedSnapshot: null, resultingSnapshot: null, outcome: 'succeeded',
    errorCode: null, errno: null, errorMessage: null, committed: null, affectedObjects: [], durationMs: 0, dryRun: null, jobId: null, phases: {}, proxy: 'p',
  };
}
