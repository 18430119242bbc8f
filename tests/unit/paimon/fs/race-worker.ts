/**
 * One racing committer, run as its own process by the FileIO race tests:
 *   node --import tsx race-worker.ts '<json: {table, commitUser, properties}>'
 * Prints "ready", then reads rounds from stdin, one JSON line each: {"snapshotId": n, "startAt": ms}.
 * For each round it waits until `startAt` (so that all workers fire at the same instant),
 * commits snapshot n through SnapshotManager.commitSnapshot (FileIO.tryCreateAtomic + LATEST),
 * and prints {"won": boolean} (or {"error": message}) on one line.
 */
import { createInterface } from 'node:readline';
import { createFileIO } from '../../../../src/paimon/fs/file-io-factory.js';
import { SnapshotManager } from '../../../../src/paimon/table/snapshot-manager.js';
import type { Snapshot } from '../../../../src/paimon/spec/snapshot.js';

interface Args {
  table: string;
  commitUser: string;
  properties: Record<string, string>;
}

const args = JSON.parse(process.argv[2]) as Args;
const fileIO = createFileIO(args.table, args.properties);
const sm = new SnapshotManager(fileIO, args.table);

function snapshotFor(id: number): Snapshot {
  return {
    version: 3,
    id,
    schemaId: 0,
    baseManifestList: `manifest-list-${args.commitUser}-0`,
    deltaManifestList: `manifest-list-${args.commitUser}-1`,
    commitUser: args.commitUser,
    commitIdentifier: 9223372036854775807n,
    commitKind: 'APPEND',
    timeMillis: Date.now(),
    totalRecordCount: 1n,
    deltaRecordCount: 1n,
  };
}

process.stdout.write('ready\n');
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  if (line.trim() === '') continue;
  const round = JSON.parse(line) as { snapshotId: number; startAt: number };
  const snapshot = snapshotFor(round.snapshotId);
  const wait = round.startAt - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  try {
    const won = await sm.commitSnapshot(snapshot);
    process.stdout.write(JSON.stringify({ won }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: (e as Error).message }) + '\n');
  }
}
await fileIO.close();
