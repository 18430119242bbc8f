/**
 * Table metadata of real Paimon Java tables (the create-matrix of Paimon 1.4.2 and 2.0.0: append
 * and primary-key tables, schema evolution, tags with and without retention, branches, consumers,
 * long-lived changelogs, nested types) read with our library equals what Paimon Java reports
 * (`PaimonTool dump`), field by field: every snapshot, schema, tag, branch, consumer, changelog,
 * the latest/earliest ids and the hint files. And every JSON file Java wrote, re-serialized by us,
 * is byte-identical to Java's file (Jackson's layout, key order, omitted keys, 64-bit values).
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { FileSystemCatalog } from '../../src/paimon/catalog/filesystem-catalog.js';
import { parseSnapshot, snapshotToJson } from '../../src/paimon/spec/snapshot.js';
import { parseTableSchema, tableSchemaToJson } from '../../src/paimon/spec/table-schema.js';
import { durationToMillis, localDateTimeToString, parseTag, tagToJson } from '../../src/paimon/spec/tag.js';
import { consumerToJson, parseConsumer } from '../../src/paimon/table/consumer-manager.js';
import { isPaimonError } from '../../src/paimon/errors.js';
import {
  MATRIX_DB,
  PAIMON_JAVA_VERSIONS,
  java,
  matrixWarehouse,
  parseJson as peerJson,
  toComparable,
  type TableDump,
} from './peers.js';

/** Our JSON text parsed the way the peer output is parsed, for deepEqual against Java's objects. */
function comparable(text: string): unknown {
  return toComparable(peerJson(text));
}

function num(v: number | bigint | null): number | null {
  return v === null ? null : Number(v);
}

/** Every versioned JSON file Java wrote below a table (main and branches). */
function jsonFiles(table: string): { path: string; kind: 'snapshot' | 'schema' | 'tag' | 'consumer' | 'changelog' }[] {
  const roots = [table];
  const branchDir = join(table, 'branch');
  if (existsSync(branchDir)) for (const b of readdirSync(branchDir)) roots.push(join(branchDir, b));
  const out: { path: string; kind: 'snapshot' | 'schema' | 'tag' | 'consumer' | 'changelog' }[] = [];
  for (const root of roots) {
    for (const kind of ['snapshot', 'schema', 'tag', 'consumer', 'changelog'] as const) {
      const dir = join(root, kind);
      if (!existsSync(dir)) continue;
      for (const n of readdirSync(dir)) if (n.startsWith(`${kind}-`)) out.push({ path: join(dir, n), kind });
    }
  }
  return out;
}

function reserialize(kind: string, text: string, path: string): string {
  switch (kind) {
    case 'snapshot':
    case 'changelog':
      return snapshotToJson(parseSnapshot(text, path));
    case 'schema':
      return tableSchemaToJson(parseTableSchema(text, path));
    case 'tag':
      return tagToJson(parseTag(text, path));
    default:
      return consumerToJson(parseConsumer(text, path));
  }
}

async function compareBranch(catalog: FileSystemCatalog, name: string, dump: TableDump): Promise<number> {
  const ident = dump.branch === 'main' ? `${MATRIX_DB}.${name}` : `${MATRIX_DB}.${name}$branch_${dump.branch}`;
  const table = await catalog.getTable(ident);
  const where = `${ident} (Paimon ${dump.paimonVersion})`;
  let checked = 0;

  const sm = table.snapshotManager();
  assert.equal(await sm.latestSnapshotId(), num(dump.latestSnapshotId), `${where}: latest snapshot id`);
  assert.equal(await sm.earliestSnapshotId(), num(dump.earliestSnapshotId), `${where}: earliest snapshot id`);
  const latestHint = await sm.readLatestHint();
  const earliestHint = await sm.readEarliestHint();
  assert.equal(latestHint === null ? null : String(latestHint), dump.hints.LATEST, `${where}: LATEST hint`);
  assert.equal(earliestHint === null ? null : String(earliestHint), dump.hints.EARLIEST, `${where}: EARLIEST hint`);

  const ours: unknown[] = [];
  for await (const s of sm.snapshots()) ours.push(comparable(snapshotToJson(s)));
  assert.deepEqual(ours, toComparable(dump.snapshots), `${where}: snapshots`);
  checked += ours.length;

  const schemas = await table.schemaManager().listAll();
  assert.deepEqual(schemas.map((s) => comparable(tableSchemaToJson(s))), toComparable(dump.schemas), `${where}: schemas`);
  assert.deepEqual(table.partitionKeys, dump.partitionKeys, `${where}: partition keys`);
  assert.deepEqual(table.primaryKeys, dump.primaryKeys, `${where}: primary keys`);
  checked += schemas.length;

  const tags = await table.tagManager().listTags();
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const ourTags = tags
    .map((t) => ({
      name: t.name,
      snapshotId: t.tag.id,
      tagCreateTime: t.tag.tagCreateTime ? localDateTimeToString(t.tag.tagCreateTime) : null,
      tagTimeRetainedMillis: t.tag.tagTimeRetained ? durationToMillis(t.tag.tagTimeRetained) : null,
      json: comparable(tagToJson(t.tag)),
    }))
    .sort(byName);
  assert.deepEqual(ourTags, toComparable([...dump.tags].sort(byName)), `${where}: tags`);
  checked += ourTags.length;

  assert.deepEqual(await table.branchManager().branches(), [...dump.branches].sort(), `${where}: branches`);

  const consumers = Object.fromEntries([...(await table.consumerManager().consumers())].map(([k, v]) => [k, { nextSnapshot: v }]));
  assert.deepEqual(consumers, toComparable(dump.consumers), `${where}: consumers`);
  checked += Object.keys(consumers).length;

  const changelogs: unknown[] = [];
  for await (const c of table.changelogManager().changelogs()) changelogs.push(comparable(snapshotToJson(c)));
  assert.deepEqual(changelogs, toComparable(dump.changelogs), `${where}: long-lived changelogs`);
  checked += changelogs.length;
  return checked;
}

for (const version of PAIMON_JAVA_VERSIONS) {
  describe(`table metadata of the Paimon Java ${version} matrix`, () => {
    let wh = '';
    let dumps = new Map<string, TableDump>();
    before(async () => {
      wh = await matrixWarehouse(version);
      const all = await java(version).dumpAll(wh, MATRIX_DB);
      for (const [t, r] of all) {
        if ('error' in r) throw new Error(`dump of ${t} failed: ${r.error}`);
        dumps.set(t, r.dump);
      }
      assert.ok(dumps.size >= 10, `matrix has ${dumps.size} tables`);
    });

    test('every snapshot, schema, tag, consumer and changelog file re-serializes byte for byte', () => {
      let files = 0;
      const kinds = new Set<string>();
      for (const name of dumps.keys()) {
        for (const f of jsonFiles(join(wh, `${MATRIX_DB}.db`, name))) {
          const text = readFileSync(f.path, 'utf8');
          assert.equal(reserialize(f.kind, text, f.path), text, f.path);
          files++;
          kinds.add(f.kind);
        }
      }
      assert.deepEqual([...kinds].sort(), ['changelog', 'consumer', 'schema', 'snapshot', 'tag']);
      assert.ok(files > 50, `${files} files`);
    });

    test('catalog listings and every table (main branch) equal the Java dump field by field', async () => {
      const catalog = new FileSystemCatalog(wh, new LocalFileIO());
      assert.ok((await catalog.listDatabases()).includes(MATRIX_DB));
      assert.deepEqual(await catalog.listTables(MATRIX_DB), [...dumps.keys()].sort());
      let checked = 0;
      for (const [name, dump] of dumps) checked += await compareBranch(catalog, name, dump);
      assert.ok(checked > 50, `${checked} objects compared`);
    });

    test('branches of the history table (one with its own commit, tag and consumer; one empty) equal the Java dump', async () => {
      const catalog = new FileSystemCatalog(wh, new LocalFileIO());
      const b1 = await java(version).dump(wh, MATRIX_DB, 'history', 'b1');
      const bEmpty = await java(version).dump(wh, MATRIX_DB, 'history', 'b_empty');
      assert.ok(b1.snapshots.length >= 2 && b1.tags.length >= 2 && Object.keys(b1.consumers).length === 1);
      assert.equal(bEmpty.snapshots.length, 0);
      await compareBranch(catalog, 'history', b1);
      await compareBranch(catalog, 'history', bEmpty);
    });

    test('the catalog refuses system tables and reports missing objects with their codes', async () => {
      const catalog = new FileSystemCatalog(wh, new LocalFileIO());
      await assert.rejects(catalog.getTable(`${MATRIX_DB}.history$snapshots`), (e) => isPaimonError(e, 'UNSUPPORTED_TABLE'));
      await assert.rejects(catalog.getTable(`${MATRIX_DB}.no_such_table`), (e) => isPaimonError(e, 'TABLE_NOT_FOUND'));
      await assert.rejects(catalog.getTable('no_such_db.t'), (e) => isPaimonError(e, 'DATABASE_NOT_FOUND'));
      await assert.rejects(catalog.getTable(`${MATRIX_DB}.history$branch_nope`), (e) => isPaimonError(e, 'BRANCH_NOT_FOUND'));
      const evo = await catalog.getTable(`${MATRIX_DB}.schema_evo`);
      assert.ok(evo.schema.id >= 3, 'latest schema of the evolved table');
    });
  });
}
