/**
 * MariaDB progress-report packets during a running CALL (src/session/progress-reports.ts):
 * a remove_orphan_files that takes a couple of seconds (its deletes slowed down by the FileIO)
 * sends them to a client that asked (the interactive mariadb CLI, whose libmariadb parses and
 * prints them; a raw client with MARIADB_CLIENT_PROGRESS), with the response's sequence ids
 * running on through them, and none to a client that did not ask.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { CLIENT_CAPABILITY_EXTENSION, CLIENT_LONG_PASSWORD, CLIENT_MULTI_RESULTS, CLIENT_PLUGIN_AUTH, CLIENT_PROTOCOL_41, CLIENT_SECURE_CONNECTION, COM_QUERY, ERR_HEADER, MARIADB_CLIENT_PROGRESS, OK_HEADER } from '../../protocol/constants.js';
import { buildHandshakeResponse41, parseHandshakeV10 } from '../../protocol/handshake.js';
import { encodePacket, PacketReader, type Packet } from '../../protocol/packet.js';
import { isProgressReport, parseProgressReport } from '../../protocol/progress-report.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../src/catalogs.js';
import { configSchema } from '../../src/config-schema.js';
import { silentLogger } from '../../src/observability/logger.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import { ensureDemoTable } from '../../src/paimon/table/demo-table.js';
import { startProxy, type RunningProxy } from '../../src/proxy-app.js';
import { tempDir } from '../support/temp-dir.js';
import { run } from './wire-helpers.js';

/** remove_orphan_files reports its deletes every 1000 files (procedures/framework/file-deleter.ts). */
const ORPHANS = 2500;
const DELETE_DELAY_MS = 1;
const CALL = "CALL paimon.sys.remove_orphan_files(table => 'demo.orders', older_than => '2001-01-01 00:00:00', parallelism => 1)";

/** LocalFileIO whose deletes each take DELETE_DELAY_MS: the CALL runs long enough to report progress. */
function slowDeletes(io: FileIO): FileIO {
  const sleep = () => new Promise((r) => setTimeout(r, DELETE_DELAY_MS));
  return new Proxy(io, {
    get(target, key) {
      if (key === 'delete') return async (p: string) => (await sleep(), target.delete(p));
      if (key === 'deleteMany') {
        return async (paths: string[]) => {
          for (let i = 0; i < paths.length; i++) await sleep();
          return target.deleteMany(paths);
        };
      }
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** A client over a raw socket: logs in as root (no password) with the given capabilities. */
class RawProgressClient {
  private socket!: Socket;
  private readonly reader = new PacketReader();
  private readonly packets: Packet[] = [];
  private lastAt = Date.now();

  async connect(port: number, caps: number, mariadbCaps: number): Promise<void> {
    this.socket = netConnect({ host: '127.0.0.1', port });
    this.socket.on('data', (d: Buffer) => {
      this.reader.push(d);
      let p: Packet | null;
      while ((p = this.reader.next())) this.packets.push({ ...p, payload: Buffer.from(p.payload) });
      this.lastAt = Date.now();
    });
    const [g] = await this.response(1, 200);
    const greeting = parseHandshakeV10(g!.payload);
    assert.equal(greeting.mariadbCapabilities & MARIADB_CLIENT_PROGRESS, MARIADB_CLIENT_PROGRESS, 'the greeting offers progress reports');
    this.socket.write(
      encodePacket(
        buildHandshakeResponse41({
          capabilities: caps, maxPacketSize: 1 << 24, characterSet: 33, mariadbCapabilities: mariadbCaps, user: 'root',
          authResponse: Buffer.alloc(0), database: null, authPluginName: 'mysql_native_password', attributes: new Map(),
        }),
        1,
      ),
    );
    const [ok] = await this.response(1, 200);
    assert.equal(ok!.payload[0], OK_HEADER, ok!.payload.toString('latin1'));
  }

  /** Packets until at least `min` arrived and the server has been quiet for `quietMs`. */
  async response(min: number, quietMs: number): Promise<Packet[]> {
    const deadline = Date.now() + 60_000;
    while (this.packets.length < min || Date.now() - this.lastAt < quietMs) {
      if (Date.now() > deadline) throw new Error(`timed out with ${this.packets.length} packets`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.packets.splice(0);
  }

  /** The whole response: until the server is quiet after a packet that is not a progress report. */
  async query(sql: string): Promise<Packet[]> {
    this.socket.write(encodePacket(Buffer.concat([Buffer.of(COM_QUERY), Buffer.from(sql)]), 0));
    const out: Packet[] = [];
    do out.push(...(await this.response(1, 300)));
    while (isProgressReport(out[out.length - 1]!.payload));
    return out;
  }

  close(): void {
    this.socket.destroy();
  }
}

describe('MariaDB progress reports of a running CALL', () => {
  let wh: string;
  let bucketDir: string;
  let proxy: RunningProxy;
  let port: number;

  /** Old files the table does not reference, for remove_orphan_files to delete one by one. */
  function plantOrphans(): void {
    const old = new Date('2000-01-01T00:00:00Z');
    for (let i = 0; i < ORPHANS; i++) {
      const f = join(bucketDir, `data-orphan-${i}.parquet`);
      writeFileSync(f, 'x');
      utimesSync(f, old, old);
    }
  }

  before(async () => {
    wh = join(tempDir('progress-packets'), 'wh');
    mkdirSync(wh, { recursive: true });
    const io = new LocalFileIO();
    assert.equal((await ensureDemoTable(wh, io)).created, true);
    const tableDir = join(wh, 'demo.db', 'orders');
    const partition = readdirSync(tableDir).find((n) => n.startsWith('dt='))!;
    bucketDir = join(tableDir, partition, readdirSync(join(tableDir, partition)).find((n) => n.startsWith('bucket-'))!);
    assert.ok(statSync(bucketDir).isDirectory());
    const config = configSchema.parse({ listen: { host: '127.0.0.1', port: 0 }, catalogs: [{ name: 'paimon', type: 'filesystem', warehouse: wh }], logging: { level: 'silent' } });
    proxy = await startProxy(config, { logger: silentLogger(), catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, slowDeletes(io))]) });
    port = proxy.address.port;
  });
  after(async () => {
    await proxy?.close();
  });

  test('the interactive mariadb CLI (libmariadb) receives and prints them, then the result', async () => {
    plantOrphans();
    // `script` gives the client a terminal: only then does it ask for progress reports.
    const cmd = `mariadb --no-defaults -h 127.0.0.1 -P ${port} -u root --skip-ssl --progress-reports`;
    const r = await run('script', ['-qec', cmd, '/dev/null'], { input: `${CALL};\nquit\n`, timeoutMs: 60_000, env: { ...process.env, TERM: 'dumb', HOME: tempDir('progress-home') } });
    assert.equal(r.code, 0, r.stderr);
    // mysql.cc's report_progress: "Stage: <n> of <max> '<name>' <p>% of stage done"
    assert.match(r.stdout, /Stage: \d+ of \d+ 'delete demo\.orders \d+\/2500' +[\d.]+% of stage done/);
    assert.match(r.stdout, /\| +2500 \|/, 'then the result: 2500 files deleted');
  });

  test('a raw client with MARIADB_CLIENT_PROGRESS gets them in sequence before the result; one without gets none', async () => {
    const base = CLIENT_LONG_PASSWORD | CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_MULTI_RESULTS;
    for (const asks of [true, false]) {
      plantOrphans();
      const c = new RawProgressClient();
      // CLIENT_MYSQL (= CLIENT_LONG_PASSWORD) clear: the extended capabilities are read.
      await c.connect(port, asks ? base & ~CLIENT_LONG_PASSWORD : base, asks ? MARIADB_CLIENT_PROGRESS : 0);
      const started = Date.now();
      const packets = await c.query(CALL);
      c.close();
      assert.ok(Date.now() - started > 1500, 'the CALL ran long enough for reports');
      assert.deepEqual(packets.map((p) => p.seq), packets.map((_, i) => (i + 1) & 0xff), 'sequence ids run on through the reports');
      const reports = packets.filter((p) => isProgressReport(p.payload)).map((p) => parseProgressReport(p.payload));
      const last = packets[packets.length - 1]!;
      assert.equal(last.payload[0], OK_HEADER, `the response ends with the CALL's OK: ${last.payload.toString('latin1')}`);
      assert.ok(!packets.some((p) => p.payload[0] === ERR_HEADER && !isProgressReport(p.payload)));
      if (!asks) {
        assert.deepEqual(reports, []);
        continue;
      }
      assert.ok(reports.length >= 2, `${reports.length} reports`);
      // Reports precede the result set.
      const firstResult = packets.findIndex((p) => !isProgressReport(p.payload));
      assert.ok(packets.slice(firstResult).every((p) => !isProgressReport(p.payload)));
      const deletes = reports.filter((r) => r.info.startsWith('delete demo.orders'));
      assert.ok(deletes.length >= 1, JSON.stringify(reports));
      for (const r of reports) {
        assert.ok(r.stage >= 1 && r.stage <= r.maxStage, JSON.stringify(r));
        assert.ok(r.progress >= 0 && r.progress <= 1);
      }
      const d = deletes[deletes.length - 1]!;
      assert.match(d.info, /^delete demo\.orders (\d+)\/2500$/);
      assert.ok(Math.abs(d.progress - Number(/ (\d+)\//.exec(d.info)![1]) / ORPHANS) < 0.001);
    }
  });

  test('the classic CLIENT_PROGRESS_OBSOLETE bit asks too (what libmariadb sends)', async () => {
    plantOrphans();
    const c = new RawProgressClient();
    await c.connect(port, CLIENT_PROTOCOL_41 | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH | CLIENT_MULTI_RESULTS | CLIENT_CAPABILITY_EXTENSION, 0);
    const packets = await c.query(CALL);
    c.close();
    assert.ok(packets.filter((p) => isProgressReport(p.payload)).length >= 1);
  });
});
