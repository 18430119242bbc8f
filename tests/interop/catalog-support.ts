/**
 * What the catalog tests (catalog-rest, catalog-rest-token, catalog-hms) share: the table each
 * builds through its catalog, and a CALL's first row, or its error, over mysql2.
 */
import assert from 'node:assert/strict';
import type mysql from 'mysql2/promise';
import { toComparable, type PaimonJava, type Row } from './peers.js';

/**
 * The catalog tests' table, created and written by Paimon Java through the catalog: keyed by
 * (dt, id), partitioned by dt, two buckets, write-only; ten snapshots, the second five writing
 * the same keys again (so a compaction drops files).
 */
export async function createCatalogTable(j: PaimonJava, warehouse: string, db: string, table: string): Promise<void> {
  await j.createTable(warehouse, db, table, {
    fields: [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'dt', type: 'DATE NOT NULL' },
      { name: 'v', type: 'STRING' },
    ],
    primaryKeys: ['dt', 'id'],
    partitionKeys: ['dt'],
    options: { bucket: '2', 'write-only': 'true' },
  });
  await j.writeLoop(warehouse, db, table, 5, 0, 0);
  await j.writeLoop(warehouse, db, table, 5, 0, 0);
}

/** The rows of the first result set of `sql` (a CALL answers its result set, then its status). */
export async function rowsOf(conn: mysql.Connection, sql: string): Promise<Record<string, unknown>[]> {
  const [rows] = await conn.query(sql);
  const list = rows as unknown[];
  return (Array.isArray(list[0]) ? list[0] : list) as Record<string, unknown>[];
}

/** The first row of the first result set of `sql`. */
export async function firstRowOf(conn: mysql.Connection, sql: string): Promise<Record<string, unknown>> {
  const [rows] = await conn.query(sql);
  const list = rows as Record<string, unknown>[][];
  const first = Array.isArray(list[0]) ? list[0][0] : (rows as Record<string, unknown>[])[0];
  assert.ok(first, `${sql} returned a row`);
  return first;
}

/** The error `sql` fails with; throws when it succeeds. */
export async function errorOf(conn: mysql.Connection, sql: string): Promise<{ message: string; errno: number }> {
  try {
    await conn.query(sql);
  } catch (e) {
    const err = e as { message: string; errno: number };
    return { message: err.message, errno: err.errno };
  }
  throw new Error(`${sql} succeeded, an error was expected`);
}

/** What a sweep needs of a catalog test: CALLs through the proxy, and Paimon Java through the same catalog. */
export interface SweepTarget {
  /** The proxy's catalog name and the `db.t` the procedures act on. */
  catalog: string;
  table: string;
  /** The proxy connection the CALLs go through. */
  conn: mysql.Connection;
  /** The latest snapshot id as the catalog sees it. */
  latest(): Promise<number>;
  /** Paimon Java's rows through the catalog, at the latest snapshot, a snapshot id or `tag:<name>`. */
  read(target?: string | number): Promise<Row[]>;
  /** Paimon Java commits once through the catalog, on top of the latest snapshot. */
  javaWrites(): Promise<void>;
}

/**
 * Every tag, branch-free P1 and P2 procedure that acts on one table, once each, through a
 * catalog: after each, Paimon Java reads through that catalog what the procedure leaves (the same
 * rows unless the procedure changes them, then the rows it says), and after each that commits,
 * Java commits on top of it through the catalog (a commit that went around the catalog would make
 * Java's fail). Returns the procedures run, in order.
 */
export async function sweepProcedures(t: SweepTarget): Promise<string[]> {
  const done: string[] = [];
  const run = async (procedure: string, args: string): Promise<Record<string, unknown>> => {
    // A procedure with nothing to report answers no row (remove_unexisting_files, say).
    const rows = await rowsOf(t.conn, `CALL ${t.catalog}.sys.${procedure}(\`table\` => '${t.table}'${args === '' ? '' : `, ${args}`})`);
    done.push(procedure);
    return rows[0] ?? {};
  };
  const same = async (what: string, expected: Row[], target?: string | number): Promise<void> =>
    assert.deepEqual(toComparable(await t.read(target)), toComparable(expected), `${what}: Paimon Java reads through the catalog what it should`);
  const rows = await t.read();

  const fromTs = await run('create_tag_from_timestamp', "tag => 'sweep_ts', `timestamp` => 0");
  // The first snapshot at or after the time may be one only a tag still holds: then the tag's
  // rows are what Java reads of it, which it does by the new tag too.
  const fromSnapshot = await t.read(Number(fromTs.snapshot)).catch(() => null);
  const tagged = await t.read('tag:sweep_ts');
  if (fromSnapshot !== null) assert.deepEqual(toComparable(tagged), toComparable(fromSnapshot), 'create_tag_from_timestamp: the tag reads as its snapshot');
  await run('rename_tag', "tag => 'sweep_ts', target_tag => 'sweep_tag'");
  const latest = await t.latest();
  await run('replace_tag', `tag => 'sweep_tag', snapshot_id => ${latest}`);
  await same('replace_tag', rows, 'tag:sweep_tag');
  await run('trigger_tag_automatic_creation', '');
  await run('expire_tags', '');
  await run('delete_tag', "tag => 'sweep_tag'");
  await run('clear_consumers', '');
  await run('expire_changelogs', 'retain_max => 1');
  await run('remove_unexisting_files', '');
  await run('expire_partitions', "expiration_time => '1 d', timestamp_formatter => 'yyyy-MM-dd'");
  await run('mark_partition_done', "partitions => 'dt=2020-01-01'");
  await run('purge_files', 'dry_run => true');
  await same('the procedures that change no rows', rows);

  // The ones that commit: each commit goes through the catalog, and Java commits on top of it.
  await run('compact_manifest', '');
  await same('compact_manifest', rows);
  await t.javaWrites();
  const before = await t.latest();
  const target = before - 1;
  const expected = await t.read(target);
  const rolled = await run('rollback_to_as_latest', `snapshot_id => ${target}`);
  assert.equal(Number(rolled.current_snapshot_id), before + 1, 'rollback_to_as_latest committed one snapshot');
  assert.equal(await t.latest(), before + 1, 'the catalog sees it');
  await same('rollback_to_as_latest', expected);
  await t.javaWrites();
  const rowsNow = await t.read();
  await rowsOf(t.conn, `CALL ${t.catalog}.sys.compact_database(including_databases => '${t.table.split('.')[0]}', including_tables => '${t.table.replace('.', '\\.')}', compact_strategy => 'full')`);
  done.push('compact_database');
  await same('compact_database', rowsNow);
  await t.javaWrites();
  return done;
}
