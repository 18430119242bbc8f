import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseTagBranchDdl } from '../../../../src/router/ddl/tag-branch-ddl.js';
import { planTagBranchDdl, procedureOfDdl, runDdlPlan, tableArgument, type DdlStep, type ProcedureInvocation, type StepOutcome } from '../../../../src/router/ddl/ddl-invocation.js';
import { ProcedureError, type ProcedureErrorCode } from '../../../../procedures/framework/errors.js';
import type { BoundValue } from '../../../../procedures/framework/binding.js';

/** The plan of a statement as [procedure, {arg: value}, okOn] rows. */
function plan(sql: string, table = 'db.t'): [string, Record<string, BoundValue>, string?][] {
  const d = parseTagBranchDdl(sql);
  assert.ok(d !== null && !(d.clause instanceof ProcedureError), sql);
  return planTagBranchDdl(d.clause, table).map((s: DdlStep) => {
    const args: Record<string, BoundValue> = {};
    for (const a of s.invocation.args) {
      const v = a.value;
      args[a.name!] = v.kind === 'string' ? v.value : v.kind === 'integer' ? v.value : v.kind === 'boolean' ? v.value : null;
    }
    const row: [string, Record<string, BoundValue>, string?] = [s.invocation.procedure, args];
    if (s.okOn !== undefined) row.push(s.okOn);
    return row;
  });
}

function refusal(sql: string): ProcedureError {
  const d = parseTagBranchDdl(sql);
  assert.ok(d !== null && !(d.clause instanceof ProcedureError), sql);
  try {
    planTagBranchDdl(d.clause, 'db.t');
  } catch (e) {
    assert.ok(e instanceof ProcedureError);
    return e;
  }
  assert.fail(`${sql} should be NOT_SUPPORTED`);
}

describe('tag/branch DDL -> procedure calls', () => {
  test('tags', () => {
    assert.deepEqual(plan('ALTER TABLE db.t CREATE TAG t1'), [['create_tag', { table: 'db.t', tag: 't1' }]]);
    assert.deepEqual(plan('ALTER TABLE db.t CREATE TAG t1 AS OF VERSION 7 RETAIN 3 DAYS'), [['create_tag', { table: 'db.t', tag: 't1', snapshot_id: 7n, time_retained: '3 d' }]]);
    assert.deepEqual(plan('ALTER TABLE db.t CREATE TAG t1 RETAIN 2 HOURS'), [['create_tag', { table: 'db.t', tag: 't1', time_retained: '2 h' }]]);
    assert.deepEqual(plan('ALTER TABLE db.t CREATE TAG IF NOT EXISTS t1 RETAIN 45 MINUTES'), [['create_tag', { table: 'db.t', tag: 't1', time_retained: '45 min' }, 'TAG_ALREADY_EXISTS']]);
    assert.deepEqual(plan('ALTER TABLE db.t REPLACE TAG t1 AS OF VERSION 2'), [['replace_tag', { table: 'db.t', tag: 't1', snapshot_id: 2n }]]);
    // One call, so one audit record and one metrics count for the statement.
    assert.deepEqual(plan('ALTER TABLE db.t CREATE OR REPLACE TAG t1 AS OF VERSION 2'), [
      ['replace_tag', { table: 'db.t', tag: 't1', snapshot_id: 2n, create_if_missing: true }],
    ]);
    assert.deepEqual(plan('ALTER TABLE db.t DROP TAG t1'), [['delete_tag', { table: 'db.t', tag: 't1' }]]);
    assert.deepEqual(plan('ALTER TABLE db.t DROP TAG IF EXISTS t1'), [['delete_tag', { table: 'db.t', tag: 't1', if_exists: true }]]);
  });

  test('branches, and the clauses Paimon branches have no equivalent for', () => {
    assert.deepEqual(plan('ALTER TABLE db.t CREATE BRANCH b'), [['create_branch', { table: 'db.t', branch: 'b' }]]);
    assert.deepEqual(plan('ALTER TABLE db.t CREATE BRANCH IF NOT EXISTS b'), [['create_branch', { table: 'db.t', branch: 'b', ignore_if_exists: true }]]);
    assert.deepEqual(plan('ALTER TABLE db.t DROP BRANCH b'), [['delete_branch', { table: 'db.t', branch: 'b' }]]);
    assert.deepEqual(plan('ALTER TABLE db.t DROP BRANCH IF EXISTS b'), [['delete_branch', { table: 'db.t', branch: 'b' }, 'BRANCH_NOT_FOUND']]);
    for (const [sql, names] of [
      ['ALTER TABLE db.t CREATE BRANCH b AS OF VERSION 3', /CALL sys\.create_tag\(.*snapshot_id => 3\).*CALL sys\.create_branch\(.*tag => /],
      ['ALTER TABLE db.t CREATE BRANCH b RETAIN 2 DAYS', /RETAIN.*CALL sys\.create_branch\(table => 'db\.t', branch => 'b'\)/],
      ['ALTER TABLE db.t CREATE BRANCH b WITH SNAPSHOT RETENTION 2 SNAPSHOTS', /WITH SNAPSHOT RETENTION.*CALL sys\.create_branch/],
      ['ALTER TABLE db.t REPLACE BRANCH b', /REPLACE BRANCH.*CALL sys\.delete_branch.*CALL sys\.create_branch/],
      ['ALTER TABLE db.t CREATE OR REPLACE BRANCH b', /CREATE OR REPLACE BRANCH.*CALL sys\.delete_branch/],
    ] as const) {
      const e = refusal(sql);
      assert.equal(e.code, 'NOT_SUPPORTED');
      assert.match(e.message, names, sql);
    }
  });

  test('the table argument back-quotes parts that would not read back as one part', () => {
    assert.equal(tableArgument(['db', 'tbl']), 'db.tbl');
    assert.equal(tableArgument(['tbl']), 'tbl');
    assert.equal(tableArgument(['a.b', 'c`d']), '`a.b`.`c``d`');
    assert.equal(procedureOfDdl({ action: 'drop', ref: 'tag' }), 'delete_tag');
    assert.equal(procedureOfDdl({ action: 'create', ref: 'branch' }), 'create_branch');
  });
});

describe('running the calls of a statement', () => {
  const inv = (procedure: string): ProcedureInvocation => ({ procedure, args: [] });
  const failed = (code: ProcedureErrorCode): StepOutcome => {
    const e = new ProcedureError(code, `${code} here`);
    return { ok: false, error: e, replies: [{ kind: 'error', errno: e.errno, sqlState: e.sqlState, message: e.message }] };
  };
  const succeeded: StepOutcome = {
    ok: true,
    replies: [{ kind: 'resultset', columns: [], rows: [] }, { kind: 'ok', affectedRows: 1, info: 'x', warnings: [{ level: 'Warning', code: 1105, message: 'w' }] }],
  };
  async function run(steps: DdlStep[], outcomes: StepOutcome[]) {
    const called: string[] = [];
    const replies = await runDdlPlan(steps, async (i) => {
      called.push(i.procedure);
      return outcomes.shift()!;
    });
    return { called, replies };
  }

  test('a success is an OK without rows or result set, keeping the warnings', async () => {
    const r = await run([{ invocation: inv('create_tag') }], [succeeded]);
    assert.deepEqual(r.replies, [{ kind: 'ok', affectedRows: 0, warnings: [{ level: 'Warning', code: 1105, message: 'w' }] }]);
  });

  test('okOn answers OK with a Note, any other error is the answer', async () => {
    let r = await run([{ invocation: inv('create_tag'), okOn: 'TAG_ALREADY_EXISTS' }], [failed('TAG_ALREADY_EXISTS')]);
    assert.deepEqual(r.replies, [{ kind: 'ok', affectedRows: 0, warnings: [{ level: 'Note', code: 1105, message: 'TAG_ALREADY_EXISTS here' }] }]);
    r = await run([{ invocation: inv('create_tag'), okOn: 'TAG_ALREADY_EXISTS' }], [failed('TABLE_ACCESS_DENIED')]);
    assert.deepEqual(r.replies, failed('TABLE_ACCESS_DENIED').replies);
  });

  test('every statement of the grammar plans to exactly one call', () => {
    for (const sql of [
      'ALTER TABLE db.t CREATE TAG t1',
      'ALTER TABLE db.t CREATE TAG IF NOT EXISTS t1',
      'ALTER TABLE db.t REPLACE TAG t1',
      'ALTER TABLE db.t CREATE OR REPLACE TAG t1 RETAIN 1 DAYS',
      'ALTER TABLE db.t DROP TAG IF EXISTS t1',
      'ALTER TABLE db.t CREATE BRANCH IF NOT EXISTS b',
      'ALTER TABLE db.t DROP BRANCH b',
    ]) {
      assert.equal(plan(sql).length, 1, sql);
    }
  });
});
