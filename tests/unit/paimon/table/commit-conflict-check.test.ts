/**
 * FileStoreCommit's caller conflict rule (`CommitChanges.conflictCheck`): evaluated in every
 * attempt against the snapshot the attempt supersedes, so a concurrent commit that lands after the
 * rule passed, right before our atomic snapshot create, is seen by the retry.
 */
import { describe, test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileIO } from '../../../../src/paimon/fs/local-file-io.js';
import type { FileIO } from '../../../../src/paimon/fs/file-io.js';
import { FileStoreCommit, type FileStoreCommitOptions } from '../../../../src/paimon/table/file-store-commit.js';
import { binaryFieldTypeFromSql, toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import { newAppendFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import type { ManifestEntry } from '../../../../src/paimon/spec/manifest-entry.js';
import { PaimonError, isPaimonError } from '../../../../src/paimon/errors.js';
import type { Snapshot } from '../../../../src/paimon/spec/snapshot.js';

const STRING = binaryFieldTypeFromSql('STRING');

function entry(name: string): ManifestEntry {
  const file = newAppendFileMeta({
    fileName: name, fileSize: 100n, rowCount: 10n, valueStats: EMPTY_STATS, minSequenceNumber: 0n, maxSequenceNumber: 9n, schemaId: 0n, level: 0, creationTime: 1n,
  });
  return { kind: 'ADD', partition: toBinaryRow([STRING], ['x']), bucket: 0, totalBuckets: 1, file };
}

let table = '';
const io = new LocalFileIO();

function committer(extra: Partial<FileStoreCommitOptions> = {}): FileStoreCommit {
  return new FileStoreCommit({
    fileIO: io, tablePath: table, commitUser: 'us', partitionFields: [{ name: 'dt', type: STRING }], bucketMode: 'HASH_FIXED', sleep: async () => undefined, ...extra,
  });
}

/** A store on which another writer commits `b` at the moment our first snapshot create is attempted. */
function racingStore(onRace: () => Promise<void>): { fileIO: FileIO; raced: () => boolean } {
  const store: FileIO = Object.create(io) as FileIO;
  let raced = false;
  store.tryCreateAtomic = async (p, d) => {
    if (!raced && /\/snapshot\/snapshot-\d+$/.test(p)) {
      raced = true;
      await onRace();
    }
    return io.tryCreateAtomic(p, d);
  };
  return { fileIO: store, raced: () => raced };
}

beforeEach(() => {
  table = join(mkdtempSync(join(process.env.TEST_TMP ?? tmpdir(), 'commit-check-')), 't');
  mkdirSync(join(table, 'schema'), { recursive: true });
  writeFileSync(join(table, 'schema', 'schema-0'), '{}');
});

describe('FileStoreCommit conflictCheck', () => {
  test('a commit that lands between the check and the snapshot create is checked by the retry: COMMIT_CONFLICT, the table is the other writer\'s', async () => {
    await committer().commit({ kind: 'APPEND', deltaEntries: [entry('a')], commitIdentifier: 1n });
    const seen: Array<number | null> = [];
    const { fileIO, raced } = racingStore(async () => {
      await committer({ commitUser: 'other' }).commit({ kind: 'APPEND', deltaEntries: [entry('b')], commitIdentifier: 7n, properties: { touches: 'bucket-0' } });
    });
    const manifestsBefore = new Set(readdirSync(join(table, 'manifest')));
    // The rule: no snapshot after 1 may carry the property (stands in for "the bucket's vectors changed").
    const conflictCheck = async (latest: Snapshot | null): Promise<void> => {
      seen.push(latest?.id ?? null);
      if (latest?.properties?.touches === 'bucket-0') throw new PaimonError('COMMIT_CONFLICT', `bucket-0 changed in snapshot ${latest.id}`);
    };
    await assert.rejects(
      committer({ fileIO }).commit({ kind: 'COMPACT', deltaEntries: [entry('c')], commitIdentifier: 2n, conflictCheck }),
      (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT') && /bucket-0 changed in snapshot 2/.test((e as Error).message),
    );
    assert.ok(raced());
    assert.deepEqual(seen, [1, 2], 'evaluated against snapshot 1, then, after losing the id, against the concurrent snapshot 2');
    const c = committer();
    const latest = await c.snapshotManager.latestSnapshot();
    assert.equal(latest?.id, 2);
    assert.equal(latest?.commitUser, 'other');
    assert.deepEqual((await c.scan.readLiveEntries(latest!)).map((e) => e.file.fileName).sort(), ['a', 'b']);
    // Our lost attempt's manifests were removed; what is left was written by the other writer.
    const otherFiles = new Set([latest!.baseManifestList, latest!.deltaManifestList]);
    for (const m of await c.manifestList.read(latest!.deltaManifestList)) otherFiles.add(m.fileName);
    for (const m of await c.manifestList.read(latest!.baseManifestList)) otherFiles.add(m.fileName);
    for (const f of readdirSync(join(table, 'manifest'))) assert.ok(manifestsBefore.has(f) || otherFiles.has(f), `leftover manifest ${f}`);
  });

  test('a rule that still holds after the race lets the retry commit on the next id', async () => {
    await committer().commit({ kind: 'APPEND', deltaEntries: [entry('a')], commitIdentifier: 1n });
    const seen: number[] = [];
    const { fileIO } = racingStore(async () => {
      await committer({ commitUser: 'other' }).commit({ kind: 'APPEND', deltaEntries: [entry('b')], commitIdentifier: 7n });
    });
    const r = await committer({ fileIO }).commit({
      kind: 'APPEND', deltaEntries: [entry('c')], commitIdentifier: 2n, conflictCheck: async (latest) => void seen.push(latest!.id),
    });
    assert.equal(r.snapshot.id, 3);
    assert.equal(r.attempts, 2);
    assert.deepEqual(seen, [1, 2]);
  });

  test('the rule sees "no snapshot" on an empty table and its refusal writes nothing', async () => {
    let arg: Snapshot | null | undefined;
    await assert.rejects(
      committer().commit({
        kind: 'APPEND', deltaEntries: [entry('a')], commitIdentifier: 1n,
        conflictCheck: async (latest) => {
          arg = latest;
          throw new PaimonError('COMMIT_CONFLICT', 'no');
        },
      }),
      (e: unknown) => isPaimonError(e, 'COMMIT_CONFLICT'),
    );
    assert.equal(arg, null);
    assert.deepEqual(readdirSync(table).sort(), ['schema']);
  });
});
