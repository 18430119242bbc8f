/**
 * Temporary space left by a process that died in the middle of a compaction (SIGKILL: spill
 * files, partial local files) is removed by the next process that uses the same temporary
 * parent; directories of live processes are left alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { configureDataEngine, dataTempDir, closeDataEngine } from '../../../../src/paimon/data/duckdb-engine.js';

test("a dead process's temporary directory is swept; a live one's is kept", async () => {
  const parent = mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'spill-temp-'));
  try {
    // a process that has exited: its pid is free (or reused by a live process, then kept)
    const child = spawn(process.execPath, ['-e', '0']);
    const deadPid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    // a live process
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      for (const pid of [deadPid, live.pid!]) {
        mkdirSync(join(parent, `paimon-data-${pid}`, `compact-spill-x`), { recursive: true });
        writeFileSync(join(parent, `paimon-data-${pid}`, `compact-spill-x`, 'spill-1.bin'), 'x');
      }
      mkdirSync(join(parent, 'something-else-123'));
      configureDataEngine({ tempDir: parent });
      const mine = dataTempDir();
      assert.equal(mine, join(parent, `paimon-data-${process.pid}`));
      let deadIsAlive = false;
      try {
        process.kill(deadPid, 0);
        deadIsAlive = true; // pid reused already: kept, correctly
      } catch {
        /* dead */
      }
      assert.equal(existsSync(join(parent, `paimon-data-${deadPid}`)), deadIsAlive);
      assert.ok(existsSync(join(parent, `paimon-data-${live.pid}`, 'compact-spill-x', 'spill-1.bin')));
      assert.ok(existsSync(join(parent, 'something-else-123')));
    } finally {
      live.kill('SIGKILL');
    }
  } finally {
    await closeDataEngine();
    rmSync(parent, { recursive: true, force: true });
  }
});
