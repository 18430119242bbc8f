/**
 * The native relay (native/native-relay.c) keeps two rules of the TypeScript relay in C: which
 * COM_QUERY it may forward (statement-prefilter.ts) and where a COM_QUERY response ends
 * (response-tracker.ts). Generated statements and responses, cut into random chunks, must get
 * the same answers from both. The addon must be built (npm ci does it): a missing build fails.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CLIENT_DEPRECATE_EOF, CLIENT_PROTOCOL_41, COM_QUERY, MYSQL_TYPE_VAR_STRING, SERVER_MORE_RESULTS_EXISTS, SERVER_STATUS_AUTOCOMMIT } from '../../../protocol/constants.js';
import { buildErr, buildOk } from '../../../protocol/generic-response.js';
import { encodePacket } from '../../../protocol/packet.js';
import { textResultSetPayloads } from '../../../protocol/result-set.js';
import { ResponseTracker, TrackerState } from '../../../protocol/response-tracker.js';
import { classifyStatementBytes, type StatementKind } from '../../../src/router/statement-prefilter.js';
import { loadNativeAddon } from '../../../src/session/native-relay.js';

const addon = loadNativeAddon();
if (typeof addon === 'string') throw new Error(addon);

/** The K_* numbers of native-relay.c. */
const KIND_NUMBER: Record<StatementKind, number> = { other: 0, call: 1, use: 2, switch: 3, kill: 4, set: 5, alter: 6, refresh: 7 };

const fragment = fc.oneof(
  fc.constantFrom(' ', '\t', '\n', '\r\n', '\v', '\f'),
  fc.constantFrom('# note\n', '#', '-- c\n', '--\n', '--', '--x', '-- ', '/* c */', '/**/', '/*', '/*!50000 ', '/*+ hint */', '*/', '/'),
  fc.constantFrom('CALL', 'call', 'CaLl', 'USE', 'use', 'SWITCH', 'switch', 'SET', 'set', 'KILL', 'Kill', 'ALTER', 'alter', 'REFRESH', 'refresh'),
  fc.constantFrom('SELECT 1', 'CALLx', 'USE_', 'SET$', 'kill9', 'alterß', 'select', 'SHOW', '(', '`', "'", '"', ';', 'é', '\u00a0', '\0'),
  fc.string({ maxLength: 6 }),
);
const statement = fc.array(fragment, { maxLength: 8 }).map((parts) => parts.join(''));

describe('the native relay keeps the prefilter rule', () => {
  test('every generated statement is classified alike', () => {
    fc.assert(
      fc.property(statement, (sql) => {
        const payload = Buffer.from(sql, 'utf8');
        assert.equal(addon.classify(payload), KIND_NUMBER[classifyStatementBytes(payload)], JSON.stringify(sql));
      }),
      { numRuns: 20_000 },
    );
  });
});

const COLUMN = { schema: 'db', table: 't', orgTable: 't', name: 'c', orgName: 'c', characterSet: 33, columnLength: 255, type: MYSQL_TYPE_VAR_STRING, flags: 0, decimals: 0 };

/** One result of a COM_QUERY response as payloads: OK, ERR, LOCAL INFILE request or a result set. */
type Part = { kind: 'ok'; status: number; info: string } | { kind: 'err' } | { kind: 'infile' } | { kind: 'rows'; columns: number; rows: string[][]; status: number };

const part = fc.oneof(
  fc.record({ kind: fc.constant('ok' as const), status: fc.integer({ min: 0, max: 0xffff }), info: fc.string({ maxLength: 40 }) }),
  fc.constant({ kind: 'err' as const }),
  fc.constant({ kind: 'infile' as const }),
  fc.integer({ min: 1, max: 300 }).chain((columns) =>
    fc.record({
      kind: fc.constant('rows' as const),
      columns: fc.constant(columns),
      rows: fc.array(fc.array(fc.string({ maxLength: 30 }), { minLength: columns, maxLength: columns }), { maxLength: 5 }),
      status: fc.integer({ min: 0, max: 0xffff }),
    }),
  ),
);

/** The response's bytes: parts chained by SERVER_MORE_RESULTS_EXISTS, then bytes that follow it. */
function responseBytes(parts: Part[], caps: number, trailer: Buffer): Buffer {
  const payloads: Buffer[] = [];
  parts.forEach((p, i) => {
    const more = i < parts.length - 1;
    const flag = (s: number) => (more ? s | SERVER_MORE_RESULTS_EXISTS : s & ~SERVER_MORE_RESULTS_EXISTS);
    if (p.kind === 'ok') payloads.push(buildOk(caps, { statusFlags: flag(p.status), info: p.info }));
    else if (p.kind === 'err') payloads.push(buildErr({ errno: 1064, sqlState: '42000', message: 'syntax' }));
    else if (p.kind === 'infile') payloads.push(Buffer.concat([Buffer.of(0xfb), Buffer.from('/tmp/f.csv')]));
    else payloads.push(...textResultSetPayloads(Array.from({ length: p.columns }, () => COLUMN), p.rows, { capabilities: caps, statusFlags: p.status & ~SERVER_MORE_RESULTS_EXISTS, moreResults: more }));
  });
  return Buffer.concat([...payloads.map((pl, i) => encodePacket(pl, (i + 1) & 0xff)), trailer]);
}

function cut(buf: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (buf.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of [...at, buf.length]) {
    if (p > prev) out.push(buf.subarray(prev, p));
    prev = p;
  }
  return out;
}

function scanInTypeScript(caps: number, chunks: Buffer[]): [number, number, number, number, number] {
  const t = new ResponseTracker(caps);
  t.begin(COM_QUERY);
  for (let i = 0; i < chunks.length; i++) {
    const end = t.feed(chunks[i]!);
    if (end >= 0) return [i, end, t.lastStatusFlags, t.outcome === 'error' ? 1 : 0, 0];
  }
  return [-1, -1, t.lastStatusFlags, 0, t.state === TrackerState.Infile ? 1 : 0];
}

describe('the native relay keeps the response tracker', () => {
  for (const deprecateEof of [true, false]) {
    test(`every generated COM_QUERY response ends at the same byte, with the same status (CLIENT_DEPRECATE_EOF ${deprecateEof})`, () => {
      const caps = CLIENT_PROTOCOL_41 | (deprecateEof ? CLIENT_DEPRECATE_EOF : 0);
      fc.assert(
        fc.property(
          fc.array(part, { minLength: 1, maxLength: 4 }),
          fc.uint8Array({ maxLength: 12 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          (parts, trailer, points) => {
            const chunks = cut(responseBytes(parts, caps, Buffer.from(trailer)), points);
            const native = addon.scanResponse(deprecateEof, chunks);
            const ts = scanInTypeScript(caps, chunks);
            // Where a response did not end, the TypeScript tracker's status is whatever it last saw too.
            assert.deepEqual(native, ts);
          },
        ),
        { numRuns: 3_000 },
      );
    });
  }

  test('rows of 16 MiB and more are walked as one packet chain, a 0xFE-led fragment is no terminator', () => {
    const caps = CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF;
    const big = Buffer.alloc(0xffffff + 10, 0x61);
    big[0] = 0xfe; // a row whose first cell is a long lenenc string
    const payloads = textResultSetPayloads([COLUMN], [], { capabilities: caps, statusFlags: SERVER_STATUS_AUTOCOMMIT, moreResults: false });
    // column count, column, then the big row in two fragments, then the terminator
    const framed = [encodePacket(payloads[0]!, 1), encodePacket(payloads[1]!, 2)];
    framed.push(encodePacket(big.subarray(0, 0xffffff), 3), encodePacket(big.subarray(0xffffff), 4));
    framed.push(encodePacket(payloads[payloads.length - 1]!, 5));
    const bytes = Buffer.concat(framed);
    const chunks = cut(bytes, [7, 65536, 0xffffff, 0xffffff + 9, bytes.length - 3]);
    assert.deepEqual(addon.scanResponse(true, chunks), scanInTypeScript(caps, chunks));
    assert.equal(addon.scanResponse(true, chunks)[0], chunks.length - 1);
  });
});
