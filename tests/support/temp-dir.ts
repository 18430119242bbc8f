/**
 * Scratch directories of tests: below $TEST_TMP when tests/run.sh set it (wiped at the start of
 * every run, so nothing accumulates), else below the OS temp directory.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The base of every test's scratch directories (created if missing). */
export function testTmp(): string {
  const base = resolve(process.env.TEST_TMP ?? tmpdir());
  mkdirSync(base, { recursive: true });
  return base;
}

/** A new empty directory whose name starts with `prefix` and a dash, below testTmp(). */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(testTmp(), `${prefix.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/-+$/, '')}-`));
}
