/**
 * What the catalog tests (catalog-rest, catalog-rest-token, catalog-hms) share: the table each
 * builds through its catalog, and a CALL's first row, or its error, over mysql2.
 */
import assert from 'node:assert/strict';
import type mysql from 'mysql2/promise';
import type { PaimonJava } from './peers.js';

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
