import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildColumnDefinition, framePayloads, parseColumnDefinition, parseTextRow, textResultSetPayloads, type ColumnDefinition } from '../../../protocol/result-set.js';
import { CLIENT_DEPRECATE_EOF, CLIENT_PROTOCOL_41, MYSQL_TYPE_VAR_STRING, SERVER_MORE_RESULTS_EXISTS } from '../../../protocol/constants.js';

const c: ColumnDefinition = {
  schema: '', table: '', orgTable: '', name: '@@version_comment', orgName: '', characterSet: 33, columnLength: 256, type: MYSQL_TYPE_VAR_STRING, flags: 0, decimals: 31,
};

describe('column definitions and text result sets', () => {
  test('a column definition has catalog def, 0x0C fixed-field length and two filler bytes', () => {
    const b = buildColumnDefinition(c);
    assert.deepEqual([...b.subarray(0, 4)], [3, 0x64, 0x65, 0x66]);
    assert.equal(b[b.length - 13], 0x0c);
    assert.deepEqual([...b.subarray(b.length - 2)], [0, 0]);
    assert.deepEqual(parseColumnDefinition(b), c);
  });

  test('without DEPRECATE_EOF: count, columns, EOF, rows, EOF; with it: no middle EOF and an 0xFE OK at the end', () => {
    const rows = [['a'], [null]];
    const eofs = textResultSetPayloads([c], rows, { capabilities: CLIENT_PROTOCOL_41, statusFlags: 2, moreResults: false });
    assert.equal(eofs.length, 1 + 1 + 1 + 2 + 1);
    assert.deepEqual([...eofs[2]], [0xfe, 0, 0, 2, 0]);
    assert.deepEqual(parseTextRow(eofs[4], 1), [null]);
    const dep = textResultSetPayloads([c], rows, { capabilities: CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, statusFlags: 2, moreResults: true });
    assert.equal(dep.length, 1 + 1 + 2 + 1);
    const last = dep[dep.length - 1];
    assert.equal(last[0], 0xfe);
    assert.ok(last.length >= 7);
    assert.equal(last.readUInt16LE(3), 2 | SERVER_MORE_RESULTS_EXISTS);
  });

  test('rows must match the column count', () => {
    assert.throws(() => textResultSetPayloads([c], [['a', 'b']], { capabilities: 0, statusFlags: 0, moreResults: false }), /2 values for 1 columns/);
  });

  test('framing numbers packets consecutively from the given sequence id', () => {
    const { bytes, nextSeq } = framePayloads([Buffer.from('a'), Buffer.from('bc')], 1);
    assert.deepEqual([...bytes], [1, 0, 0, 1, 0x61, 2, 0, 0, 2, 0x62, 0x63]);
    assert.equal(nextSeq, 3);
  });
});
