/**
 * Metadata-only branch histories for the branch unit tests (snapshot, schema and tag files laid
 * out as Paimon lays them out; no data files), and a FileIO that stops at a given storage step.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../../../src/paimon/fs/file-io.js';
import { BranchManager } from '../../../../src/paimon/table/branch-manager.js';
import { SchemaManager } from '../../../../src/paimon/table/schema-manager.js';
import { SnapshotManager } from '../../../../src/paimon/table/snapshot-manager.js';
import { TagManager } from '../../../../src/paimon/table/tag-manager.js';
import { snapshotToJson, type Snapshot } from '../../../../src/paimon/spec/snapshot.js';
import { DataTypes } from '../../../../src/paimon/spec/data-types.js';

const MUTATING = new Set(['writeFile', 'tryCreateAtomic', 'writeStream', 'delete', 'deleteMany', 'deleteDirectory', 'rename', 'copyFile', 'mkdirs']);

export class Stop extends Error {}

/**
 * A FileIO that throws before its `stopAt`-th mutating call and every later one (a dead process
 * writes nothing more, even where the code retries); counts them.
 */
export function stoppingIO(stopAt: number, objectStore = false): { io: FileIO; count: () => number } {
  const base = new LocalFileIO();
  let n = 0;
  const io = new Proxy(base, {
    get(target, prop, receiver) {
      if (prop === 'isObjectStore') return objectStore;
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const fn = v as (...a: unknown[]) => unknown;
      if (!MUTATING.has(String(prop))) return fn.bind(target);
      return (...a: unknown[]) => {
        n++;
        if (stopAt > 0 && n >= stopAt) throw new Stop(`stopped at step ${stopAt}`);
        return fn.apply(target, a);
      };
    },
  }) as FileIO;
  return { io, count: () => n };
}

export function snap(id: number, schemaId: number, extra: Partial<Snapshot> = {}): Snapshot {
  return {
    version: 3,
    id,
    schemaId,
    baseManifestList: `manifest-list-b-${id}`,
    deltaManifestList: `manifest-list-d-${id}`,
    commitUser: 'u',
    commitIdentifier: BigInt(id),
    commitKind: 'APPEND',
    timeMillis: 1000 * id,
    totalRecordCount: BigInt(id),
    deltaRecordCount: 1n,
    ...extra,
  };
}

export async function writeSnap(table: string, branch: string, s: Snapshot): Promise<void> {
  const sm = new SnapshotManager(new LocalFileIO(), table, branch);
  await mkdir(sm.snapshotDirectory(), { recursive: true });
  await writeFile(sm.snapshotPath(s.id), snapshotToJson(s));
  await writeFile(path.join(sm.snapshotDirectory(), 'LATEST'), String(s.id));
}

/** main: snapshots 1-4 (tag t2 on 2); branch b from t2 with 3-5 of its own and a schema change; main moved on (3, 4) unless `mainStays`. */
export async function buildTable(dir: string, mainStays: boolean): Promise<string> {
  const io = new LocalFileIO();
  const t = path.join(dir, 'db.db', 't');
  const schemas = new SchemaManager(io, t);
  await schemas.createTable({ fields: [{ id: 0, name: 'id', type: DataTypes.simple('INT') }] });
  for (const id of [1, 2]) await writeSnap(t, 'main', snap(id, 0));
  await new TagManager(io, t).createTag(await new SnapshotManager(io, t).snapshot(2), 't2');
  await new BranchManager(io, t).createBranchFromTag('b', 't2');
  const bs = new SchemaManager(io, t, 'b');
  await writeFile(bs.schemaPath(1), (await readFile(schemas.schemaPath(0), 'utf8')).replace('"id" : 0', '"id" : 1'));
  for (const id of [3, 4, 5]) await writeSnap(t, 'b', snap(id, 1, { commitUser: 'branch' }));
  await new TagManager(io, t, 'b').createTag(await new SnapshotManager(io, t, 'b').snapshot(4), 'bt4');
  if (!mainStays) for (const id of [3, 4]) await writeSnap(t, 'main', snap(id, 0, { commitUser: 'main' }));
  return t;
}

export async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out[path.relative(dir, p)] = await readFile(p, 'utf8');
    }
  };
  await walk(dir);
  return out;
}

