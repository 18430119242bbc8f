/**
 * Every response the proxy writes itself, encoded under each combination of CLIENT_PROTOCOL_41,
 * CLIENT_SESSION_TRACK, CLIENT_DEPRECATE_EOF and CLIENT_MULTI_RESULTS, and read back by mysql2's
 * own packet parsers (mysql2-decoder.ts), never by ours: OK with and without info and session
 * state, ERR, EOF and the 0xFE OK that replaces it, column definitions, text rows, binary rows,
 * COM_STMT_PREPARE_OK, and multi-result CALL replies chained by SERVER_MORE_RESULTS_EXISTS.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BufferWriter } from '../../../protocol/buffer-writer.js';
import {
  CLIENT_DEPRECATE_EOF,
  CLIENT_LONG_PASSWORD,
  CLIENT_MULTI_RESULTS,
  CLIENT_PLUGIN_AUTH,
  CLIENT_PROTOCOL_41,
  CLIENT_SECURE_CONNECTION,
  CLIENT_SESSION_TRACK,
  SERVER_MORE_RESULTS_EXISTS,
  SERVER_SESSION_STATE_CHANGED,
  SERVER_STATUS_AUTOCOMMIT,
  SERVER_STATUS_IN_TRANS,
} from '../../../protocol/constants.js';
import { buildEof, buildErr, buildOk } from '../../../protocol/generic-response.js';
import { parseHandshakeResponse41 } from '../../../protocol/handshake.js';
import { prepareOkPayloads } from '../../../protocol/prepared-statement.js';
import { buildColumnDefinition } from '../../../protocol/result-set.js';
import { columnDefinition, localReplyPayloads } from '../../../src/session/local-reply.js';
import type { ColumnSpec, LocalReply } from '../../../src/router/route.js';
import { decodeColumn, decodeErr, decodeOk, decodePrepareOk, decodeResponse, packetOf, type Decoded } from './mysql2-decoder.js';

const FLAGS = { PROTOCOL_41: CLIENT_PROTOCOL_41, SESSION_TRACK: CLIENT_SESSION_TRACK, DEPRECATE_EOF: CLIENT_DEPRECATE_EOF, MULTI_RESULTS: CLIENT_MULTI_RESULTS } as const;
const BASE = CLIENT_LONG_PASSWORD | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH;

/** All 16 combinations of the four flags, over the bits every client sets. */
const COMBINATIONS = Array.from({ length: 16 }, (_, m) => {
  const names = Object.keys(FLAGS).filter((_, i) => m & (1 << i));
  const caps = names.reduce((a, n) => a | FLAGS[n as keyof typeof FLAGS], BASE);
  return { caps, label: names.length ? names.join('+') : 'none' };
});

const UPSTREAM_STATUS = SERVER_STATUS_AUTOCOMMIT | SERVER_STATUS_IN_TRANS;
const INFO = 'Rows matched: 2  Changed: 1  Warnings: 0 — café 表 🚀';

/** One column of every type a procedure can return, and rows covering NULLs, extremes and UTF-8. */
const COLUMNS: ColumnSpec[] = [
  { name: 'snapshot_id', type: 'bigint' },
  { name: 'files', type: 'int' },
  { name: 'dry_run', type: 'boolean' },
  { name: 'ratio', type: 'double' },
  { name: 'bytes', type: 'decimal' },
  { name: 'committed_at', type: 'datetime' },
  { name: 'detail', type: 'json' },
  { name: 'message — 表', type: 'string' },
];
const ROWS: (string | null)[][] = [
  ['9223372036854775807', '-2147483648', '1', '0.5', '12345678901234567890.5', '2026-12-02 03:20:01', '{"data":3,"manifest":2}', 'ok'],
  [null, null, null, null, null, null, null, null],
  ['-1', '2147483647', '0', '-1.25e-7', '0', '1970-01-01 00:00:00.000001', '[]', 'naïve 表 — '.repeat(300)],
];
/** What mysql2 hands the application for ROWS (dateStrings, bigNumberStrings: BIGINT as strings). */
const TEXT_EXPECTED = [
  ['9223372036854775807', -2147483648, 1, 0.5, '12345678901234567890.5', '2026-12-02 03:20:01', '{"data":3,"manifest":2}', 'ok'],
  [null, null, null, null, null, null, null, null],
  ['-1', 2147483647, 0, -1.25e-7, '0', '1970-01-01 00:00:00.000001', '[]', 'naïve 表 — '.repeat(300)],
];
/** Binary rows: mysql2 formats DATETIME from the struct (fraction only when the value has one). */
const BINARY_EXPECTED = TEXT_EXPECTED;

function resultset(rows = ROWS): LocalReply {
  return { kind: 'resultset', columns: COLUMNS, rows };
}

function onlyResultSet(d: Decoded[]): Extract<Decoded, { kind: 'resultset' }> {
  assert.equal(d.length, 1, `one result, got ${d.map((x) => x.kind).join(',')}`);
  assert.equal(d[0]!.kind, 'resultset');
  return d[0] as Extract<Decoded, { kind: 'resultset' }>;
}

/** A SESSION_TRACK_SCHEMA entry (type 1): the new current schema. */
function schemaChange(schema: string): Buffer {
  const data = new BufferWriter(16).lenencString(schema).finish();
  return new BufferWriter(16).u8(1).lenencBytes(data).finish();
}

describe('responses under every capability combination, read by mysql2', () => {
  for (const { caps, label } of COMBINATIONS) {
    const p41 = (caps & CLIENT_PROTOCOL_41) !== 0;
    const sessionTrack = (caps & CLIENT_SESSION_TRACK) !== 0;
    const deprecateEof = (caps & CLIENT_DEPRECATE_EOF) !== 0;
    const multiResults = (caps & CLIENT_MULTI_RESULTS) !== 0;

    test(`[${label}] ERR: errno, SQLSTATE and a UTF-8 message`, () => {
      const e = decodeErr(buildErr({ errno: 1305, sqlState: '42000', message: "PROCEDURE paimon.sys.nope does not exist — 表 'x'" }));
      assert.deepEqual(e, { errno: 1305, sqlState: '42000', message: "PROCEDURE paimon.sys.nope does not exist — 表 'x'" });
      // a short SQLSTATE is padded to five characters, so mysql2 never reads message bytes as state
      assert.deepEqual(decodeErr(buildErr({ errno: 1, sqlState: 'HY', message: 'm' })), { errno: 1, sqlState: 'HY000', message: 'm' });
    });

    if (!p41) {
      // The proxy refuses a client without PROTOCOL_41 at login with an ERR (above), so no other
      // response is ever encoded for it.
      test(`[${label}] a client without PROTOCOL_41 is refused at login`, () => {
        const resp = new BufferWriter(64).u32(caps).u32(1 << 24).u8(33).zeros(23).nulString('root').u8(0).finish();
        assert.throws(() => parseHandshakeResponse41(resp), /PROTOCOL_41/);
      });
      continue;
    }

    test(`[${label}] OK without info: counts, status and warnings`, () => {
      const ok = decodeOk(buildOk(caps, { affectedRows: 300, lastInsertId: 70000, statusFlags: UPSTREAM_STATUS, warnings: 2 }), caps);
      assert.equal(ok.fieldCount, 0);
      assert.equal(ok.affectedRows, 300);
      assert.equal(ok.insertId, 70000);
      assert.equal(ok.serverStatus, UPSTREAM_STATUS);
      assert.equal(ok.warningStatus, 2);
      // mysql2 reads the info as string<EOF> without SESSION_TRACK: the one 0x00 written under
      // DEPRECATE_EOF (for Connector/J) is then all it sees
      assert.equal(ok.info, !sessionTrack && deprecateEof ? '\u0000' : '');
      assert.equal(ok.stateChanges, undefined);
    });

    test(`[${label}] OK with info text`, () => {
      const payload = buildOk(caps, { affectedRows: 1, statusFlags: SERVER_STATUS_AUTOCOMMIT, info: INFO });
      const ok = decodeOk(payload, caps);
      assert.equal(ok.affectedRows, 1);
      assert.equal(ok.serverStatus, SERVER_STATUS_AUTOCOMMIT);
      if (sessionTrack) assert.equal(ok.info, INFO);
      else {
        // The info is string<lenenc> as MySQL's and MariaDB's net_send_ok write it; mysql2 without
        // SESSION_TRACK reads string<EOF>, so it sees the length prefix before our text.
        const prefix = new BufferWriter(4).lenenc(Buffer.byteLength(INFO)).finish();
        assert.equal(ok.info, Buffer.concat([prefix, Buffer.from(INFO)]).toString('utf8'));
      }
    });

    test(`[${label}] OK with a session-state change reaches only SESSION_TRACK clients`, () => {
      const ok = decodeOk(buildOk(caps, { statusFlags: SERVER_STATUS_AUTOCOMMIT, sessionState: schemaChange('demo_表'), info: 'switched' }), caps);
      if (sessionTrack) {
        assert.equal(ok.serverStatus, SERVER_STATUS_AUTOCOMMIT | SERVER_SESSION_STATE_CHANGED);
        assert.equal(ok.info, 'switched');
        assert.equal(ok.stateChanges?.schema, 'demo_表');
      } else {
        assert.equal(ok.serverStatus & SERVER_SESSION_STATE_CHANGED, 0, 'no state-changed flag for a client that did not ask');
        assert.equal(ok.stateChanges, undefined);
      }
      // a status word from upstream claiming a state change is never copied without the block
      const bare = decodeOk(buildOk(caps, { statusFlags: SERVER_SESSION_STATE_CHANGED | SERVER_STATUS_AUTOCOMMIT }), caps);
      assert.equal(bare.serverStatus, SERVER_STATUS_AUTOCOMMIT);
    });

    test(`[${label}] EOF and the 0xFE OK that replaces it`, () => {
      const eof = packetOf(buildEof({ warnings: 3, statusFlags: UPSTREAM_STATUS | SERVER_MORE_RESULTS_EXISTS }));
      assert.ok(eof.isEOF());
      assert.equal(eof.eofWarningCount(), 3);
      assert.equal(eof.eofStatusFlags(), UPSTREAM_STATUS | SERVER_MORE_RESULTS_EXISTS);
      const replacement = buildOk(caps, { asEof: true, statusFlags: UPSTREAM_STATUS, warnings: 3 });
      assert.equal(replacement[0], 0xfe);
      assert.ok(packetOf(replacement).isEOF(), 'mysql2 sees the replacement as an EOF too');
      assert.ok(replacement.length >= 7 && replacement.length < 9, 'an OK by length (≥ 7), never mistaken for a row');
      const ok = decodeOk(replacement, caps);
      assert.equal(ok.serverStatus, UPSTREAM_STATUS);
      assert.equal(ok.warningStatus, 3);
      assert.equal(packetOf(replacement).eofStatusFlags(), UPSTREAM_STATUS);
    });

    test(`[${label}] column definitions of every result type`, () => {
      for (const spec of COLUMNS) {
        const def = columnDefinition(spec);
        const f = decodeColumn(buildColumnDefinition(def));
        assert.equal(f.name, spec.name);
        assert.equal(f.columnType, def.type);
        assert.equal(f.characterSet, def.characterSet);
        assert.equal(f.columnLength, def.columnLength);
        assert.equal(f.flags, def.flags);
        assert.equal(f.decimals, def.decimals);
      }
    });

    test(`[${label}] a text result set: rows, NULLs, 64-bit values, UTF-8; terminator status from upstream`, () => {
      const rs = onlyResultSet(decodeResponse(localReplyPayloads([resultset()], { capabilities: caps, statusFlags: UPSTREAM_STATUS }), caps));
      assert.deepEqual(rs.fields.map((f) => f.name), COLUMNS.map((c) => c.name));
      assert.deepEqual(rs.rows, TEXT_EXPECTED);
      assert.equal(rs.status, UPSTREAM_STATUS);
      assert.equal(rs.terminatorOk !== undefined, deprecateEof);
    });

    test(`[${label}] a binary result set (COM_STMT_EXECUTE)`, () => {
      const d = decodeResponse(localReplyPayloads([resultset()], { capabilities: caps, statusFlags: UPSTREAM_STATUS, binary: true }), caps, { binary: true });
      const rs = onlyResultSet(d);
      assert.deepEqual(rs.rows, BINARY_EXPECTED);
      assert.equal(rs.status, UPSTREAM_STATUS);
    });

    test(`[${label}] an empty result set and a result set of no rows`, () => {
      const rs = onlyResultSet(decodeResponse(localReplyPayloads([resultset([])], { capabilities: caps, statusFlags: 0 }), caps));
      assert.equal(rs.fields.length, COLUMNS.length);
      assert.deepEqual(rs.rows, []);
      const bin = onlyResultSet(decodeResponse(localReplyPayloads([resultset([])], { capabilities: caps, statusFlags: 0, binary: true }), caps, { binary: true }));
      assert.deepEqual(bin.rows, []);
    });

    test(`[${label}] COM_STMT_PREPARE_OK with parameter and column blocks`, () => {
      const cols = COLUMNS.map(columnDefinition);
      for (const [params, columns] of [[3, cols], [0, cols], [2, []], [0, []]] as const) {
        const d = decodePrepareOk(prepareOkPayloads(77, params, columns, caps, UPSTREAM_STATUS), caps);
        assert.deepEqual({ ...d.header }, { id: 77, fieldCount: columns.length, parameterCount: params, warningCount: 0 });
        assert.equal(d.params.length, params);
        assert.deepEqual(d.columns.map((f) => f.name), columns.map((c) => c.name));
      }
    });

    test(`[${label}] a CALL reply of two result sets and the final OK`, () => {
      const replies: LocalReply[] = [
        { kind: 'resultset', columns: [{ name: 'a', type: 'int' }], rows: [['1']] },
        resultset(),
        { kind: 'ok', affectedRows: 0, info: 'expired 3 snapshots', warnings: [{ level: 'Warning', code: 1105, message: 'w' }] },
      ];
      for (const binary of [false, true]) {
        const d = decodeResponse(localReplyPayloads(replies, { capabilities: caps, statusFlags: UPSTREAM_STATUS, binary }), caps, { binary });
        if (multiResults) {
          assert.deepEqual(d.map((x) => x.kind), ['resultset', 'resultset', 'ok']);
          const [a, b, ok] = d as [Extract<Decoded, { kind: 'resultset' }>, Extract<Decoded, { kind: 'resultset' }>, Extract<Decoded, { kind: 'ok' }>];
          assert.equal(a.status, UPSTREAM_STATUS | SERVER_MORE_RESULTS_EXISTS);
          assert.equal(b.status, UPSTREAM_STATUS | SERVER_MORE_RESULTS_EXISTS);
          assert.deepEqual(a.rows, [[1]]);
          assert.deepEqual(b.rows, binary ? BINARY_EXPECTED : TEXT_EXPECTED);
          assert.equal(ok.ok.serverStatus, UPSTREAM_STATUS);
          assert.equal(ok.ok.warningStatus, 1);
          if (sessionTrack) assert.equal(ok.ok.info, 'expired 3 snapshots');
          else assert.ok(ok.ok.info.endsWith('expired 3 snapshots'));
        } else {
          // without MULTI_RESULTS a client can take one result only: the last result set
          const rs = onlyResultSet(d);
          assert.equal(rs.status & SERVER_MORE_RESULTS_EXISTS, 0);
          assert.deepEqual(rs.rows, binary ? BINARY_EXPECTED : TEXT_EXPECTED);
        }
      }
    });

    test(`[${label}] an error after a result set ends the reply`, () => {
      const replies: LocalReply[] = [resultset(), { kind: 'error', errno: 1317, sqlState: '70100', message: 'Query execution was interrupted' }, resultset()];
      const d = decodeResponse(localReplyPayloads(replies, { capabilities: caps, statusFlags: 0 }), caps);
      const errors = d.filter((x) => x.kind === 'error');
      assert.equal(errors.length, 1);
      assert.equal(d[d.length - 1]!.kind, 'error');
      assert.deepEqual(errors[0], { kind: 'error', errno: 1317, sqlState: '70100', message: 'Query execution was interrupted' });
      if (multiResults) assert.equal((d[0] as Extract<Decoded, { kind: 'resultset' }>).status & SERVER_MORE_RESULTS_EXISTS, SERVER_MORE_RESULTS_EXISTS);
    });
  }

  test('4-byte UTF-8 (outside the BMP) in string and JSON columns reaches mysql2 intact', () => {
    // mysql2 decodes a column labelled utf8mb3 (33) as CESU-8, which garbles 4-byte sequences:
    // string columns must be labelled utf8mb4, as MariaDB and MySQL 8 label theirs
    const caps = BASE | CLIENT_PROTOCOL_41 | CLIENT_SESSION_TRACK | CLIENT_MULTI_RESULTS;
    const reply: LocalReply = { kind: 'resultset', columns: [{ name: 's', type: 'string' }, { name: 'j', type: 'json' }], rows: [['🚀 𝄞 naïve', '{"k":"😀"}']] };
    for (const binary of [false, true]) {
      const rs = onlyResultSet(decodeResponse(localReplyPayloads([reply], { capabilities: caps, statusFlags: 0, binary }), caps, { binary }));
      assert.deepEqual(rs.rows, [['🚀 𝄞 naïve', '{"k":"😀"}']]);
    }
  });
});
