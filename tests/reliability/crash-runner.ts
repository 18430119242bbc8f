/**
 * Runs one maintenance procedure in its own process over a filesystem catalog and SIGKILLs
 * itself right before its N-th mutating storage call (write, create, delete, rename), so the
 * crash tests can stop a procedure at every kind of step. Without a kill point it runs to the
 * end and prints `{"mutations": <count>, "ok": ..., "row": ..., "elapsedMs": ...}`. It writes `started` on
 * stderr right before the procedure begins, so a caller can also kill it at a wall-clock offset from
 * that moment (elapsedMs of an uninterrupted run says how long the procedure itself takes).
 *
 *   node --import tsx tests/reliability/crash-runner.ts <warehouse> <procedure> <args-json> [killAt]
 */
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../src/paimon/fs/file-io.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../src/catalogs.js';
import { ProcedureExecutor } from '../../procedures/framework/executor.js';
import { ProcedureRegistry } from '../../procedures/framework/registry.js';
import { configSchema } from '../../src/config-schema.js';
import type { CallArgument } from '../../procedures/framework/binding.js';
import { expireSnapshots } from '../../procedures/snapshots/expire-snapshots.js';
import { removeOrphanFiles } from '../../procedures/files/remove-orphan-files.js';
import { rollback, rollbackTo } from '../../procedures/snapshots/rollback-to.js';
import { rollbackToAsLatest } from '../../procedures/snapshots/rollback-to-as-latest.js';
import { compact } from '../../procedures/compaction/compact.js';
import { branchProcedures } from '../../procedures/branches/index.js';
import { tagProcedures } from '../../procedures/tags/index.js';

const MUTATING = new Set(['writeFile', 'tryCreateAtomic', 'writeStream', 'delete', 'deleteMany', 'deleteDirectory', 'rename', 'copyFile', 'mkdirs']);

const [warehouse, procedure, argsJson, killAtText] = process.argv.slice(2);
const killAt = killAtText === undefined ? -1 : Number(killAtText);
let mutations = 0;
const base = new LocalFileIO();
const fileIO = new Proxy(base, {
  get(target, prop, receiver) {
    const v = Reflect.get(target, prop, receiver) as unknown;
    if (typeof v !== 'function') return v;
    const fn = v as (...a: unknown[]) => unknown;
    if (!MUTATING.has(String(prop))) return fn.bind(target);
    return (...a: unknown[]) => {
      mutations++;
      if (mutations === killAt) process.kill(process.pid, 'SIGKILL');
      return fn.apply(target, a);
    };
  },
}) as FileIO;

const executor = new ProcedureExecutor({
  registry: new ProcedureRegistry([expireSnapshots, removeOrphanFiles, rollbackTo, rollback, rollbackToAsLatest, compact, ...branchProcedures, ...tagProcedures]),
  catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', warehouse, fileIO)]),
  // one delete at a time, so that a kill point is one well-defined step
  limits: configSchema.parse({ procedures: { delete_concurrency: 1, compact_concurrency: 1 } }).procedures,
});
const args = JSON.parse(argsJson) as Record<string, string | number | boolean>;
const callArgs: CallArgument[] = Object.entries(args).map(([name, value], i) => ({
  name,
  offset: i,
  value:
    typeof value === 'string'
      ? { kind: 'string', value }
      : typeof value === 'boolean'
        ? { kind: 'boolean', value }
        : { kind: 'integer', value: BigInt(value), text: String(value) },
}));
process.stderr.write('started\n');
const startedAt = performance.now();
const outcome = await executor.run(
  { catalog: 'paimon', procedure, args: callArgs, statement: `CALL paimon.sys.${procedure}(...)` },
  { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
  new AbortController().signal,
);
const row = outcome.ok ? outcome.result.rows[0] : null;
process.stdout.write(
  JSON.stringify({ mutations, ok: outcome.ok, error: outcome.ok ? null : `${outcome.error.code}: ${outcome.error.message}`, row, elapsedMs: Math.round(performance.now() - startedAt) }, (_k, v: unknown) =>
    typeof v === 'bigint' ? v.toString() : v,
  ) + '\n',
);
process.exit(outcome.ok ? 0 : 1);
