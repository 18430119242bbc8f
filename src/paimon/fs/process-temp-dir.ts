/**
 * Temporary directories owned by one process: named `<prefix>-<pid>` (or `<prefix>-<pid>-<suffix>`),
 * so a process that starts later can tell whose they are and remove those of processes that no
 * longer run (one killed with SIGKILL in the middle of a compaction or an orphan scan leaves its
 * spill files behind). A directory whose pid is alive, or not ours to signal, is left alone.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** `<prefix>-<pid of this process>`. */
export function processTempDirName(prefix: string): string {
  return `${prefix}-${process.pid}`;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: a live process of another user
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Removes, below `parent`, the `<prefix>-<pid>[-...]` directories of processes that no longer run. */
export function sweepDeadProcessDirs(parent: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  const own = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)(?:-.*)?$`);
  for (const n of names) {
    const m = own.exec(n);
    if (!m || Number(m[1]) === process.pid || isRunning(Number(m[1]))) continue;
    try {
      rmSync(join(parent, n), { recursive: true, force: true });
    } catch {
      /* another process may be sweeping it too */
    }
  }
}
