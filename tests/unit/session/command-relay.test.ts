/**
 * The command phase's relay of client commands to the FE, driven through a stand-in for the
 * session (its sockets replaced by arrays of what was written): a whole COM_QUERY chunk goes up
 * as the very bytes it came in (no copy, one write), while split, pipelined, routed or
 * oversized commands take the packet reader's path and keep their order and counting.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLIENT_DEPRECATE_EOF, CLIENT_PROTOCOL_41, COM_PING, COM_QUERY, MYSQL_TYPE_LONG, SERVER_STATUS_AUTOCOMMIT } from '../../../protocol/constants.js';
import { buildErr, buildOk } from '../../../protocol/generic-response.js';
import { encodePacket, PacketReader, type PacketTooLargeError } from '../../../protocol/packet.js';
import { textResultSetPayloads } from '../../../protocol/result-set.js';
import type { Route, SessionView, StatementRouter } from '../../../src/router/route.js';
import { CommandPhase } from '../../../src/session/command-phase.js';
import type { Session } from '../../../src/session/session.js';

const CAPS = CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF;

function query(sql: string, seq = 0): Buffer {
  return encodePacket(Buffer.concat([Buffer.from([COM_QUERY]), Buffer.from(sql)]), seq);
}

/** An FE response framed from sequence id 1. */
function response(payloads: Buffer[]): Buffer {
  return Buffer.concat(payloads.map((p, i) => encodePacket(p, i + 1)));
}

const OK = response([buildOk(CAPS, { statusFlags: SERVER_STATUS_AUTOCOMMIT })]);
const ROWS = response(
  textResultSetPayloads(
    [{ schema: 'db', table: 't', orgTable: 't', name: 'c', orgName: 'c', characterSet: 63, columnLength: 11, type: MYSQL_TYPE_LONG, flags: 0, decimals: 0 }],
    [['1'], ['2']],
    { capabilities: CAPS, statusFlags: SERVER_STATUS_AUTOCOMMIT, moreResults: false },
  ),
);

interface Harness {
  phase: CommandPhase;
  /** Buffers written to the FE, in order. */
  up: Buffer[];
  /** Buffers relayed to the client, in order. */
  down: Buffer[];
  routed: string[];
  stats: { questions: number; forwarded: number; bytesUpstream: number; bytesDownstream: number };
  failures: string[];
  session: { statusFlags: number };
}

/** A command phase over a session stand-in; `route` decides statements the prefilter does not pass by itself. */
function harness(route: (sql: string) => Route = () => ({ kind: 'forward' }), forwardsOther = true, maxAllowedPacket = 1 << 20): Harness {
  const up: Buffer[] = [];
  const down: Buffer[] = [];
  const routed: string[] = [];
  const failures: string[] = [];
  const stats = { questions: 0, forwarded: 0, bytesUpstream: 0, bytesDownstream: 0 };
  const router: StatementRouter = {
    route: (sql: string, _s: SessionView) => {
      routed.push(sql);
      return route(sql);
    },
    forwardsOther: () => forwardsOther,
  };
  const clientReader = new PacketReader(maxAllowedPacket);
  const session = {
    standalone: false,
    capabilities: CAPS,
    statusFlags: SERVER_STATUS_AUTOCOMMIT,
    phase: 'command',
    clientReader,
    deps: { router, stats },
    log: { error: () => undefined },
    clientBacklogged: () => false,
    holdClientForQueue: () => undefined,
    offerToNativeRelay: () => undefined,
    commandToUpstream: (b: Buffer) => {
      stats.bytesUpstream += b.length;
      up.push(b);
    },
    relayToUpstream: (b: Buffer) => up.push(b),
    relayDownstream: (b: Buffer) => {
      stats.bytesDownstream += b.length;
      down.push(b);
    },
    close: (reason: string) => failures.push(`close: ${reason}`),
    protocolFailure: (e: unknown, where: string) => failures.push(`${where}: ${String(e)}`),
    clientPacketTooLarge: (e: PacketTooLargeError) => failures.push(`too large: ${e.limit}`),
  };
  const phase = new CommandPhase(session as unknown as Session);
  return { phase, up, down, routed, stats, failures, session };
}

describe('command relay', () => {
  test('a chunk that is one plain COM_QUERY goes up as the same buffer, counted, without routing', () => {
    const h = harness();
    const q = query('SELECT c FROM sbtest1 WHERE id=1');
    h.phase.clientData(q);
    assert.equal(h.up.length, 1);
    assert.equal(h.up[0], q, 'the chunk itself, not a copy');
    assert.deepEqual(h.routed, []);
    assert.equal(h.stats.questions, 1);
    assert.equal(h.stats.forwarded, 1);
    // the response is relayed and ends the command: the next query goes up at once
    h.phase.upstreamData(ROWS);
    assert.deepEqual(h.down, [ROWS]);
    const q2 = query('SELECT 2');
    h.phase.clientData(q2);
    assert.equal(h.up[1], q2);
    assert.equal(h.stats.forwarded, 2);
    assert.deepEqual(h.failures, []);
  });

  test('a query sent while a response is in flight waits for the end of that response', () => {
    const h = harness();
    h.phase.clientData(query('SELECT 1'));
    h.phase.clientData(query('SELECT 2'));
    assert.equal(h.up.length, 1, 'the second query must not overtake the first response');
    // the response arrives in two reads, its first packet's header split between them
    h.phase.upstreamData(ROWS.subarray(0, 2));
    assert.equal(h.up.length, 1);
    h.phase.upstreamData(ROWS.subarray(2));
    assert.equal(h.up.length, 2);
    assert.deepEqual(h.up[1], query('SELECT 2'));
    h.phase.upstreamData(OK);
    assert.deepEqual(Buffer.concat(h.down), Buffer.concat([ROWS, OK]));
    assert.equal(h.stats.questions, 2);
  });

  test('two pipelined queries in one chunk go up one at a time, each as one write', () => {
    const h = harness();
    const a = query('SELECT 1');
    const b = query('SELECT 2');
    h.phase.clientData(Buffer.concat([a, b]));
    assert.deepEqual(h.up, [a]);
    h.phase.upstreamData(OK);
    assert.deepEqual(h.up, [a, b]);
    h.phase.upstreamData(OK);
    const c = query('SELECT 3');
    h.phase.clientData(c);
    assert.deepEqual(h.up, [a, b, c], 'idle again after the second response');
  });

  test('a query split across chunks (header split too) goes up once it is whole, as one write', () => {
    const h = harness();
    const q = query('SELECT c FROM sbtest1 WHERE id=7');
    h.phase.clientData(q.subarray(0, 2));
    h.phase.clientData(q.subarray(2, 9));
    assert.equal(h.up.length, 0);
    h.phase.clientData(q.subarray(9));
    assert.equal(h.up.length, 1);
    assert.deepEqual(h.up[0], q);
    assert.equal(h.stats.forwarded, 1);
  });

  test('a CALL, and any statement when the router does not forward plain ones, is routed by its text', () => {
    const h = harness();
    h.phase.clientData(query('CALL sys.compact(`db.t`)'));
    assert.deepEqual(h.routed, ['CALL sys.compact(`db.t`)']);
    assert.equal(h.up.length, 1, 'the stand-in router forwards it');
    h.phase.upstreamData(OK);
    const g = harness(() => ({ kind: 'forward' }), false);
    g.phase.clientData(query('SELECT 1'));
    assert.deepEqual(g.routed, ['SELECT 1']);
    assert.equal(g.up.length, 1);
  });

  test("a forwarded route's afterOk runs on the FE's OK, not on its ERR", () => {
    let ran = 0;
    const h = harness(() => ({ kind: 'forward', afterOk: () => ran++ }));
    h.phase.clientData(query('USE db1'));
    h.phase.upstreamData(OK);
    assert.equal(ran, 1);
    h.phase.clientData(query('USE nope'));
    h.phase.upstreamData(response([buildErr({ errno: 1049, sqlState: '42000', message: "Unknown database 'nope'" })]));
    assert.equal(ran, 1);
    // a plain statement after it does not run the previous afterOk again
    h.phase.clientData(query('SELECT 1'));
    h.phase.upstreamData(OK);
    assert.equal(ran, 1);
  });

  test('a whole query above max_allowed_packet is refused, not forwarded', () => {
    const h = harness(undefined, true, 16);
    h.phase.clientData(query('SELECT "a rather long statement"'));
    assert.equal(h.up.length, 0);
    assert.deepEqual(h.failures, ['too large: 16']);
  });

  test('other commands (COM_PING) take the general path and are tracked to their OK', () => {
    const h = harness();
    const ping = encodePacket(Buffer.from([COM_PING]), 0);
    h.phase.clientData(ping);
    assert.deepEqual(h.up, [ping]);
    h.phase.clientData(query('SELECT 1'));
    assert.equal(h.up.length, 1);
    h.phase.upstreamData(OK);
    assert.equal(h.up.length, 2);
    assert.equal(h.stats.forwarded, 2);
  });
});
