/**
 * Shared by the ops-* integration tests: the MariaDB of tests/setup/mariadb.sh (env MARIADB_*),
 * fresh scratch databases and directories under $TEST_TMP, and the secrets these tests use,
 * which ops-secrets-scan.test.ts looks for in every log and audit file of the run.
 */
import { tempDir } from '../support/temp-dir.js';
import { openSync, fstatSync, readSync, closeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

export interface MariaDb {
  host: string;
  port: number;
  user: string;
  password: string;
  generalLog: string;
}

export function mariadbEnv(): MariaDb {
  const port = Number(process.env.MARIADB_PORT);
  if (!port) throw new Error('MARIADB_PORT is not set: run through tests/run.sh (tests/setup/mariadb.sh starts MariaDB)');
  return {
    host: '127.0.0.1',
    port,
    user: process.env.MARIADB_USER ?? 'app',
    password: process.env.MARIADB_PASSWORD ?? '',
    generalLog: process.env.MARIADB_GENERAL_LOG ?? '',
  };
}

/** Every test secret starts with this, so the scan can also find ones it was not told about. */
export const TEST_SECRET_PREFIX = 'pp-test-secret-';

export function testSecret(label: string): string {
  return `${TEST_SECRET_PREFIX}${label}-${randomBytes(4).toString('hex')}`;
}

/** A scratch directory below $TEST_TMP (tests/support/temp-dir.ts). */
export const scratchDir = tempDir;

export async function adminConnection(database?: string): Promise<mysql.Connection> {
  const db = mariadbEnv();
  return mysql.createConnection({ host: db.host, port: db.port, user: db.user, password: db.password, ...(database ? { database } : {}) });
}

/** A new empty database for one test file. */
export async function scratchDatabase(prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const c = await adminConnection();
  try {
    await c.query(`CREATE DATABASE \`${name}\``);
  } finally {
    await c.end();
  }
  return name;
}

/** What a file received after `offset` bytes (the general log can be large: read only the tail). */
export function readFrom(path: string, offset: number): string {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const len = Math.max(0, size - offset);
    const buf = Buffer.alloc(len);
    let read = 0;
    while (read < len) {
      const n = readSync(fd, buf, read, len - read, offset + read);
      if (n === 0) break;
      read += n;
    }
    return buf.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
