import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { InfileScanner, ResponseTracker } from '../../../protocol/response-tracker.js';
import { encodePacket } from '../../../protocol/packet.js';
import { buildEof, buildErr, buildOk } from '../../../protocol/generic-response.js';
import { buildColumnDefinition, buildTextRow, textResultSetPayloads, type ColumnDefinition } from '../../../protocol/result-set.js';
import {
  CLIENT_DEPRECATE_EOF,
  CLIENT_PROTOCOL_41,
  COM_CHANGE_USER,
  COM_FIELD_LIST,
  COM_PING,
  COM_QUERY,
  COM_STATISTICS,
  COM_STMT_CLOSE,
  COM_STMT_EXECUTE,
  COM_STMT_PREPARE,
  COM_STMT_SEND_LONG_DATA,
  MYSQL_TYPE_LONG,
  SERVER_MORE_RESULTS_EXISTS,
  SERVER_STATUS_AUTOCOMMIT,
  SERVER_STATUS_IN_TRANS,
} from '../../../protocol/constants.js';

const col = (name: string): ColumnDefinition => ({
  schema: 'db', table: 't', orgTable: 't', name, orgName: name, characterSet: 63, columnLength: 11, type: MYSQL_TYPE_LONG, flags: 0, decimals: 0,
});

/** Frames payloads of one response with sequence ids from 1. */
function frame(payloads: Buffer[]): Buffer {
  let seq = 1;
  return Buffer.concat(payloads.map((p) => { const b = encodePacket(p, seq); seq += Math.floor(p.length / 0xffffff) + 1; return b; }));
}

/**
 * Feeds `stream` split at `cut` and returns where the tracker said the response ended
 * (absolute index) or -1. Every response is checked at every cut, so headers and prefixes
 * straddling chunk boundaries are covered.
 */
function endAt(caps: number, command: number, stream: Buffer, cuts: number[]): number {
  const t = new ResponseTracker(caps);
  t.begin(command);
  let from = 0;
  for (const cut of [...cuts, stream.length]) {
    const chunk = stream.subarray(from, cut);
    const r = t.feed(chunk);
    if (r >= 0) return from + r;
    from = cut;
  }
  return -1;
}

function assertEndsExactly(caps: number, command: number, response: Buffer, label: string): void {
  // trailing bytes that belong to nothing must not be counted in
  const stream = Buffer.concat([response, Buffer.from([1, 0, 0, 0, 0x0e])]);
  const step = response.length > 4000 ? 997 : 1;
  for (let cut = 0; cut <= response.length; cut += step) {
    assert.equal(endAt(caps, command, stream, [cut]), response.length, `${label}: cut at ${cut}`);
  }
  // byte-by-byte for small responses
  if (response.length < 400) {
    const cuts = Array.from({ length: response.length }, (_, i) => i + 1);
    assert.equal(endAt(caps, command, stream, cuts), response.length, `${label}: byte by byte`);
  }
}

const EOF_CAPS = CLIENT_PROTOCOL_41;
const DEP_CAPS = CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF;

describe('response tracker', () => {
  test('OK and ERR end a response', () => {
    assertEndsExactly(EOF_CAPS, COM_PING, frame([buildOk(EOF_CAPS, { statusFlags: 2 })]), 'ok');
    assertEndsExactly(EOF_CAPS, COM_QUERY, frame([buildErr({ errno: 1064, sqlState: '42000', message: 'syntax' })]), 'err');
  });

  for (const [name, caps] of [['EOF', EOF_CAPS], ['DEPRECATE_EOF', DEP_CAPS]] as const) {
    test(`text result set with ${name} terminators ends after its terminator, and reports its status`, () => {
      const rs = textResultSetPayloads([col('a'), col('b')], [['1', null], ['2', 'x'], ['', '']], {
        capabilities: caps, statusFlags: SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS, moreResults: false,
      });
      const stream = frame(rs);
      assertEndsExactly(caps, COM_QUERY, stream, name);
      const t = new ResponseTracker(caps);
      t.begin(COM_QUERY);
      assert.equal(t.feed(stream), stream.length);
      assert.equal(t.lastStatusFlags, SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS);
      assert.equal(t.busy, false);
    });

    test(`multi-results (${name}): a result with MORE_RESULTS_EXISTS, an OK with it, then the final result`, () => {
      const first = textResultSetPayloads([col('a')], [['1']], { capabilities: caps, statusFlags: 2, moreResults: true });
      const middle = buildOk(caps, { statusFlags: 2 | SERVER_MORE_RESULTS_EXISTS, affectedRows: 3 });
      const last = textResultSetPayloads([col('b')], [['2']], { capabilities: caps, statusFlags: 2, moreResults: false });
      assertEndsExactly(caps, COM_QUERY, frame([...first, middle, ...last]), `multi ${name}`);
      // the chain stops at an ERR even after MORE_RESULTS_EXISTS
      const withErr = frame([...first, buildErr({ errno: 1146, sqlState: '42S02', message: 'no table' })]);
      const t = new ResponseTracker(caps);
      t.begin(COM_QUERY);
      assert.equal(t.feed(withErr), withErr.length);
      assert.equal(t.outcome, 'error');
    });
  }

  test('an ERR in the middle of rows ends the response', () => {
    const rs = textResultSetPayloads([col('a')], [['1'], ['2']], { capabilities: EOF_CAPS, statusFlags: 2, moreResults: false });
    rs.splice(rs.length - 1, 1, buildErr({ errno: 1317, sqlState: '70100', message: 'interrupted' }));
    assertEndsExactly(EOF_CAPS, COM_QUERY, frame(rs), 'err mid rows');
  });

  test('a row whose first value is 16 MiB (first byte 0xFE in the lenenc) is not mistaken for the terminator', () => {
    const big = Buffer.alloc(17 * 1024 * 1024, 0x41);
    const row = Buffer.concat([Buffer.from([0xfe]), Buffer.from(new BigUint64Array([BigInt(big.length)]).buffer), big]);
    for (const caps of [EOF_CAPS, DEP_CAPS]) {
      const rs = textResultSetPayloads([col('a')], [], { capabilities: caps, statusFlags: 2, moreResults: false });
      rs.splice(rs.length - 1, 0, row);
      const stream = frame(rs);
      assertEndsExactly(caps, COM_QUERY, stream, 'big row');
    }
  });

  test('a row of exactly 0xFFFFFF bytes, whose empty continuation starts nothing', () => {
    const v = Buffer.alloc(0xffffff - 4, 0x42);
    const row = Buffer.concat([Buffer.from([0xfd]), Buffer.from([v.length & 0xff, (v.length >> 8) & 0xff, v.length >> 16]), v]);
    assert.equal(row.length, 0xffffff);
    const rs = textResultSetPayloads([col('a')], [], { capabilities: DEP_CAPS, statusFlags: 2, moreResults: false });
    rs.splice(rs.length - 1, 0, row);
    assertEndsExactly(DEP_CAPS, COM_QUERY, frame(rs), 'exact row');
  });

  test('LOCAL INFILE: the request waits for the client, then the OK ends the response', () => {
    const t = new ResponseTracker(EOF_CAPS);
    t.begin(COM_QUERY);
    const req = frame([Buffer.concat([Buffer.from([0xfb]), Buffer.from('/tmp/data.csv')])]);
    assert.equal(t.feed(req), -1);
    assert.equal(t.awaitingClient, true);
    // client sends data, then an empty packet; the scanner finds its end even across chunks
    const client = Buffer.concat([encodePacket(Buffer.from('1,a\n2,b\n'), 2), encodePacket(Buffer.alloc(0), 3)]);
    const s = new InfileScanner();
    assert.equal(s.feed(client.subarray(0, 10)), -1);
    assert.equal(s.feed(client.subarray(10)), client.length - 10);
    t.infileDone();
    const ok = encodePacket(buildOk(EOF_CAPS, { affectedRows: 2, statusFlags: 2 }), 4);
    assert.equal(t.feed(ok), ok.length);
    assert.equal(t.busy, false);
  });

  test('the infile scanner does not stop at the empty packet that ends a 0xFFFFFF fragment chain', () => {
    const s = new InfileScanner();
    const data = encodePacket(Buffer.alloc(0xffffff, 1), 2); // 0xFFFFFF packet + empty continuation
    assert.equal(s.feed(data), -1);
    const end = encodePacket(Buffer.alloc(0), 4);
    assert.equal(s.feed(end), end.length);
  });

  for (const [name, caps] of [['EOF', EOF_CAPS], ['DEPRECATE_EOF', DEP_CAPS]] as const) {
    test(`COM_STMT_PREPARE (${name}): PREPARE_OK, parameter block, column block`, () => {
      const prepOk = (cols: number, params: number) => Buffer.from([0x00, 1, 0, 0, 0, cols, 0, params, 0, 0, 0, 0]);
      const eof = caps === EOF_CAPS ? [buildEof({ warnings: 0, statusFlags: 2 })] : [];
      assertEndsExactly(caps, COM_STMT_PREPARE, frame([prepOk(2, 1), buildColumnDefinition(col('?')), ...eof, buildColumnDefinition(col('a')), buildColumnDefinition(col('b')), ...eof]), 'p+c');
      assertEndsExactly(caps, COM_STMT_PREPARE, frame([prepOk(0, 2), buildColumnDefinition(col('?')), buildColumnDefinition(col('?')), ...eof]), 'params only');
      assertEndsExactly(caps, COM_STMT_PREPARE, frame([prepOk(1, 0), buildColumnDefinition(col('a')), ...eof]), 'columns only');
      assertEndsExactly(caps, COM_STMT_PREPARE, frame([prepOk(0, 0)]), 'neither');
      assertEndsExactly(caps, COM_STMT_PREPARE, frame([buildErr({ errno: 1064, sqlState: '42000', message: 'x' })]), 'err');
    });
  }

  test('COM_STMT_EXECUTE binary rows (starting with 0x00) are rows, not OK packets', () => {
    const binRow = Buffer.from([0x00, 0x00, 1, 0, 0, 0]);
    const stream = frame([Buffer.from([1]), buildColumnDefinition(col('a')), binRow, binRow, buildOk(DEP_CAPS, { asEof: true, statusFlags: 2 })]);
    assertEndsExactly(DEP_CAPS, COM_STMT_EXECUTE, stream, 'binary');
  });

  test('COM_STMT_CLOSE and COM_STMT_SEND_LONG_DATA have no response', () => {
    const t = new ResponseTracker(EOF_CAPS);
    assert.equal(t.begin(COM_STMT_CLOSE), false);
    assert.equal(t.busy, false);
    assert.equal(t.begin(COM_STMT_SEND_LONG_DATA), false);
  });

  test('COM_STATISTICS is one bare string packet; COM_FIELD_LIST ends at EOF', () => {
    assertEndsExactly(EOF_CAPS, COM_STATISTICS, frame([Buffer.from('Uptime: 5  Threads: 1  Questions: 2')]), 'stats');
    const d = { ...col('a'), defaultValue: '' };
    assertEndsExactly(EOF_CAPS, COM_FIELD_LIST, frame([buildColumnDefinition(d), buildColumnDefinition(d), buildEof({ warnings: 0, statusFlags: 2 })]), 'field list');
  });

  test('COM_CHANGE_USER: an AuthSwitchRequest keeps the exchange open until OK', () => {
    const t = new ResponseTracker(EOF_CAPS);
    t.begin(COM_CHANGE_USER);
    const sw = frame([Buffer.concat([Buffer.from([0xfe]), Buffer.from('mysql_native_password\0'), Buffer.alloc(21, 0x41)])]);
    assert.equal(t.feed(sw), -1);
    assert.equal(t.busy, true);
    const ok = encodePacket(buildOk(EOF_CAPS, { statusFlags: 2 }), 3);
    assert.equal(t.feed(ok), ok.length);
    assert.equal(t.outcome, 'ok');
  });

  test('COM_CHANGE_USER: caching_sha2 "perform full authentication" is flagged, "fast auth success" is not; begin() clears it', () => {
    const t = new ResponseTracker(EOF_CAPS);
    t.begin(COM_CHANGE_USER);
    const sw = Buffer.concat([Buffer.from([0xfe]), Buffer.from('caching_sha2_password\0'), Buffer.alloc(21, 0x41)]);
    const stream = Buffer.concat([encodePacket(sw, 1), encodePacket(Buffer.from([0x01, 0x03]), 3)]);
    assert.equal(t.feed(stream), -1);
    assert.equal(t.fullAuthRequested, false, 'fast auth success');
    // split inside the 2-byte AuthMoreData: the flag is set from the walker's joined prefix
    const full = encodePacket(Buffer.from([0x01, 0x04]), 5);
    assert.equal(t.feed(full.subarray(0, 5)), -1);
    assert.equal(t.feed(full.subarray(5)), -1);
    assert.equal(t.fullAuthRequested, true);
    const ok = encodePacket(buildOk(EOF_CAPS, { statusFlags: 2 }), 7);
    assert.equal(t.feed(ok), ok.length);
    t.begin(COM_CHANGE_USER);
    assert.equal(t.fullAuthRequested, false);
    // a query's first packet 0x01 0x04 is a column count, not an auth request
    t.begin(COM_QUERY);
    t.feed(encodePacket(Buffer.from([0x01]), 1));
    assert.equal(t.fullAuthRequested, false);
  });

  test('COM_CHANGE_USER switched to mysql_clear_password is flagged (the client answers with its password), other switches are not', () => {
    const t = new ResponseTracker(EOF_CAPS);
    t.begin(COM_CHANGE_USER);
    const native = Buffer.concat([Buffer.from([0xfe]), Buffer.from('mysql_native_password\0'), Buffer.alloc(21, 0x41)]);
    t.feed(encodePacket(native, 1));
    assert.equal(t.clearPasswordRequested, false);
    t.begin(COM_CHANGE_USER);
    // split inside the plugin name: the flag comes from the walker's joined prefix
    const clear = encodePacket(Buffer.from('\xfemysql_clear_password\0', 'latin1'), 1);
    assert.equal(t.feed(clear.subarray(0, 9)), -1);
    assert.equal(t.feed(clear.subarray(9)), -1);
    assert.equal(t.clearPasswordRequested, true);
    t.begin(COM_CHANGE_USER);
    assert.equal(t.clearPasswordRequested, false);
    // a longer name that starts with the same letters is another plugin
    t.feed(encodePacket(Buffer.from('\xfemysql_clear_passwordX\0', 'latin1'), 1));
    assert.equal(t.clearPasswordRequested, false);
  });

  test('a 200,000-row result scans without allocating per row (smoke: bounded time)', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => [String(i), 'row' + i]);
    const stream = frame(textResultSetPayloads([col('a'), col('b')], rows, { capabilities: DEP_CAPS, statusFlags: 2, moreResults: false }));
    const t = new ResponseTracker(DEP_CAPS);
    t.begin(COM_QUERY);
    let end = -1;
    for (let off = 0; off < stream.length && end < 0; off += 65536) {
      const r = t.feed(stream.subarray(off, off + 65536));
      if (r >= 0) end = off + r;
    }
    assert.equal(end, stream.length);
    assert.equal(t.packets, 200_000 + 4);
    assert.ok(buildTextRow(['x']).length > 0);
  });
});
