/**
 * A filesystem catalog whose warehouse is on S3 (moto, started by tests/setup/moto.sh), built
 * from configuration as the proxy builds it: databases, tables and branches are found on the
 * object store, a missing table or branch is an error naming it, and a CALL through the
 * standalone router resolves its target there.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { buildCatalogs } from '../../src/catalogs.js';
import { configSchema } from '../../src/config-schema.js';
import { ProcedureExecutor } from '../../procedures/framework/executor.js';
import { ProcedureRegistry } from '../../procedures/framework/registry.js';
import { Router } from '../../src/router/router.js';
import { echoProcedure, makeSession, runLocal } from '../unit/router/router-fixtures.js';

function s3env() {
  const endpoint = process.env.S3_ENDPOINT;
  if (!endpoint) throw new Error('S3_ENDPOINT is not set: run through tests/run.sh (tests/setup/moto.sh starts moto)');
  return { endpoint, accessKey: process.env.S3_ACCESS_KEY ?? 'x', secretKey: process.env.S3_SECRET_KEY ?? 'x', region: process.env.S3_REGION ?? 'us-east-1' };
}

describe('filesystem catalog on an S3 warehouse', () => {
  const bucket = `call-cat-${Date.now().toString(36)}`;
  let config: ReturnType<typeof configSchema.parse>;

  before(async () => {
    const env = s3env();
    const s3 = new S3Client({ endpoint: env.endpoint, region: env.region, forcePathStyle: true, credentials: { accessKeyId: env.accessKey, secretAccessKey: env.secretKey } });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    for (const key of [
      'wh/sales.db/orders/schema/schema-0',
      'wh/sales.db/orders/snapshot/snapshot-1',
      'wh/sales.db/orders/branch/branch-b1/schema/schema-0',
      'wh/sales.db/items/schema/schema-0',
      'wh/sales.db/not_a_table/data.txt',
      'wh/ops.db/events/schema/schema-3',
      'wh/stray.txt',
    ]) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: '{}' }));
    }
    s3.destroy();
    config = configSchema.parse({
      catalogs: [
        {
          name: 'lake',
          warehouse: `s3://${bucket}/wh`,
          properties: { 's3.endpoint': env.endpoint, 's3.access-key': env.accessKey, 's3.secret-key': env.secretKey, 's3.region': env.region, 's3.path.style.access': 'true' },
        },
      ],
    });
  });

  test('lists databases and tables the way Paimon lays them out', async () => {
    const cat = buildCatalogs(config).get('lake')!;
    assert.deepEqual(await cat.listDatabases(), ['ops', 'sales']);
    assert.deepEqual(await cat.listTables('sales'), ['items', 'orders']);
    assert.equal(await cat.tableLocation('sales', 'orders'), `s3://${bucket}/wh/sales.db/orders`);
    assert.equal(await cat.tableLocation('sales', 'not_a_table'), null);
    assert.equal(await cat.databaseExists('nope'), false);
  });

  test('a CALL resolves its table and branch on S3, and refuses what is missing', async () => {
    const catalogs = buildCatalogs(config);
    const executor = new ProcedureExecutor({ registry: new ProcedureRegistry([echoProcedure]), catalogs, limits: config.procedures });
    const router = new Router({ executor, defaultCatalog: 'lake' });
    const s = makeSession({ standalone: true });
    const ok = await runLocal(router.route("CALL lake.sys.test_echo('sales.orders$branch_b1', 1)", s));
    assert.ok(ok[0]!.kind === 'resultset');
    assert.deepEqual(ok[0].rows, [['sales.orders$branch_b1', '1', null]]);
    const noBranch = await runLocal(router.route("CALL lake.sys.test_echo('sales.orders$branch_b2')", s));
    assert.ok(noBranch[0]!.kind === 'error' && /Branch 'b2' does not exist/.test(noBranch[0].message));
    const noTable = await runLocal(router.route("CALL sys.test_echo('sales.not_a_table')", s));
    assert.ok(noTable[0]!.kind === 'error' && noTable[0].errno === 1146);
    const dbs = await runLocal(router.route('SHOW DATABASES', s));
    assert.ok(dbs[0]!.kind === 'resultset');
    assert.deepEqual(dbs[0].rows, [['ops'], ['sales']]);
  });

  test('catalog errors never show credentials', () => {
    const bad = configSchema.parse({ catalogs: [{ name: 'x', warehouse: 's3://b/wh', properties: { 's3.access-key': 'AKIA-SECRET-ONLY-ONE' } }] });
    assert.throws(
      () => buildCatalogs(bad),
      (e: Error) => /catalog 'x'/.test(e.message) && !e.message.includes('AKIA-SECRET-ONLY-ONE'),
    );
    const scheme = configSchema.parse({ catalogs: [{ name: 'y', warehouse: 'gs://bucket/wh' }] });
    assert.throws(() => buildCatalogs(scheme), /catalog 'y'.*gs/);
  });
});
