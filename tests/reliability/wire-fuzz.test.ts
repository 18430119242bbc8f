/**
 * Wire-protocol fuzzing of a standalone proxy (tests/support/standalone-proxy.ts, with the
 * router fixtures' test procedures): malformed handshakes (random bytes, bad and truncated
 * lengths, wrong sequence ids, flipped bytes), malformed commands (random command bytes and
 * payloads, CALL text), and malformed prepared statements (unknown ids, wrong parameter
 * counts, truncated bitmaps and types, random types and values), each on a fresh connection.
 *
 * For every input: the proxy answers (ERR for what is known to be malformed) or closes the
 * connection, within a few seconds, never crashes; its connections all end; the process RSS
 * stays bounded; and a fresh client is served throughout and afterwards.
 *
 * Bounded by time and count: FUZZ_SECONDS (default 20) and FUZZ_CASES (default 3000 per part)
 * of generated inputs, whichever ends first, plus the fixed ones.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect as netConnect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import mysql from 'mysql2/promise';
import { nativePasswordToken } from '../../protocol/auth.js';
import {
  CLIENT_LONG_PASSWORD, CLIENT_PLUGIN_AUTH, CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, CLIENT_TRANSACTIONS,
  COM_PING, COM_QUERY, COM_STMT_CLOSE, COM_STMT_EXECUTE, COM_STMT_FETCH, COM_STMT_PREPARE, COM_STMT_RESET, COM_STMT_SEND_LONG_DATA,
} from '../../protocol/constants.js';
import { buildHandshakeResponse41, parseHandshakeV10 } from '../../protocol/handshake.js';
import { encodePacket, PacketReader, type Packet } from '../../protocol/packet.js';
import { startStandaloneProxy, type StandaloneProxy } from '../support/standalone-proxy.js';
import { until } from '../support/wait.js';

const FUZZ_SECONDS = Number(process.env.FUZZ_SECONDS ?? 20);
/** At most this many generated inputs per part (handshake, command, prepared), whichever bound comes first. */
const FUZZ_CASES = Number(process.env.FUZZ_CASES ?? 3000);
/** How long the proxy may take to answer or close after a malformed input. */
const ANSWER_MS = 5000;
/**
 * Peak RSS growth of this process (proxy and fuzzer) allowed over the whole run: it holds the
 * garbage of tens of thousands of short connections until the collector runs. What stays is
 * bounded by RETAINED_BOUND: the heap after a full collection, against the one before the run.
 */
const RSS_BOUND = 256 * 1048576;
const RETAINED_BOUND = 32 * 1048576;

/** A full garbage collection (the flag is set at run time, so the file runs without --expose-gc). */
function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
const CAPS = CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_LONG_PASSWORD | CLIENT_TRANSACTIONS;

/** Cases of `arb`, generated in small batches as they are used (a long FUZZ_SECONDS run holds one batch). */
function* cases<T>(arb: fc.Arbitrary<T>): Generator<T> {
  for (let n = 0; n < FUZZ_CASES; n += 200) yield* fc.sample(arb, Math.min(200, FUZZ_CASES - n));
}

type Reply = { kind: 'packet'; packet: Packet } | { kind: 'closed' };

/** A raw client: packets as they arrive, and whether the proxy closed. */
class Raw {
  readonly socket: Socket;
  private readonly reader = new PacketReader();
  private closed = false;
  private wake: (() => void) | null = null;

  constructor(port: number) {
    this.socket = netConnect({ host: '127.0.0.1', port });
    this.socket.on('data', (d: Buffer) => {
      try {
        this.reader.push(d);
      } catch {
        this.closed = true;
      }
      this.wake?.();
    });
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
  }

  /** The next packet, or 'closed'; throws when neither comes within `ms` (the proxy hangs). */
  async next(ms = ANSWER_MS): Promise<Reply> {
    const deadline = Date.now() + ms;
    for (;;) {
      const p = this.reader.next();
      if (p) return { kind: 'packet', packet: p };
      if (this.closed) return { kind: 'closed' };
      if (Date.now() > deadline) throw new Error(`no answer and no close within ${ms} ms`);
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 20);
      });
      this.wake = null;
    }
  }

  /** The next packet, or null when none comes within `ms` (for commands MySQL does not answer). */
  async maybe(ms: number): Promise<Reply | null> {
    try {
      return await this.next(ms);
    } catch {
      return null;
    }
  }

  send(payload: Uint8Array, seq: number): void {
    this.socket.write(encodePacket(payload, seq));
  }

  destroy(): void {
    this.socket.destroy();
  }
}

function isErr(r: Reply): boolean {
  return r.kind === 'packet' && r.packet.payload[0] === 0xff;
}

function handshakeResponse(scramble: Buffer): Buffer {
  return buildHandshakeResponse41({
    capabilities: CAPS, maxPacketSize: 1 << 24, characterSet: 33, mariadbCapabilities: 0, user: 'root',
    authResponse: nativePasswordToken('', scramble), database: null, authPluginName: 'mysql_native_password', attributes: new Map(),
  });
}

async function greeting(c: Raw): Promise<Buffer> {
  const g = await c.next();
  assert.equal(g.kind, 'packet', 'a greeting');
  return parseHandshakeV10((g as { packet: Packet }).packet.payload).authPluginData;
}

async function login(port: number): Promise<Raw> {
  const c = new Raw(port);
  c.send(handshakeResponse(await greeting(c)), 1);
  const ok = await c.next();
  assert.ok(ok.kind === 'packet' && ok.packet.payload[0] === 0, 'logged in');
  return c;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

/** Prepare `CALL paimon.sys.test_echo(?, ?)` and read the whole prepare reply; returns the statement id. */
async function prepareCall(c: Raw): Promise<number> {
  c.send(Buffer.concat([Buffer.of(COM_STMT_PREPARE), Buffer.from('CALL paimon.sys.test_echo(?, ?)')]), 0);
  const first = await c.next();
  assert.ok(first.kind === 'packet' && first.packet.payload[0] === 0, 'prepare OK');
  const p = (first as { packet: Packet }).packet.payload;
  const id = p.readUInt32LE(1);
  const columns = p.readUInt16LE(5);
  const params = p.readUInt16LE(7);
  assert.equal(params, 2);
  // Definitions, each list followed by an EOF (no CLIENT_DEPRECATE_EOF).
  for (let i = 0; i < params + 1 + (columns > 0 ? columns + 1 : 0); i++) assert.equal((await c.next()).kind, 'packet');
  return id;
}

/** A well-formed COM_STMT_EXECUTE of the two-parameter CALL: 'sales.orders' and 7. */
function goodExecute(id: number): Buffer {
  const table = Buffer.from('sales.orders');
  return Buffer.concat([
    Buffer.of(COM_STMT_EXECUTE), u32(id), Buffer.of(0), u32(1),
    Buffer.of(0), // null bitmap of 2 parameters
    Buffer.of(1), Buffer.of(0xfd, 0, 0x08, 0), // new params bound: VAR_STRING, LONGLONG
    Buffer.of(table.length), table, Buffer.from([7, 0, 0, 0, 0, 0, 0, 0]),
  ]);
}

describe('wire fuzz against a standalone proxy', () => {
  let sp: StandaloneProxy;
  const crashes: unknown[] = [];
  const onCrash = (e: unknown): void => {
    crashes.push(e);
  };
  let rssStart = 0;
  let rssPeak = 0;
  let heapStart = 0;
  let sampler: NodeJS.Timeout;
  const stats = { handshake: 0, command: 0, prepared: 0, answeredErr: 0, closed: 0 };

  before(async () => {
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    sp = await startStandaloneProxy({ testRouter: true });
    await served();
    fullGc();
    heapStart = process.memoryUsage().heapUsed;
    rssStart = process.memoryUsage().rss;
    rssPeak = rssStart;
    sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 25);
  });
  after(async () => {
    clearInterval(sampler);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    await sp?.close();
  });

  /** A fresh mysql2 client runs a statement and an intercepted CALL. */
  async function served(): Promise<void> {
    const c = await mysql.createConnection({ host: '127.0.0.1', port: sp.port, user: 'root', password: '' });
    try {
      const [rows] = await c.query('SELECT 1 AS one');
      assert.deepEqual(rows, [{ one: 1 }]);
      const [res] = await c.query("CALL paimon.sys.test_echo('sales.orders', 5)");
      assert.ok(Array.isArray(res));
    } finally {
      await c.end();
    }
  }

  /** Run `body` on a fresh raw socket, expecting an answer or a close; records how it ended. */
  async function onFresh(kind: keyof typeof stats, body: (c: Raw) => Promise<Reply>, mustErr: boolean, what: string): Promise<void> {
    const c = new Raw(sp.port);
    try {
      const r = await body(c);
      if (mustErr) assert.ok(isErr(r) || r.kind === 'closed', `${what}: expected ERR or close, got ${r.kind === 'packet' ? `packet 0x${r.packet.payload[0]?.toString(16)}` : r.kind}`);
      (stats[kind] as number)++;
      if (isErr(r)) stats.answeredErr++;
      if (r.kind === 'closed') stats.closed++;
    } finally {
      c.destroy();
    }
  }

  /** After login: run the malformed command(s), expect an answer or close. */
  async function afterLogin(kind: 'command' | 'prepared', body: (c: Raw) => Promise<Reply>, mustErr: boolean, what: string): Promise<void> {
    const c = await login(sp.port);
    try {
      const r = await body(c);
      if (mustErr) assert.ok(isErr(r) || r.kind === 'closed', `${what}: expected ERR or close, got ${r.kind === 'packet' ? `packet 0x${r.packet.payload[0]?.toString(16)}` : r.kind}`);
      stats[kind]++;
      if (isErr(r)) stats.answeredErr++;
      if (r.kind === 'closed') stats.closed++;
    } finally {
      c.destroy();
    }
  }

  test('handshakes: bad lengths, truncated, wrong sequence, flipped bytes, random bytes', async () => {
    // Fixed cases first.
    await onFresh('handshake', async (c) => {
      await greeting(c);
      c.socket.write(Buffer.of(0, 0, 0, 1)); // an empty packet
      return c.next();
    }, true, 'empty handshake response');
    await onFresh('handshake', async (c) => {
      await greeting(c);
      const header = Buffer.alloc(4);
      header.writeUIntLE(1000, 0, 3);
      header[3] = 1;
      c.socket.end(Buffer.concat([header, Buffer.alloc(10)])); // says 1000 bytes, sends 10, then half-closes
      return c.next();
    }, true, 'length says more than is sent, then EOF');
    // Generated cases, for a share of the time budget.
    const deadline = Date.now() + (FUZZ_SECONDS * 1000) / 3;
    const generated = cases(
      fc.oneof(
        fc.record({ t: fc.constant('random' as const), bytes: fc.uint8Array({ maxLength: 300 }) }),
        fc.record({ t: fc.constant('truncate' as const), at: fc.nat() }),
        fc.record({ t: fc.constant('flip' as const), flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }) }),
        fc.record({ t: fc.constant('length' as const), len: fc.integer({ min: 0, max: 0xffffff }), body: fc.uint8Array({ maxLength: 64 }) }),
      ),
    );
    for (const k of generated) {
      if (Date.now() > deadline) break;
      if (k.t === 'random') {
        await onFresh('handshake', async (c) => {
          await greeting(c);
          c.socket.end(Buffer.from(k.bytes));
          return c.next();
        }, false, 'random bytes');
      } else if (k.t === 'truncate') {
        // Cut inside the fixed part (capabilities, max packet, charset, filler: 32 bytes) or the
        // user name it is malformed; cut later it may read as a shorter valid response (then the
        // proxy asks for the auth method with an AuthSwitchRequest, as MySQL does).
        const at = k.at % 100;
        await onFresh('handshake', async (c) => {
          const full = handshakeResponse(await greeting(c));
          c.send(full.subarray(0, Math.min(at, full.length - 1)), 1);
          return c.next();
        }, at < 32 + 'root\0'.length, `handshake response truncated to ${at} bytes`);
      } else if (k.t === 'flip') {
        await onFresh('handshake', async (c) => {
          const full = Buffer.from(handshakeResponse(await greeting(c)));
          for (const [at, v] of k.flips) full[at % full.length] = v;
          c.send(full, 1);
          // A flip may leave a valid login (a byte of the attributes): then any answer is fine.
          return c.next();
        }, false, 'flipped handshake response');
      } else {
        await onFresh('handshake', async (c) => {
          await greeting(c);
          const header = Buffer.alloc(4);
          header.writeUIntLE(k.len, 0, 3);
          header[3] = 1;
          c.socket.end(Buffer.concat([header, Buffer.from(k.body)]));
          return c.next();
        }, k.len !== k.body.length, 'bad length header');
      }
    }
    assert.deepEqual(crashes, []);
    await served();
  });

  // MySQL and MariaDB refuse a packet whose sequence id is not the expected one ("Got packets
  // out of order", then close); the session layer accepts any today and continues from it.
  test('a handshake response with a wrong sequence id is refused (ERR or close)', async () => {
    for (const seq of [0, 2, 5, 255]) {
      await onFresh('handshake', async (c) => {
        c.send(handshakeResponse(await greeting(c)), seq);
        return c.next();
      }, true, `handshake response with sequence id ${seq}`);
    }
  });

  test('commands: random command bytes and payloads, CALL text', async () => {
    const deadline = Date.now() + (FUZZ_SECONDS * 1000) / 3;
    const callish = fc.string({ maxLength: 120, unit: fc.constantFrom(...'CALL paimon.sys.test_echo()\'"`,=>-#/*;\\0123456789 TRUE?'.split('')) });
    const generated = cases(
      fc.oneof(
        // Any command byte with random bytes (QUIT closes; STMT_CLOSE and SEND_LONG_DATA get no reply, then a ping does).
        fc.record({ t: fc.constant('raw' as const), cmd: fc.integer({ min: 0, max: 255 }), body: fc.uint8Array({ maxLength: 200 }) }),
        fc.record({ t: fc.constant('query' as const), sql: fc.oneof(callish, callish.map((s) => `CALL paimon.sys.test_echo(${s}`)) }),
      ),
    );
    for (const k of generated) {
      if (Date.now() > deadline) break;
      if (k.t === 'raw') {
        await afterLogin('command', async (c) => {
          c.send(Buffer.concat([Buffer.of(k.cmd), Buffer.from(k.body)]), 0);
          // COM_QUIT closes; STMT_CLOSE and SEND_LONG_DATA are never answered: a ping after them is.
          const r = await c.maybe(k.cmd === COM_STMT_CLOSE || k.cmd === COM_STMT_SEND_LONG_DATA ? 300 : ANSWER_MS);
          if (r !== null) return r;
          c.send(Buffer.of(COM_PING), 0);
          return c.next();
        }, false, `command 0x${k.cmd.toString(16)}`);
      } else {
        await afterLogin('command', async (c) => {
          c.send(Buffer.concat([Buffer.of(COM_QUERY), Buffer.from(k.sql)]), 0);
          return c.next();
        }, false, 'CALL text');
      }
    }
    assert.deepEqual(crashes, []);
    await served();
  });

  test('prepared statements: unknown ids, wrong parameter counts, truncated bitmaps and types, random types', async () => {
    // Fixed: every malformed execute of a prepared CALL is an ERR, and the statement still works after it.
    const malformed: [string, (id: number) => Buffer][] = [
      ['unknown statement id', (id) => Buffer.concat([goodExecute(id + 12345).subarray(0, 1), u32(id + 12345), goodExecute(id).subarray(5)])],
      ['id 0', () => Buffer.concat([Buffer.of(COM_STMT_EXECUTE), u32(0), Buffer.of(0), u32(1)])],
      ['no null bitmap', (id) => Buffer.concat([Buffer.of(COM_STMT_EXECUTE), u32(id), Buffer.of(0), u32(1)])],
      ['types announced, none sent', (id) => Buffer.concat([Buffer.of(COM_STMT_EXECUTE), u32(id), Buffer.of(0), u32(1), Buffer.of(0), Buffer.of(1)])],
      ['no types ever bound', (id) => Buffer.concat([Buffer.of(COM_STMT_EXECUTE), u32(id), Buffer.of(0), u32(1), Buffer.of(0), Buffer.of(0)])],
      ['values truncated', (id) => goodExecute(id).subarray(0, goodExecute(id).length - 3)],
      ['string length beyond the packet', (id) => Buffer.concat([goodExecute(id).subarray(0, 17), Buffer.of(0xfc, 0xff, 0xff), Buffer.from('x')])],
      ['truncated header', (id) => Buffer.concat([Buffer.of(COM_STMT_EXECUTE), u32(id).subarray(0, 2)])],
      ['fetch without a cursor', (id) => Buffer.concat([Buffer.of(COM_STMT_FETCH), u32(id), u32(10)])],
      ['reset of an unknown id', (id) => Buffer.concat([Buffer.of(COM_STMT_RESET), u32(id + 999)])],
    ];
    for (const [what, make] of malformed) {
      await afterLogin('prepared', async (c) => {
        const id = await prepareCall(c);
        c.send(make(id), 0);
        const r = await c.next();
        if (isErr(r)) {
          // The connection is still in order: the good execute runs the CALL.
          c.send(goodExecute(id), 0);
          const ok = await c.next();
          assert.ok(ok.kind === 'packet' && ok.packet.payload[0] !== 0xff, `${what}: the statement still executes`);
        }
        return r;
      }, true, what);
    }
    // No reply by protocol: close/long data of unknown ids, then the connection still answers a ping.
    for (const cmd of [COM_STMT_CLOSE, COM_STMT_SEND_LONG_DATA]) {
      await afterLogin('prepared', async (c) => {
        c.send(Buffer.concat([Buffer.of(cmd), u32(0x7777), Buffer.from('\x00\x00abc')]), 0);
        assert.equal(await c.maybe(300), null, 'no reply');
        c.send(Buffer.of(COM_PING), 0);
        const r = await c.next();
        assert.ok(r.kind === 'packet' && r.packet.payload[0] === 0, 'ping answered');
        return r;
      }, false, `0x${cmd.toString(16)} of an unknown id`);
    }
    // Generated: random bytes after a valid header, random types and values.
    const deadline = Date.now() + (FUZZ_SECONDS * 1000) / 3;
    const generated = cases(
      fc.record({
        flags: fc.integer({ min: 0, max: 255 }),
        bitmap: fc.integer({ min: 0, max: 255 }),
        bound: fc.integer({ min: 0, max: 2 }),
        types: fc.uint8Array({ minLength: 0, maxLength: 6 }),
        values: fc.uint8Array({ maxLength: 64 }),
      }),
    );
    for (const k of generated) {
      if (Date.now() > deadline) break;
      await afterLogin('prepared', async (c) => {
        const id = await prepareCall(c);
        c.send(Buffer.concat([Buffer.of(COM_STMT_EXECUTE), u32(id), Buffer.of(k.flags), u32(1), Buffer.of(k.bitmap), Buffer.of(k.bound), Buffer.from(k.types), Buffer.from(k.values)]), 0);
        return c.next();
      }, false, 'random execute');
    }
    assert.deepEqual(crashes, []);
    await served();
  });

  test('afterwards: no crash, every fuzz connection ended, RSS bounded, a fresh client served', async () => {
    assert.deepEqual(crashes, []);
    await until(() => sp.proxy.server.connectionCount === 0, 'every fuzz connection ended', 10_000);
    await served();
    const growth = rssPeak - rssStart;
    fullGc();
    const retained = process.memoryUsage().heapUsed - heapStart;
    const total = stats.handshake + stats.command + stats.prepared;
    console.log(
      `# wire fuzz: ${total} inputs (${stats.handshake} handshake, ${stats.command} command, ${stats.prepared} prepared) in at most ${FUZZ_SECONDS} s; ` +
        `${stats.answeredErr} ERR, ${stats.closed} closed; peak RSS growth ${(growth / 1048576).toFixed(1)} MiB (bound ${RSS_BOUND / 1048576} MiB), ` +
        `heap retained after a full collection ${(retained / 1048576).toFixed(1)} MiB (bound ${RETAINED_BOUND / 1048576} MiB)`,
    );
    assert.ok(total > 100, `only ${total} inputs ran`);
    assert.ok(growth < RSS_BOUND, `RSS grew by ${growth} bytes`);
    assert.ok(retained < RETAINED_BOUND, `the heap keeps ${retained} bytes more than before the run`);
  });
});
