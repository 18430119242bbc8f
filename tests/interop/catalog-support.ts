/** What the catalog tests (catalog-rest, catalog-hms) share: a CALL's first row, or its error, over mysql2. */
import assert from 'node:assert/strict';
import type mysql from 'mysql2/promise';

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
