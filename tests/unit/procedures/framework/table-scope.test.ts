/**
 * The context hands procedures their catalog through tableScopedCatalog: every table (resolved
 * by name, or opened on another branch through ctx.catalog.getTable) changes files only inside
 * its root and its data-file.external-paths, the warehouse-wide FileIO only reads, and a
 * refusal reaches the client as UNSAFE_PATH.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext } from '../../../../procedures/framework/context.js';
import { ERROR_CODES, toProcedureError } from '../../../../procedures/framework/errors.js';
import { FileSystemCatalog } from '../../../../src/paimon/catalog/filesystem-catalog.js';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import { isUnsafePathError, TableScopedFileIO } from '../../../../src/paimon/fs/table-scoped-file-io.js';
import { parseDataFields } from '../../../../src/paimon/spec/data-types.js';
import { configSchema } from '../../../../src/config-schema.js';

describe('procedures see their tables through a table-scoped FileIO', () => {
  let wh: string;
  let catalog: FileSystemCatalog;
  before(async () => {
    wh = await mkdtemp(join(process.env.TEST_TMP ?? tmpdir(), 'table-scope-'));
    catalog = new FileSystemCatalog(wh, new LocalFileIO({ root: wh }), 'paimon');
    await catalog.createDatabase('db');
    const fields = parseDataFields([{ id: 0, name: 'id', type: 'INT' }]);
    await catalog.createTable('db.t', { fields, options: { 'data-file.external-paths': `file://${wh}/ext-a, ${wh}/ext-b` } });
    await catalog.createTable('db.u', { fields });
  });
  after(async () => {
    await rm(wh, { recursive: true, force: true });
  });

  const context = () =>
    createContext({
      procedure: 'test',
      catalog,
      caller: { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: 'db' },
      signal: new AbortController().signal,
      dryRun: false,
      limits: configSchema.parse({}).procedures,
    }).context;

  test('a resolved table writes inside its root and its external paths, nowhere else', async () => {
    const ctx = context();
    const t = await ctx.resolveTable('db.t');
    assert.ok(t.fileIO instanceof TableScopedFileIO);
    assert.equal(t.identifier, 'db.t');
    assert.equal(t.schema.id, 0, 'the same table, schema read');
    await t.fileIO.writeFile(join(t.location, 'bucket-0', 'data-0.parquet'), 'in');
    await t.fileIO.writeFile(`${wh}/ext-a/bucket-0/data-1.parquet`, 'ext a');
    await t.fileIO.writeFile(`${wh}/ext-b/bucket-0/data-2.parquet`, 'ext b');
    await assert.rejects(t.fileIO.writeFile(`${wh}/db.db/u/bucket-0/data-3.parquet`, 'x'), isUnsafePathError);
    await assert.rejects(t.fileIO.delete(`${wh}/ext-c/f`), isUnsafePathError);
    // Another table of the same catalog has its own scope, without t's external paths.
    const u = await ctx.catalog.getTable({ database: 'db', table: 'u' });
    await assert.rejects(u.fileIO.writeFile(`${wh}/ext-a/f`, 'x'), isUnsafePathError);
    assert.equal(ctx.catalog.name, 'paimon');
    assert.deepEqual((await ctx.catalog.listTables('db')).filter((n) => n !== 'v'), ['t', 'u']);
  });

  test('external paths that an earlier schema named stay the table\'s', async () => {
    const fields = parseDataFields([{ id: 0, name: 'id', type: 'INT' }]);
    await catalog.createTable('db.v', { fields, options: { 'data-file.external-paths': `${wh}/ext-old` } });
    const sm = (await catalog.getTable('db.v')).schemaManager();
    const first = (await sm.latest())!;
    assert.ok(await sm.commit({ ...first, id: first.id + 1, options: { ...first.options, 'data-file.external-paths': `${wh}/ext-new` } }));
    const v = await context().resolveTable('db.v');
    await v.fileIO.writeFile(`${wh}/ext-new/bucket-0/data-0.parquet`, 'new');
    await v.fileIO.delete(`${wh}/ext-new/bucket-0/data-0.parquet`);
    await v.fileIO.writeFile(`${wh}/ext-old/bucket-0/data-1.parquet`, 'old');
    await v.fileIO.delete(`${wh}/ext-old/bucket-0/data-1.parquet`);
    await assert.rejects(v.fileIO.delete(`${wh}/ext-a/bucket-0/data-1.parquet`), isUnsafePathError, 'another table\'s external path');
  });

  test('the catalog-wide FileIO of a procedure only reads', async () => {
    const ctx = context();
    assert.equal((await ctx.catalog.fileIO.readFile(`${wh}/ext-a/bucket-0/data-1.parquet`)).toString(), 'ext a');
    await assert.rejects(ctx.catalog.fileIO.writeFile(`${wh}/db.db/t/x`, 'x'), isUnsafePathError);
    await assert.rejects(ctx.catalog.fileIO.deleteDirectory(`${wh}/db.db`), isUnsafePathError);
  });

  test('a refusal is UNSAFE_PATH (1105), naming the path relative to the table', async () => {
    const t = await context().resolveTable('db.u');
    const e = await t.fileIO.delete(`${t.location}/../t/x`).then(() => null, (err: unknown) => err);
    const pe = toProcedureError(e);
    assert.equal(pe.code, 'UNSAFE_PATH');
    assert.equal(pe.errno, ERROR_CODES.UNSAFE_PATH.errno);
    assert.ok(!pe.message.includes(wh), pe.message);
  });
});
