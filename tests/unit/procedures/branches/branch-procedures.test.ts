/**
 * The branch procedures through the real executor on metadata-only tables (binding of Spark's
 * and Flink's names, positional and named; the checks that are ours; dry runs; the pinned
 * generation). Paimon Java's own behaviour on the same operations is compared in
 * tests/interop/procedures-branches.test.ts.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../../../src/paimon/fs/file-io.js';
import { PaimonError } from '../../../../src/paimon/errors.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../../../src/catalogs.js';
import { configSchema } from '../../../../src/config-schema.js';
import { ProcedureExecutor, type CallOutcome } from '../../../../procedures/framework/executor.js';
import { ProcedureRegistry } from '../../../../procedures/framework/registry.js';
import type { ArgumentValue, CallArgument } from '../../../../procedures/framework/binding.js';
import { createContext } from '../../../../procedures/framework/context.js';
import { branchProcedures } from '../../../../procedures/branches/index.js';
import { checkPin, readPin } from '../../../../procedures/branches/branch-guard.js';
import { parseIgnoreIfExists } from '../../../../procedures/branches/create-branch.js';
import { BranchManager } from '../../../../src/paimon/table/branch-manager.js';
import { SchemaManager } from '../../../../src/paimon/table/schema-manager.js';
import { SnapshotManager } from '../../../../src/paimon/table/snapshot-manager.js';
import { tempDir } from '../../../support/temp-dir.js';
import { buildTable, snap, tree, writeSnap } from '../../paimon/branches/branch-fixture.js';

type Lit = string | number | boolean | null;
function literal(v: Lit): ArgumentValue {
  if (v === null) return { kind: 'null' };
  if (typeof v === 'string') return { kind: 'string', value: v };
  if (typeof v === 'boolean') return { kind: 'boolean', value: v };
  return { kind: 'integer', value: BigInt(v), text: String(v) };
}

function executor(wh: string, fileIO: FileIO = new LocalFileIO()): ProcedureExecutor {
  return new ProcedureExecutor({
    registry: new ProcedureRegistry(branchProcedures),
    catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', wh, fileIO)]),
    limits: configSchema.parse({}).procedures,
  });
}

async function call(wh: string, procedure: string, args: Record<string, Lit> | Lit[], fileIO?: FileIO): Promise<CallOutcome> {
  const callArgs: CallArgument[] = Array.isArray(args)
    ? args.map((v, i) => ({ name: null, value: literal(v), offset: i }))
    : Object.entries(args).map(([name, v], i) => ({ name, value: literal(v), offset: i }));
  return executor(wh, fileIO).run(
    { catalog: 'paimon', procedure, args: callArgs, statement: `CALL paimon.sys.${procedure}(...)` },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    new AbortController().signal,
  );
}

function row(o: CallOutcome): Record<string, unknown> {
  if (!o.ok) throw new Error(`call failed: ${o.error.code}: ${o.error.message}`);
  return o.result.rows[0]!;
}

function code(o: CallOutcome): string {
  assert.equal(o.ok, false, 'the call should have failed');
  return o.ok ? '' : o.error.code;
}

let root: string;
before(() => {
  root = tempDir('branch-procs');
});

async function warehouse(name: string, mainStays = true): Promise<{ wh: string; t: string }> {
  const wh = path.join(root, name);
  const t = await buildTable(wh, mainStays);
  return { wh, t };
}

describe('argument helpers', () => {
  test('ignore_if_exists takes Spark strings and Flink booleans', () => {
    assert.equal(parseIgnoreIfExists('TRUE'), true);
    assert.equal(parseIgnoreIfExists('false'), false);
    assert.equal(parseIgnoreIfExists(null), false);
    assert.throws(() => parseIgnoreIfExists('yes'), /ignore_if_exists/);
  });
});

describe('create_branch', () => {
  test('named (Spark and Flink spellings) and positional; from a tag of a branch', async () => {
    const { wh, t } = await warehouse('create');
    assert.equal(row(await call(wh, 'create_branch', { table: 'db.t', branch: 'e' })).created, true);
    assert.equal(row(await call(wh, 'create_branch', ['db.t', 'f', 't2'])).from_snapshot_id, 2);
    assert.equal(code(await call(wh, 'create_branch', { table: 'db.t', branch: 'e' })), 'BRANCH_ALREADY_EXISTS');
    assert.equal(row(await call(wh, 'create_branch', { table: 'db.t', branch: 'e', ignoreIfExists: 'true' })).created, false);
    assert.equal(row(await call(wh, 'create_branch', { table: 'db.t', branch: 'e', ignore_if_exists: true })).created, false);
    // db.t$branch_b: from b's tag bt4, with b's schemas.
    const r = row(await call(wh, 'create_branch', { table: 'db.t$branch_b', branch: 'bb', tagName: 'bt4' }));
    assert.equal(r.from_snapshot_id, 4);
    assert.ok(await new SchemaManager(new LocalFileIO(), t, 'bb').schemaExists(1));
    assert.equal((await new SnapshotManager(new LocalFileIO(), t, 'bb').latestSnapshot())?.commitUser, 'branch');
    for (const bad of ['main', '42', '']) assert.equal(code(await call(wh, 'create_branch', { table: 'db.t', branch: bad })), 'INVALID_ARGUMENT', bad);
    assert.equal(code(await call(wh, 'create_branch', { table: 'db.t', branch: 'x', tag: 'nope' })), 'TAG_NOT_FOUND');
  });
});

describe('delete_branch', () => {
  test('comma list, all checked first; dry run; fallback/primary branch refused', async () => {
    const { wh, t } = await warehouse('delete');
    await call(wh, 'create_branch', { table: 'db.t', branch: 'e' });
    await call(wh, 'create_branch', { table: 'db.t', branch: 'f' });
    const before = await tree(t);
    assert.equal(code(await call(wh, 'delete_branch', { table: 'db.t', branch: 'e,nope' })), 'BRANCH_NOT_FOUND');
    assert.equal(code(await call(wh, 'delete_branch', { table: 'db.t', branch: 'e,,f' })), 'INVALID_ARGUMENT', 'the same list rule as delete_tag');
    const dry = row(await call(wh, 'delete_branch', { table: 'db.t', branch: 'e, f', dry_run: true }));
    assert.equal(dry.deleted_branches, 'e,f');
    assert.deepEqual(await tree(t), before, 'a dry run and a refused call change nothing');
    assert.equal(row(await call(wh, 'delete_branch', ['db.t', 'e,f'])).deleted_branches, 'e,f');
    assert.deepEqual(await new BranchManager(new LocalFileIO(), t).branches(), ['b']);

    // scan.fallback-branch = b on main's latest schema.
    const sm = new SchemaManager(new LocalFileIO(), t);
    const s0 = await readFile(sm.schemaPath(0), 'utf8');
    await writeFile(sm.schemaPath(0), s0.replace(/"options" : \{\s*\}/, '"options" : { "scan.fallback-branch" : "b" }'));
    assert.equal((await sm.latest())?.options['scan.fallback-branch'], 'b', 'fixture: option set');
    const o = await call(wh, 'delete_branch', { table: 'db.t', branch: 'b' });
    assert.equal(code(o), 'INVALID_ARGUMENT');
    assert.match(o.ok ? '' : o.error.message, /scan\.fallback-branch/);
    assert.equal(code(await call(wh, 'rename_branch', { table: 'db.t', from_branch: 'b', to_branch: 'c' })), 'INVALID_ARGUMENT');
    assert.equal(code(await call(wh, 'delete_branch', { table: 'db.t', branch: 'main' })), 'INVALID_ARGUMENT');
  });
});

describe('delete_branch I/O failure', () => {
  test('is an error naming what was deleted before it, not a log line', async () => {
    const { wh } = await warehouse('delete-io');
    await call(wh, 'create_branch', { table: 'db.t', branch: 'e' });
    const failing = new Proxy(new LocalFileIO(), {
      get(target, prop, receiver) {
        if (prop === 'deleteDirectory') {
          return async (dir: string) => {
            if (dir.endsWith('branch-e')) throw new PaimonError('STORAGE_ERROR', `permission denied: ${dir}`);
            return target.deleteDirectory(dir);
          };
        }
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as FileIO;
    const o = await call(wh, 'delete_branch', { table: 'db.t', branch: 'b,e' }, failing);
    assert.equal(code(o), 'STORAGE_ERROR');
    assert.match(o.ok ? '' : o.error.message, /deleting branch 'e' failed.*Branches already deleted: b/);
  });
});

describe('rename_branch', () => {
  test('Java checks, dry run, rename', async () => {
    const { wh, t } = await warehouse('rename');
    assert.equal(code(await call(wh, 'rename_branch', { table: 'db.t', from_branch: 'main', to_branch: 'x' })), 'INVALID_ARGUMENT');
    assert.equal(code(await call(wh, 'rename_branch', { table: 'db.t', from_branch: 'nope', to_branch: 'x' })), 'BRANCH_NOT_FOUND');
    assert.equal(code(await call(wh, 'rename_branch', { table: 'db.t', from_branch: 'b', to_branch: '7' })), 'INVALID_ARGUMENT');
    const before = await tree(t);
    assert.equal(row(await call(wh, 'rename_branch', { table: 'db.t', from_branch: 'b', to_branch: 'c', dry_run: true })).renamed, false);
    assert.deepEqual(await tree(t), before);
    const r = row(await call(wh, 'rename_branch', ['db.t', 'b', 'c']));
    assert.equal(r.renamed, true);
    assert.equal(r.pinned_snapshot_id, 5);
    assert.equal((await new SnapshotManager(new LocalFileIO(), t, 'c').latestSnapshotId()), 5);
  });
});

describe('fast_forward', () => {
  test('main did not move: fast-forwards; a dry run changes nothing; a rerun is a no-op', async () => {
    const { wh, t } = await warehouse('ff');
    const before = await tree(t);
    const dry = row(await call(wh, 'fast_forward', { table: 'db.t', branch: 'b', dry_run: true }));
    assert.equal(dry.copied_snapshot_ids, '3-5');
    assert.deepEqual(await tree(t), before);
    const r = row(await call(wh, 'fast_forward', ['db.t', 'b']));
    assert.deepEqual([r.previous_snapshot_id, r.current_snapshot_id, r.fork_snapshot_id, r.copied_snapshot_ids, r.replaced_snapshot_ids], [2, 5, 2, '3-5', '']);
    assert.equal((await new SnapshotManager(new LocalFileIO(), t).latestSnapshot())?.commitUser, 'branch');
    assert.equal(row(await call(wh, 'fast_forward', { table: 'db.t', branch: 'b' })).copied_snapshot_ids, '');
  });

  test('main moved after the fork: refused (UNSAFE_ARGUMENT) naming what would be lost, done with force', async () => {
    const { wh, t } = await warehouse('ff-moved', false);
    const before = await tree(t);
    const o = await call(wh, 'fast_forward', { table: 'db.t', branch: 'b' });
    assert.equal(code(o), 'UNSAFE_ARGUMENT');
    assert.match(o.ok ? '' : o.error.message, /snapshots 3-4/);
    assert.deepEqual(await tree(t), before);
    const r = row(await call(wh, 'fast_forward', { table: 'db.t', branch: 'b', force: true }));
    assert.equal(r.replaced_snapshot_ids, '3-4');
    assert.equal(r.deleted_files, 2);
    assert.equal((await new SnapshotManager(new LocalFileIO(), t).snapshot(3)).commitUser, 'branch');
  });

  test('a commit on the replaced history landing above the copy (a gap below it) is CONCURRENT_MODIFICATION, committed', async () => {
    const { wh, t } = await warehouse('ff-stray');
    const mainSnapshot = (id: number): string => path.join(t, 'snapshot', `snapshot-${id}`);
    // A writer that read a latest of 6 on the old history commits snapshot 7 right after the
    // branch's last snapshot (5) is copied into main.
    const io = new LocalFileIO();
    const racing = new Proxy(io, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function' || !['writeFile', 'tryCreateAtomic', 'copyFile'].includes(String(prop))) return typeof v === 'function' ? v.bind(target) : v;
        return async (...args: unknown[]) => {
          const out: unknown = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          const to = prop === 'copyFile' ? args[1] : args[0];
          if (to === mainSnapshot(5) && !(await io.exists(mainSnapshot(7)))) await writeFile(mainSnapshot(7), await readFile(mainSnapshot(5), 'utf8'));
          return out;
        };
      },
    });
    const o = await call(wh, 'fast_forward', { table: 'db.t', branch: 'b' }, racing);
    assert.equal(code(o), 'CONCURRENT_MODIFICATION');
    assert.match(o.ok ? '' : o.error.message, /snapshot 7 was committed to db\.t by another writer on top of the replaced history/);
    assert.equal(o.ok ? null : o.error.committed, true, 'the copy was committed: the client is told so');
  });

  test('Java checks: main, current branch, missing branch, branch without snapshot', async () => {
    const { wh } = await warehouse('ff-checks');
    await call(wh, 'create_branch', { table: 'db.t', branch: 'e' });
    assert.equal(code(await call(wh, 'fast_forward', { table: 'db.t', branch: 'main' })), 'INVALID_ARGUMENT');
    assert.equal(code(await call(wh, 'fast_forward', { table: 'db.t$branch_b', branch: 'b' })), 'INVALID_ARGUMENT');
    assert.equal(code(await call(wh, 'fast_forward', { table: 'db.t', branch: 'nope' })), 'BRANCH_NOT_FOUND');
    assert.equal(code(await call(wh, 'fast_forward', { table: 'db.t', branch: 'e' })), 'SNAPSHOT_NOT_FOUND');
  });

  test('a branch fast-forwarded to a branch of it (db.t$branch_b to bb)', async () => {
    const { wh, t } = await warehouse('ff-bb');
    row(await call(wh, 'create_branch', { table: 'db.t$branch_b', branch: 'bb', tag: 'bt4' }));
    await writeSnap(t, 'bb', snap(5, 1, { commitUser: 'bb' }));
    const o = await call(wh, 'fast_forward', { table: 'db.t$branch_b', branch: 'bb' });
    assert.equal(code(o), 'UNSAFE_ARGUMENT', 'b has its own snapshot 5 that bb replaces');
    row(await call(wh, 'fast_forward', { table: 'db.t$branch_b', branch: 'bb', force: true }));
    assert.equal((await new SnapshotManager(new LocalFileIO(), t, 'b').snapshot(5)).commitUser, 'bb');
  });
});

describe('pinned generation', () => {
  test('a commit, tag or branch change between plan and act is CONCURRENT_MODIFICATION', async () => {
    const { wh, t } = await warehouse('pin');
    const catalog = new FileSystemProcedureCatalog('paimon', wh, new LocalFileIO());
    const { context } = createContext({
      procedure: 'fast_forward',
      catalog,
      caller: { user: 'root', connectionId: 1, clientAddress: 'x', currentDatabase: null },
      signal: new AbortController().signal,
      dryRun: false,
      limits: configSchema.parse({}).procedures,
    });
    const table = await context.resolveTable('db.t');
    const pin = await readPin(context, table, ['main', 'b']);
    await checkPin(context, table, pin, 'test');
    await writeSnap(t, 'b', snap(6, 1));
    await assert.rejects(checkPin(context, table, pin, 'test'), (e: Error & { code?: string }) => e.code === 'CONCURRENT_MODIFICATION' && /branch 'b'/.test(e.message));
    const pin2 = await readPin(context, table, ['main']);
    await cp(path.join(t, 'branch', 'branch-b'), path.join(t, 'branch', 'branch-z'), { recursive: true });
    await assert.rejects(checkPin(context, table, pin2, 'test'), /branch 'z' was created/);
  });
});
