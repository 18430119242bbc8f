/**
 * The filesystem catalog on a local warehouse and on S3 (moto): warehouse layout, listings that
 * skip what is not a database or table, identifiers with branches and system tables, errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileSystemCatalog } from '../../../../src/paimon/catalog/filesystem-catalog.js';
import { identifierToString, parseIdentifier } from '../../../../src/paimon/catalog/identifier.js';
import { CoreOptions, parseDuration, parseMemorySize } from '../../../../src/paimon/spec/core-options.js';
import { DataTypes } from '../../../../src/paimon/spec/data-types.js';
import { isPaimonError } from '../../../../src/paimon/errors.js';
import { createBucket, startS3Peer, type S3Peer } from '../fs/s3-peer.js';

let root: string;
let peer: S3Peer;

before(async () => {
  root = await mkdtemp(path.join(process.env.TEST_TMP ?? tmpdir(), 'catalog-'));
  peer = await startS3Peer();
  await createBucket(peer, 'catalog');
});
after(async () => {
  await rm(root, { recursive: true, force: true });
  await peer?.stop();
});

const ORDERS = {
  fields: [
    { id: 0, name: 'order_id', type: DataTypes.simple('BIGINT') },
    { id: 1, name: 'dt', type: DataTypes.string() },
    { id: 2, name: 'amount', type: DataTypes.decimal(10, 2) },
  ],
  partitionKeys: ['dt'],
  primaryKeys: ['dt', 'order_id'],
  options: { bucket: '2' },
};

describe('identifiers', () => {
  test('db.tbl, branches and system tables as Paimon splits them', () => {
    assert.deepEqual(parseIdentifier('sales.orders'), { database: 'sales', table: 'orders' });
    assert.deepEqual(parseIdentifier('sales.orders$branch_dev'), { database: 'sales', table: 'orders', branch: 'dev' });
    assert.deepEqual(parseIdentifier('sales.orders$snapshots'), { database: 'sales', table: 'orders', systemTable: 'snapshots' });
    assert.deepEqual(parseIdentifier('sales.orders$branch_dev$files'), { database: 'sales', table: 'orders', branch: 'dev', systemTable: 'files' });
    assert.deepEqual(parseIdentifier('sales.orders$branch_main'), { database: 'sales', table: 'orders' });
    assert.deepEqual(parseIdentifier('a.b.c'), { database: 'a', table: 'b.c' });
    assert.equal(identifierToString(parseIdentifier('sales.orders$branch_dev$files')), 'sales.orders$branch_dev$files');
    for (const bad of ['orders', '.t', 'db.', '', 'db.t$snapshots$x', 'db.t$$x']) {
      assert.throws(() => parseIdentifier(bad), (e) => isPaimonError(e, 'INVALID_ARGUMENT'), bad);
    }
  });
});

describe('core options', () => {
  test('Paimon defaults and text forms', () => {
    const pk = new CoreOptions({}, true);
    assert.equal(pk.bucket(), -1);
    assert.equal(pk.fileFormat(), 'parquet');
    assert.equal(pk.manifestFormat(), 'avro');
    assert.equal(pk.manifestCompression(), 'zstd');
    assert.equal(pk.snapshotNumRetainMin(), 10);
    assert.equal(pk.snapshotNumRetainMax(), 2147483647);
    assert.equal(pk.snapshotTimeRetainedMs(), 3_600_000);
    assert.equal(pk.partitionDefaultName(), '__DEFAULT_PARTITION__');
    assert.equal(pk.changelogProducer(), 'none');
    assert.equal(pk.mergeEngine(), 'deduplicate');
    assert.equal(pk.deletionVectorsEnabled(), false);
    assert.equal(pk.targetFileSize(), 128 * 1024 * 1024);
    assert.equal(new CoreOptions({}, false).targetFileSize(), 256 * 1024 * 1024);
    assert.equal(pk.numLevels(), 6);
    assert.equal(pk.changelogNumRetainMin(), 10, 'falls back to the snapshot value');
    const o = new CoreOptions({ 'snapshot.time-retained': '30 min', 'changelog.time-retained': '1 d', 'manifest.target-file-size': '2 mb' });
    assert.equal(o.snapshotTimeRetainedMs(), 1_800_000);
    assert.equal(o.changelogLifecycleDecoupled(), true);
    assert.equal(o.manifestTargetFileSize(), 2 * 1024 * 1024);
    assert.equal(parseDuration('100'), 100);
    assert.equal(parseDuration('1h'), 3_600_000);
    assert.equal(parseMemorySize('500 B'), 500);
    assert.throws(() => new CoreOptions({ bucket: 'x' }).bucket(), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
    assert.throws(() => parseDuration('5 fortnights'), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
  });
});

function catalogSuite(name: string, open: () => Promise<FileSystemCatalog>, localRoot?: () => string) {
  describe(`filesystem catalog: ${name}`, () => {
    test('databases and tables: create, list (skipping non-table directories), get, errors', async () => {
      const c = await open();
      await c.createDatabase('sales');
      await c.createDatabase('empty');
      await c.createDatabase('sales', true);
      await assert.rejects(c.createDatabase('sales'), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
      const t = await c.createTable('sales.orders', ORDERS);
      // A stray directory and a file next to the table are not tables; a non-.db directory is not a database.
      await c.fileIO.writeFile(`${c.databasePath('sales')}/not_a_table/readme.txt`, 'x');
      await c.fileIO.writeFile(`${c.databasePath('sales')}/loose-file`, 'x');
      await c.fileIO.writeFile(`${c.warehouse}/not_a_db/x`, 'x');
      assert.deepEqual(await c.listDatabases(), ['empty', 'sales']);
      assert.deepEqual(await c.listTables('sales'), ['orders']);
      assert.deepEqual(await c.listTables('empty'), []);
      await assert.rejects(c.listTables('nope'), (e) => isPaimonError(e, 'DATABASE_NOT_FOUND'));

      assert.equal(t.path, `${c.warehouse}/sales.db/orders`);
      assert.equal(t.fullName, 'sales.orders');
      assert.deepEqual(t.primaryKeys, ['dt', 'order_id']);
      // Primary-key columns become NOT NULL (Schema.normalizeFields).
      assert.equal(t.schema.fields[0].type.nullable, false);
      assert.equal(t.schema.fields[2].type.nullable, true);
      assert.equal(t.schema.highestFieldId, 2);
      assert.equal(t.options.bucket(), 2);
      assert.equal(t.options.path(), t.path);
      assert.equal(t.snapshotManager().snapshotDirectory(), `${t.path}/snapshot`);

      await assert.rejects(c.getTable('sales.nope'), (e) => isPaimonError(e, 'TABLE_NOT_FOUND'));
      await assert.rejects(c.getTable('nope.orders'), (e) => isPaimonError(e, 'DATABASE_NOT_FOUND'));
      await assert.rejects(c.getTable('sales.orders$snapshots'), (e) => isPaimonError(e, 'UNSUPPORTED_TABLE'));
      await assert.rejects(c.getTable('sales.orders$branch_dev'), (e) => isPaimonError(e, 'BRANCH_NOT_FOUND'));
      await assert.rejects(c.createTable('sales.orders', ORDERS), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));
      await assert.rejects(c.getTable('sales.../x'), (e) => isPaimonError(e, 'INVALID_ARGUMENT'));

      await t.branchManager().createBranch('dev');
      const dev = await c.getTable('sales.orders$branch_dev');
      assert.equal(dev.branch, 'dev');
      assert.equal(dev.fullName, 'sales.orders$branch_dev');
      assert.equal(dev.options.branch(), 'dev');
      assert.equal(dev.snapshotManager().snapshotDirectory(), `${t.path}/branch/branch-dev/snapshot`);
      assert.equal(await c.tableExists('sales.orders$snapshots'), false);
      assert.equal(await c.tableExists('sales.orders'), true);
    });

    if (localRoot) {
      test('schema-0 is written in Paimon\'s layout', async () => {
        const text = await readFile(path.join(localRoot(), 'sales.db', 'orders', 'schema', 'schema-0'), 'utf8');
        assert.match(
          text,
          /^\{\n {2}"version" : 3,\n {2}"id" : 0,\n {2}"fields" : \[ \{\n {4}"id" : 0,\n {4}"name" : "order_id",\n {4}"type" : "BIGINT NOT NULL"\n {2}\}, \{/,
        );
        assert.match(text, /"highestFieldId" : 2,\n {2}"partitionKeys" : \[ "dt" \],\n {2}"primaryKeys" : \[ "dt", "order_id" \],\n {2}"options" : \{\n {4}"bucket" : "2"\n {2}\},\n {2}"timeMillis" : \d+\n\}$/);
      });

      test('a table directory whose schema-0 was expired still counts (any schema-N)', async () => {
        const wh = localRoot();
        await mkdir(path.join(wh, 'sales.db', 'old', 'schema'), { recursive: true });
        const c = await open();
        const src = await readFile(path.join(wh, 'sales.db', 'orders', 'schema', 'schema-0'), 'utf8');
        await writeFile(path.join(wh, 'sales.db', 'old', 'schema', 'schema-3'), src.replace('"id" : 0,', '"id" : 3,'));
        assert.deepEqual(await c.listTables('sales'), ['old', 'orders']);
        assert.equal((await c.getTable('sales.old')).schema.id, 3);
      });
    }
  });
}

let localWh = '';
catalogSuite(
  'local',
  async () => {
    if (!localWh) localWh = path.join(root, 'wh');
    return FileSystemCatalog.open(localWh);
  },
  () => localWh,
);

let s3Wh = '';
catalogSuite('s3 (moto)', async () => {
  if (!s3Wh) s3Wh = `s3://catalog/wh-${Date.now()}`;
  return FileSystemCatalog.open(s3Wh, {
    's3.endpoint': peer.endpoint,
    's3.access-key': peer.accessKey,
    's3.secret-key': peer.secretKey,
    's3.region': peer.region,
    's3.path.style.access': 'true',
  });
});
