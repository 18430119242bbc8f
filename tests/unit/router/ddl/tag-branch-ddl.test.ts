import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseTagBranchDdl, type TagBranchClause } from '../../../../src/router/ddl/tag-branch-ddl.js';
import { ProcedureError } from '../../../../procedures/framework/errors.js';

function clause(sql: string): TagBranchClause {
  const d = parseTagBranchDdl(sql);
  assert.ok(d !== null, sql);
  if (d.clause instanceof ProcedureError) throw d.clause;
  return d.clause;
}

function refused(sql: string): ProcedureError {
  const d = parseTagBranchDdl(sql);
  assert.ok(d !== null, sql);
  assert.ok(d.clause instanceof ProcedureError, `${sql} should be refused`);
  return d.clause;
}

const create = (over: Partial<Extract<TagBranchClause, { action: 'create' }>>): TagBranchClause => ({
  action: 'create', ref: 'tag', mode: 'create', name: 't1', asOfVersion: null, retain: null, snapshotRetention: null, ...over,
});

describe('ALTER TABLE tag/branch grammar', () => {
  test('CREATE TAG with every option, in any letter case, with comments and a final semicolon', () => {
    assert.deepEqual(clause('ALTER TABLE db.tbl CREATE TAG t1'), create({}));
    assert.deepEqual(clause('alter table db.tbl create tag if not exists t1 as of version 3 retain 2 days;'),
      create({ mode: 'create_if_not_exists', asOfVersion: 3n, retain: { value: 2n, unit: 'DAYS' } }));
    assert.deepEqual(clause("/* lead */ ALTER -- c\n TABLE `db`.`tbl` CREATE # x\n TAG t1 RETAIN 5 HOURS /* tail */"),
      create({ retain: { value: 5n, unit: 'HOURS' } }));
    assert.deepEqual(clause('ALTER TABLE tbl CREATE OR REPLACE TAG t1 RETAIN 30 minutes'), create({ mode: 'create_or_replace', retain: { value: 30n, unit: 'MINUTES' } }));
    assert.deepEqual(clause('ALTER TABLE tbl REPLACE TAG t1 AS OF VERSION 9223372036854775807'), create({ mode: 'replace', asOfVersion: 9223372036854775807n }));
  });

  test('names: one to three parts, back-quoted parts with dots, back-quotes and spaces, quoted tag names', () => {
    assert.deepEqual(parseTagBranchDdl('ALTER TABLE paimon.db.tbl DROP TAG t')?.table, ['paimon', 'db', 'tbl']);
    assert.deepEqual(parseTagBranchDdl('ALTER TABLE `a.b`.`c``d` DROP TAG t')?.table, ['a.b', 'c`d']);
    assert.deepEqual(parseTagBranchDdl('ALTER TABLE tbl DROP TAG t')?.table, ['tbl']);
    assert.deepEqual(clause('ALTER TABLE tbl DROP TAG `my tag`'), { action: 'drop', ref: 'tag', ifExists: false, name: 'my tag' });
    assert.deepEqual(clause('ALTER TABLE tbl DROP TAG `TAG`'), { action: 'drop', ref: 'tag', ifExists: false, name: 'TAG' });
  });

  test('DROP TAG / DROP BRANCH with and without IF EXISTS', () => {
    assert.deepEqual(clause('ALTER TABLE db.t DROP TAG IF EXISTS t1'), { action: 'drop', ref: 'tag', ifExists: true, name: 't1' });
    assert.deepEqual(clause('ALTER TABLE db.t DROP BRANCH b1'), { action: 'drop', ref: 'branch', ifExists: false, name: 'b1' });
    assert.deepEqual(clause('ALTER TABLE db.t drop branch if exists b1 ;'), { action: 'drop', ref: 'branch', ifExists: true, name: 'b1' });
  });

  test('CREATE BRANCH with its options and every WITH SNAPSHOT RETENTION form', () => {
    const b = (over: Partial<Extract<TagBranchClause, { action: 'create' }>>) => create({ ref: 'branch', name: 'b', ...over });
    assert.deepEqual(clause('ALTER TABLE db.t CREATE BRANCH b'), b({}));
    assert.deepEqual(clause('ALTER TABLE db.t CREATE BRANCH IF NOT EXISTS b'), b({ mode: 'create_if_not_exists' }));
    assert.deepEqual(clause('ALTER TABLE db.t CREATE OR REPLACE BRANCH b AS OF VERSION 4 RETAIN 1 DAYS'), b({ mode: 'create_or_replace', asOfVersion: 4n, retain: { value: 1n, unit: 'DAYS' } }));
    assert.deepEqual(clause('ALTER TABLE db.t CREATE BRANCH b WITH SNAPSHOT RETENTION 3 SNAPSHOTS'), b({ snapshotRetention: { minSnapshots: 3n, maxAge: null } }));
    assert.deepEqual(clause('ALTER TABLE db.t CREATE BRANCH b WITH SNAPSHOT RETENTION 2 HOURS'), b({ snapshotRetention: { minSnapshots: null, maxAge: { value: 2n, unit: 'HOURS' } } }));
    assert.deepEqual(clause('ALTER TABLE db.t REPLACE BRANCH b WITH SNAPSHOT RETENTION 3 SNAPSHOTS 7 DAYS'), b({ mode: 'replace', snapshotRetention: { minSnapshots: 3n, maxAge: { value: 7n, unit: 'DAYS' } } }));
  });

  test('statements that are not these DDLs are null (forwarded untouched), even when malformed', () => {
    for (const sql of [
      'ALTER TABLE db.t ADD COLUMN c INT',
      'ALTER TABLE db.t DROP COLUMN tag',
      'ALTER TABLE db.t CREATE INDEX i (c)',
      'ALTER TABLE db.t CREATE OR TAG x',
      'ALTER VIEW v CREATE TAG t',
      'ALTER DATABASE d SET x',
      'ALTER TABLE a.b.c.d DROP TAG t',
      "ALTER TABLE 'db'.t DROP TAG t",
      'ALTER TABLE db.t /*! DROP TAG t */',
      'ALTER TABLE `db',
      'SELECT 1',
      'ALTERX TABLE t DROP TAG x',
    ]) assert.equal(parseTagBranchDdl(sql), null, sql);
  });

  test('after TAG / BRANCH, what does not read is an error of the statement', () => {
    for (const [sql, code] of [
      ['ALTER TABLE db.t CREATE TAG', 'PARSE_ERROR'],
      ["ALTER TABLE db.t CREATE TAG 'quoted'", 'PARSE_ERROR'],
      ['ALTER TABLE db.t CREATE TAG x AS OF VERSION -1', 'PARSE_ERROR'],
      ['ALTER TABLE db.t CREATE TAG x AS OF VERSION 1.5', 'PARSE_ERROR'],
      ['ALTER TABLE db.t CREATE TAG x AS OF VERSION 0x10', 'PARSE_ERROR'],
      ['ALTER TABLE db.t CREATE TAG x RETAIN 2 WEEKS', 'PARSE_ERROR'],
      ['ALTER TABLE db.t CREATE TAG x RETAIN 2', 'PARSE_ERROR'],
      ['ALTER TABLE db.t RETAIN 2 DAYS CREATE TAG x', null],
      ['ALTER TABLE db.t CREATE TAG x RETAIN 2 DAYS AS OF VERSION 1', 'PARSE_ERROR'],
      ['ALTER TABLE db.t CREATE TAG x WITH SNAPSHOT RETENTION 2 SNAPSHOTS', 'PARSE_ERROR'],
      ['ALTER TABLE db.t REPLACE TAG IF NOT EXISTS x', 'PARSE_ERROR'],
      ['ALTER TABLE db.t DROP TAG IF NOT EXISTS x', 'PARSE_ERROR'],
      ['ALTER TABLE db.t DROP TAG x RETAIN 1 DAYS', 'PARSE_ERROR'],
      ['ALTER TABLE db.t CREATE TAG x /* open', 'PARSE_ERROR'],
      ['ALTER TABLE db.t DROP TAG x, DROP TAG y', 'NOT_SUPPORTED'],
      ['ALTER TABLE db.t DROP TAG x; SELECT 1', 'MULTI_STATEMENT'],
    ] as const) {
      if (code === null) {
        assert.equal(parseTagBranchDdl(sql), null, sql);
        continue;
      }
      const e = refused(sql);
      assert.equal(e.code, code, `${sql}: ${e.message}`);
      if (code === 'PARSE_ERROR') assert.match(e.message, /error in your ALTER TABLE syntax.*line 1, column \d+/, sql);
    }
    assert.deepEqual(parseTagBranchDdl('ALTER TABLE db.t CREATE TAG')?.ref, 'tag');
    assert.deepEqual(parseTagBranchDdl('ALTER TABLE db.t DROP BRANCH')?.action, 'drop');
  });
});
