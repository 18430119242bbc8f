import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { binaryResultSetPayloads, buildBinaryRow, parseExecute, prepareOkPayloads, statementIdOf } from '../../../protocol/prepared-statement.js';
import { CLIENT_DEPRECATE_EOF, MYSQL_TYPE_DATETIME, MYSQL_TYPE_LONGLONG, MYSQL_TYPE_VAR_STRING } from '../../../protocol/constants.js';
import type { ColumnDefinition } from '../../../protocol/result-set.js';
import { bindPlaceholders, findPlaceholders, sqlLiteral } from '../../../src/router/prepared-call.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const col = (type: number): ColumnDefinition => ({ schema: '', table: '', orgTable: '', name: 'c', orgName: 'c', characterSet: 63, columnLength: 20, type, flags: 0, decimals: 0 });

describe('binary protocol pieces', () => {
  test("COM_STMT_EXECUTE as MySQL's documentation lays it out: id, flags, iteration count, NULL bitmap, types, values", () => {
    // stmt 1, no cursor, 1 iteration, 3 params: LONGLONG 7, NULL, VAR_STRING "hi"; bitmap 0b010
    const payload = hex('17 01000000 00 01000000 02 01 0800 fd00 fd00 0700000000000000 026869');
    const r = parseExecute(payload, 3, null);
    assert.equal(r.statementId, 1);
    assert.deepEqual(r.values, [7n, null, 'hi']);
    assert.deepEqual(r.types, [0x08, 0xfd, 0xfd]);
    assert.equal(statementIdOf(payload), 1);
    // a later execute without types reuses them
    const again = parseExecute(hex('17 01000000 00 01000000 00 00 0900000000000000 00 026f6b'), 3, r.types);
    assert.deepEqual(again.values, [9n, '', 'ok']);
    assert.throws(() => parseExecute(hex('17 01000000 00 01000000 00 00'), 1, null), /none were bound before/);
  });

  test('signed and unsigned integers, doubles and datetimes decode', () => {
    const p = hex('17 02000000 00 01000000 00 01 0100 0180 0500 0c00 ff ff 000000000000f83f 0b ea07 0b 1d 0c 22 38 40e20100');
    const r = parseExecute(p, 4, null);
    assert.deepEqual(r.values, [-1, 255, 1.5, '2026-11-29 12:34:56.123456']);
  });

  test('a binary row: 0x00, NULL bitmap with a 2-bit offset, fixed-width integers, lenenc strings, datetime structs', () => {
    const row = buildBinaryRow([col(MYSQL_TYPE_LONGLONG), col(MYSQL_TYPE_VAR_STRING), col(MYSQL_TYPE_DATETIME)], ['-2', null, '2026-01-02 03:04:05']);
    assert.deepEqual(row, hex('00 08 feffffffffffffff 07 ea07 01 02 03 04 05'));
  });

  test('PREPARE_OK announces the parameters, with EOF unless DEPRECATE_EOF', () => {
    const p = prepareOkPayloads(0xfffffffe, 2, [], 0, 2);
    assert.deepEqual(p[0], hex('00 feffffff 0000 0200 00 0000'));
    assert.equal(p.length, 1 + 2 + 1);
    assert.equal(prepareOkPayloads(7, 2, [], CLIENT_DEPRECATE_EOF, 2).length, 3);
    assert.equal(prepareOkPayloads(7, 0, [], 0, 2).length, 1);
    assert.equal(binaryResultSetPayloads([col(MYSQL_TYPE_LONGLONG)], [['1']], { capabilities: CLIENT_DEPRECATE_EOF, statusFlags: 2, moreResults: false }).length, 4);
  });

  test('placeholders are found outside strings and comments, and bound as literals', () => {
    const sql = "CALL paimon.sys.p(t => ?, s => '?', /* ? */ n => ?) -- ?";
    const at = findPlaceholders(sql)!;
    assert.equal(at.length, 2);
    const bound = bindPlaceholders({ id: 1, sql, placeholders: at, types: null, longData: new Map() }, ["a'b\\c", 12n], true);
    assert.equal(bound, "CALL paimon.sys.p(t => 'a''b\\\\c', s => '?', /* ? */ n => 12) -- ?");
    assert.equal(sqlLiteral(null, true), 'NULL');
    assert.equal(sqlLiteral("x\\y", false), "'x\\y'");
    assert.throws(() => sqlLiteral(Number.NaN, true), /no SQL literal/);
  });
});
