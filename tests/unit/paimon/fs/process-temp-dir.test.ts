import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processTempDirName, sweepDeadProcessDirs } from '../../../../src/paimon/fs/process-temp-dir.js';

test('sweepDeadProcessDirs removes the directories of dead processes only, with its prefix only', () => {
  const parent = mkdtempSync(join(tmpdir(), 'ptd-'));
  try {
    // a pid that surely ran and is gone: a child that has exited
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const names = {
      deadPlain: `paimon-x-${dead}`,
      deadSuffixed: `paimon-x-${dead}-abc123`,
      mine: processTempDirName('paimon-x'),
      mineSuffixed: `${processTempDirName('paimon-x')}-q`,
      alive: `paimon-x-1`, // init: always running
      otherPrefix: `paimon-y-${dead}`,
      notAPid: 'paimon-x-abc',
      prefixOnly: 'paimon-x',
    };
    for (const n of Object.values(names)) {
      mkdirSync(join(parent, n));
      writeFileSync(join(parent, n, 'f'), 'x');
    }
    sweepDeadProcessDirs(parent, 'paimon-x');
    const left = (n: string): boolean => existsSync(join(parent, n));
    assert.equal(left(names.deadPlain), false);
    assert.equal(left(names.deadSuffixed), false);
    for (const k of ['mine', 'mineSuffixed', 'alive', 'otherPrefix', 'notAPid', 'prefixOnly'] as const) assert.equal(left(names[k]), true, k);
    // a missing parent is not an error
    sweepDeadProcessDirs(join(parent, 'missing'), 'paimon-x');
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
