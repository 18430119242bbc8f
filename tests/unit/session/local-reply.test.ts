import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { localReplyPayloads } from '../../../src/session/local-reply.js';
import { parseColumnDefinition, parseTextRow } from '../../../protocol/result-set.js';
import { parseOk, parseErr } from '../../../protocol/generic-response.js';
import {
  CLIENT_DEPRECATE_EOF, CLIENT_MULTI_RESULTS, CLIENT_PROTOCOL_41, MYSQL_TYPE_LONGLONG, MYSQL_TYPE_VAR_STRING, MYSQL_TYPE_TINY,
  SERVER_MORE_RESULTS_EXISTS, SERVER_STATUS_AUTOCOMMIT, SERVER_STATUS_IN_TRANS,
} from '../../../protocol/constants.js';
import type { LocalReply } from '../../../src/router/route.js';

const rs: LocalReply = { kind: 'resultset', columns: [{ name: 'snapshot_id', type: 'bigint' }, { name: 'tag', type: 'string' }, { name: 'ok', type: 'boolean' }], rows: [['41', 'eod', '1'], [null, '', '0']] };
const ok: LocalReply = { kind: 'ok', affectedRows: 0, info: 'done' };

describe('local replies on the wire', () => {
  test('a CALL result [resultset, ok] under DEPRECATE_EOF: MORE_RESULTS on the result set, not on the final OK; upstream status copied', () => {
    const caps = CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF | CLIENT_MULTI_RESULTS;
    const status = SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS | SERVER_MORE_RESULTS_EXISTS;
    const p = localReplyPayloads([rs, ok], { capabilities: caps, statusFlags: status });
    // count, 3 column defs, 2 rows, 0xFE OK terminator, final OK
    assert.equal(p.length, 1 + 3 + 2 + 1 + 1);
    const cols = p.slice(1, 4).map(parseColumnDefinition);
    assert.deepEqual(cols.map((c) => [c.name, c.type]), [['snapshot_id', MYSQL_TYPE_LONGLONG], ['tag', MYSQL_TYPE_VAR_STRING], ['ok', MYSQL_TYPE_TINY]]);
    assert.deepEqual(parseTextRow(p[5], 3), [null, '', '0']);
    const term = parseOk(p[6], caps);
    assert.equal(p[6][0], 0xfe);
    assert.equal(term.statusFlags, SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS | SERVER_MORE_RESULTS_EXISTS);
    const final = parseOk(p[7], caps);
    assert.equal(p[7][0], 0x00);
    assert.equal(final.statusFlags, SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS);
    assert.equal(final.info, 'done');
  });

  test('without DEPRECATE_EOF the result set has EOF packets', () => {
    const p = localReplyPayloads([rs, ok], { capabilities: CLIENT_PROTOCOL_41 | CLIENT_MULTI_RESULTS, statusFlags: SERVER_STATUS_AUTOCOMMIT });
    assert.equal(p.length, 1 + 3 + 1 + 2 + 1 + 1);
    assert.deepEqual([...p[4]], [0xfe, 0, 0, 2, 0]);
    assert.deepEqual([...p[7]], [0xfe, 0, 0, 2 | SERVER_MORE_RESULTS_EXISTS, 0]);
  });

  test('a client without MULTI_RESULTS gets only the result set; an error ends the list', () => {
    const p = localReplyPayloads([rs, ok], { capabilities: CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, statusFlags: 2 });
    assert.equal(p.length, 1 + 3 + 2 + 1);
    assert.equal(parseOk(p[6], 0).statusFlags & SERVER_MORE_RESULTS_EXISTS, 0);
    const e = localReplyPayloads([{ kind: 'error', errno: 1305, sqlState: '42000', message: 'PROCEDURE x does not exist' }, ok], { capabilities: CLIENT_PROTOCOL_41 | CLIENT_MULTI_RESULTS, statusFlags: 2 });
    assert.equal(e.length, 1);
    assert.deepEqual(parseErr(e[0]), { errno: 1305, sqlState: '42000', message: 'PROCEDURE x does not exist' });
  });
});
