import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  PROCEDURE_DETAIL_COLUMNS,
  PROCEDURE_LISTING_COLUMNS,
  procedureDetail,
  procedureListing,
  SHORT_DESCRIPTION_CHARS,
  shortDescription,
} from '../../../../procedures/framework/docs.js';
import { isProcedureError } from '../../../../procedures/framework/errors.js';
import { ProcedureRegistry } from '../../../../procedures/framework/registry.js';
import { expireSnapshots } from '../../../../procedures/snapshots/expire-snapshots.js';
import { rollback, rollbackTo } from '../../../../procedures/snapshots/rollback-to.js';
import { removeOrphanFiles } from '../../../../procedures/files/remove-orphan-files.js';
import { compact } from '../../../../procedures/compaction/compact.js';

const registry = new ProcedureRegistry([expireSnapshots, rollbackTo, rollback, removeOrphanFiles, compact]);
const col = (name: string): number => PROCEDURE_DETAIL_COLUMNS.findIndex(([n]) => n === name);

describe('SHOW PROCEDURES fits a terminal', () => {
  test('name, privilege and the first sentence of the description, at most 80 characters', () => {
    const rows = procedureListing(registry);
    assert.deepEqual(PROCEDURE_LISTING_COLUMNS.map(([n]) => n), ['Name', 'Privilege', 'Description']);
    assert.deepEqual(rows.map((r) => r[0]), ['compact', 'expire_snapshots', 'remove_orphan_files', 'rollback', 'rollback_to']);
    for (const r of rows) {
      assert.equal(r.length, PROCEDURE_LISTING_COLUMNS.length);
      assert.equal(r[1], 'ALTER ON TABLE');
      assert.ok(r[2]!.length <= SHORT_DESCRIPTION_CHARS, `${r[0]}: ${r[2]}`);
      assert.ok(!r[2]!.includes('. '), `${r[0]}: one sentence: ${r[2]}`);
    }
    assert.equal(rows.find((r) => r[0] === 'expire_snapshots')![2], "Expire old snapshots of a table (Paimon's ExpireSnapshotsImpl)");
  });
  test('a long first sentence loses its parentheses, then is cut at a word with an ellipsis', () => {
    assert.equal(shortDescription('Short one. Second sentence.'), 'Short one');
    assert.equal(shortDescription('Create a tag (default: latest). More.'), 'Create a tag (default: latest)');
    assert.equal(shortDescription('Does a thing (with a long remark that would not fit in the listing at all, really) quickly.'), 'Does a thing quickly');
    const cut = shortDescription('word '.repeat(40));
    assert.ok(cut.length <= SHORT_DESCRIPTION_CHARS && cut.endsWith('word…'), cut);
  });
});

describe('SHOW PROCEDURE <name>', () => {
  test('the full signature with the framework arguments, each parameter with type, default and aliases, the result columns', () => {
    const rows = procedureDetail(registry, 'ROLLBACK_TO');
    const section = (s: string) => rows.filter((r) => r[col('Section')] === s);
    for (const r of rows) assert.equal(r.length, PROCEDURE_DETAIL_COLUMNS.length);
    assert.equal(section('procedure')[0]![col('Name')], 'rollback_to');
    assert.match(section('signature')[0]![col('Description')]!, /^rollback_to\(table STRING required, tag STRING \(alias tagName\), .*dry_run BOOLEAN = FALSE; by name only: timeout STRING, async BOOLEAN\)$/);
    assert.equal(section('privilege')[0]![col('Description')], 'ALTER ON TABLE');
    const params = section('parameter');
    assert.deepEqual(params.map((r) => [r[col('Position')], r[col('Name')], r[col('Type')], r[col('Required')], r[col('Default')]]), [
      ['1', 'table', 'STRING', 'YES', null],
      ['2', 'tag', 'STRING', 'NO', 'NULL'],
      ['3', 'snapshot_id', 'BIGINT', 'NO', 'NULL'],
      ['4', 'dry_run', 'BOOLEAN', 'NO', 'FALSE'],
    ]);
    assert.equal(params[2]![col('Aliases')], 'snapshot, snapshotId');
    assert.deepEqual(section('parameter (by name only)').map((r) => [r[col('Name')], r[col('Type')], r[col('Position')]]), [
      ['timeout', 'STRING', null],
      ['async', 'BOOLEAN', null],
    ]);
    assert.deepEqual(section('result column').slice(0, 2).map((r) => r[col('Name')]), ['previous_snapshot_id', 'current_snapshot_id']);
  });
  test('an alias finds the procedure; an unknown name is PROCEDURE_NOT_FOUND with a suggestion', () => {
    assert.equal(procedureDetail(registry, 'rollback')[0]![col('Name')], 'rollback');
    assert.throws(
      () => procedureDetail(registry, 'expire_snapshot'),
      (e) => isProcedureError(e, 'PROCEDURE_NOT_FOUND') && /^PROCEDURE sys\.expire_snapshot does not exist\. Did you mean expire_snapshots \(1 edit away\)/.test(e.message),
    );
  });
});
