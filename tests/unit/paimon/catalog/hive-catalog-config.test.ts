/**
 * The Hive catalog's configuration and its behaviour when no metastore answers, without a
 * metastore: a `type: hms` (or `hive`) catalog entry, its metastore uri as `uri` or Doris's
 * `hive.metastore.uris`, Paimon's lock options, and the errors a closed port or a silent peer
 * give (real sockets on loopback). The metastore itself is exercised in
 * tests/interop/catalog-hms.test.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../../../src/config-schema.js';
import { buildCatalog } from '../../../../src/catalogs.js';
import { HiveCatalog, isPaimonHmsTable, PAIMON_INPUT_FORMAT, PAIMON_OUTPUT_FORMAT } from '../../../../src/paimon/catalog/hive-catalog.js';
import { parseMetastoreUris } from '../../../../src/paimon/catalog/hms/hms-client.js';

const warehouse = mkdtempSync(join(tmpdir(), 'hive-catalog-config-'));

function parseCatalog(entry: Record<string, unknown>): ReturnType<typeof configSchema.safeParse> {
  return configSchema.safeParse({ catalogs: [{ name: 'h', warehouse, ...entry }] });
}

function issues(r: ReturnType<typeof configSchema.safeParse>): string {
  return r.success ? '' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  const port = typeof a === 'object' && a !== null ? a.port : 0;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('hive catalog configuration', () => {
  test('type hms with uri, and with hive.metastore.uris in properties, both build a Hive catalog', async () => {
    for (const entry of [
      { type: 'hms', uri: 'thrift://127.0.0.1:9083' },
      { type: 'hms', properties: { 'hive.metastore.uris': 'thrift://127.0.0.1:9083' } },
      { type: 'hive', uri: 'thrift://a.example:9083,thrift://b.example:9083' },
    ]) {
      const r = parseCatalog(entry);
      assert.equal(r.success, true, issues(r));
      const catalog = buildCatalog(r.data!.catalogs[0]);
      assert.ok(catalog instanceof HiveCatalog);
      assert.equal(catalog.type, 'hive');
      await (catalog as HiveCatalog).close();
    }
  });

  test('a missing, malformed or twice-given metastore uri is refused at start-up with its path', () => {
    assert.match(issues(parseCatalog({ type: 'hms' })), /uri: a Hive catalog needs uri \(or hive\.metastore\.uris in properties\)/);
    assert.match(issues(parseCatalog({ type: 'hms', uri: 'http://127.0.0.1:9083' })), /uri: metastore uri must be thrift:\/\/host:port, got 'http:\/\/127\.0\.0\.1:9083'/);
    assert.match(issues(parseCatalog({ type: 'hms', uri: 'thrift://127.0.0.1' })), /must be thrift:\/\/host:port/);
    assert.match(
      issues(parseCatalog({ type: 'hms', uri: 'thrift://a:1', properties: { 'hive.metastore.uris': 'thrift://b:2' } })),
      /given more than once/,
    );
    assert.match(issues(parseCatalog({ type: 'hms', uri: 'thrift://a:1', token: 'x' })), /REST catalog options/);
  });

  test('metastore uris are parsed in order, IPv6 included; ports out of range are refused', () => {
    assert.deepEqual(parseMetastoreUris('thrift://h1:9083, thrift://[::1]:9084'), [
      { host: 'h1', port: 9083 },
      { host: '::1', port: 9084 },
    ]);
    assert.throws(() => parseMetastoreUris('thrift://h:70000'), /no valid port/);
    assert.throws(() => parseMetastoreUris('thrift://user@h:1'), /must be thrift:\/\/host:port/);
  });

  test("Paimon's lock options: lock.enabled as a boolean, lock.type only the metastore's, durations parsed", () => {
    assert.equal(new HiveCatalog('h', { uri: 'thrift://127.0.0.1:1', warehouse }).lockEnabled, false, 'a local warehouse is not an object store');
    assert.equal(new HiveCatalog('h', { uri: 'thrift://127.0.0.1:1', warehouse, properties: { 'lock.enabled': 'TRUE' } }).lockEnabled, true);
    assert.throws(() => new HiveCatalog('h', { uri: 'thrift://127.0.0.1:1', warehouse, properties: { 'lock.enabled': 'yes' } }), /lock\.enabled must be true or false/);
    assert.throws(() => new HiveCatalog('h', { uri: 'thrift://127.0.0.1:1', warehouse, properties: { 'lock.type': 'zookeeper' } }), /lock\.type 'zookeeper' is not supported/);
    assert.throws(() => new HiveCatalog('h', { uri: 'thrift://127.0.0.1:1', warehouse, properties: { 'lock-acquire-timeout': '3 fortnights' } }), /lock-acquire-timeout/);
  });

  test('a Paimon table is one whose storage descriptor names both Paimon formats', () => {
    const t = (inputFormat: string, outputFormat: string) => ({ tableName: 't', dbName: 'd', sd: { location: '/x', inputFormat, outputFormat } });
    assert.equal(isPaimonHmsTable(t(PAIMON_INPUT_FORMAT, PAIMON_OUTPUT_FORMAT)), true);
    assert.equal(isPaimonHmsTable(t('org.apache.hadoop.mapred.TextInputFormat', PAIMON_OUTPUT_FORMAT)), false);
    assert.equal(isPaimonHmsTable({ tableName: 't', dbName: 'd' }), false);
  });
});

describe('hive catalog without a metastore', () => {
  test('a closed port is STORAGE_ERROR naming host:port and what to check, and the next call tries again', async () => {
    const port = await closedPort();
    const catalog = new HiveCatalog('gone', { uri: `thrift://127.0.0.1:${port}`, warehouse });
    try {
      for (let i = 0; i < 2; i++) {
        await assert.rejects(catalog.listDatabases(), (e: { code?: string; message: string }) => {
          assert.equal(e.code, 'STORAGE_ERROR');
          assert.match(e.message, new RegExp(`Hive Metastore of catalog 'gone' at 127\\.0\\.0\\.1:${port} is unreachable while listing databases \\(127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
          assert.match(e.message, /check that the metastore runs/);
          return true;
        });
      }
    } finally {
      await catalog.close();
    }
  });

  test('a peer that accepts and never answers times out as STORAGE_ERROR instead of hanging', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const a = silent.address();
    const port = typeof a === 'object' && a !== null ? a.port : 0;
    const catalog = new HiveCatalog('silent', { uri: `thrift://127.0.0.1:${port}`, warehouse, timeoutMs: 300 });
    try {
      const t0 = Date.now();
      await assert.rejects(catalog.getTable('db.t'), /is unreachable while reading table db\.t \(no answer in 300 ms\)/);
      assert.ok(Date.now() - t0 < 5_000);
    } finally {
      await catalog.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});
