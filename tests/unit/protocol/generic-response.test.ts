import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { buildEof, buildErr, buildOk, parseEof, parseErr, parseOk, isEofPacket, isOkPacket } from '../../../protocol/generic-response.js';
import { CLIENT_DEPRECATE_EOF, CLIENT_PROTOCOL_41, CLIENT_SESSION_TRACK, SERVER_STATUS_AUTOCOMMIT } from '../../../protocol/constants.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('OK / ERR / EOF', () => {
  test("parses MySQL's documented OK example (07 00 00 02 00 00 00 02 00 00 00)", () => {
    const ok = parseOk(hex('00 00 00 02 00 00 00'), CLIENT_PROTOCOL_41);
    assert.equal(ok.affectedRows, 0n);
    assert.equal(ok.statusFlags, SERVER_STATUS_AUTOCOMMIT);
    assert.equal(ok.warnings, 0);
    assert.deepEqual(buildOk(CLIENT_PROTOCOL_41, { statusFlags: SERVER_STATUS_AUTOCOMMIT }), hex('00 00 00 02 00 00 00'));
  });

  test("parses MySQL's documented ERR example (1096 HY000 No tables used)", () => {
    const e = parseErr(hex('ff 48 04 23 48 59 30 30 30 4e 6f 20 74 61 62 6c 65 73 20 75 73 65 64'));
    assert.deepEqual(e, { errno: 1096, sqlState: 'HY000', message: 'No tables used' });
    assert.deepEqual(buildErr(e), hex('ff 48 04 23 48 59 30 30 30 4e 6f 20 74 61 62 6c 65 73 20 75 73 65 64'));
  });

  test("parses MySQL's documented EOF example (fe 00 00 02 00)", () => {
    assert.deepEqual(parseEof(hex('fe 00 00 02 00')), { warnings: 0, statusFlags: 2 });
    assert.deepEqual(buildEof({ warnings: 0, statusFlags: 2 }), hex('fe 00 00 02 00'));
    assert.ok(isEofPacket(hex('fe 00 00 02 00')));
    assert.ok(!isEofPacket(Buffer.concat([hex('fe'), Buffer.alloc(9)])));
  });

  test('OK info is string<lenenc> with and without SESSION_TRACK, as MySQL, MariaDB and Doris write it', () => {
    const a = buildOk(CLIENT_PROTOCOL_41 | CLIENT_SESSION_TRACK, { affectedRows: 300, info: 'Rows matched: 1' });
    assert.deepEqual([...a.subarray(0, 4)], [0x00, 0xfc, 0x2c, 0x01]);
    assert.equal(a[a.length - 16], 15);
    assert.equal(parseOk(a, CLIENT_SESSION_TRACK).info, 'Rows matched: 1');
    // Connector/J reads the info as string<lenenc> even when it did not set CLIENT_SESSION_TRACK.
    const b = buildOk(CLIENT_PROTOCOL_41, { info: 'hi' });
    assert.deepEqual([...b.subarray(7)], [2, 0x68, 0x69]);
    assert.equal(parseOk(b, 0).info, 'hi');
    assert.ok(isOkPacket(b));
    // An empty info is left out, unless the client reads the field (SESSION_TRACK, DEPRECATE_EOF).
    assert.equal(buildOk(CLIENT_PROTOCOL_41).length, 7);
    assert.deepEqual([...buildOk(CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF).subarray(7)], [0]);
    assert.deepEqual([...buildOk(CLIENT_PROTOCOL_41 | CLIENT_SESSION_TRACK).subarray(7)], [0]);
  });

  test('an upstream OK whose info is string<EOF> is still read', () => {
    const plain = Buffer.concat([hex('00 00 00 02 00 00 00'), Buffer.from('Rows matched: 1')]);
    assert.equal(parseOk(plain, CLIENT_PROTOCOL_41).info, 'Rows matched: 1');
    assert.equal(parseOk(plain, CLIENT_PROTOCOL_41).statusFlags, 2);
  });

  test('the 0xFE-headed OK used as a terminator under DEPRECATE_EOF', () => {
    const t = buildOk(CLIENT_PROTOCOL_41, { asEof: true, statusFlags: 0x22 });
    assert.equal(t[0], 0xfe);
    assert.equal(parseOk(t, 0).statusFlags, 0x22);
  });

  test('an ERR SQLSTATE is padded or cut to five characters', () => {
    assert.equal(parseErr(buildErr({ errno: 1, sqlState: '42', message: 'm' })).sqlState, '42000');
  });
});
