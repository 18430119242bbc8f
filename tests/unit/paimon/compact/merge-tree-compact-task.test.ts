/**
 * planSections' upgrade/rewrite decision for large non-overlapping files, as
 * `MergeTreeCompactTask.upgrade` of Paimon 1.4.2 and 2.0.0 decides it (same bytecode in both):
 * rewrite the file on its own when the output is the max level and it may hold retract rows
 * (deleteRowCount > 0 or unknown), or when all files are force-rewritten, whatever its level;
 * otherwise change its level, or leave it when it is at the output level already. And
 * `CompactStrategy.pickFullCompaction` for a bucket that is one run at the max level already:
 * only force-rewritten files or files with a deletion vector, each rewritten on its own
 * (`CompactUnit.fromFiles(maxLevel, files, true)` -> `FileRewriteCompactTask`).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { toBinaryRow } from '../../../../src/paimon/spec/binary-row.js';
import { EMPTY_STATS } from '../../../../src/paimon/spec/simple-stats.js';
import type { DataFileMeta } from '../../../../src/paimon/spec/data-file-meta.js';
import { binaryKeyComparator, levelSortedRuns, pickFullCompaction, planSections, type SectionStep } from '../../../../src/paimon/compact/interval-partition.js';
import type { FieldType } from '../../../../src/paimon/data/field-type.js';

const INT: FieldType = { root: 'INT', nullable: false };
const key = (n: number) => toBinaryRow([{ root: 'INT' }], [n]);
const cmp = binaryKeyComparator([INT]);

let seq = 0;
function file(name: string, level: number, min: number, max: number, del: bigint | null, size = 10_000): DataFileMeta {
  seq += 10;
  return {
    fileName: name, fileSize: BigInt(size), rowCount: 10n, minKey: key(min), maxKey: key(max), keyStats: EMPTY_STATS, valueStats: EMPTY_STATS,
    minSequenceNumber: BigInt(seq), maxSequenceNumber: BigInt(seq + 9), schemaId: 0n as unknown as DataFileMeta['schemaId'], level, extraFiles: [],
    creationTime: 0n as unknown as DataFileMeta['creationTime'], deleteRowCount: del, embeddedIndex: null, fileSource: 0, valueStatsCols: null, externalPath: null,
    firstRowId: null, writeCols: null,
  } as DataFileMeta;
}

const show = (steps: SectionStep[]): string[] =>
  steps.map((s) => (s.kind === 'rewrite' ? `rewrite:${s.sections.flat(2).map((f) => f.fileName).sort().join('+')}` : `${s.kind}:${s.file.fileName}`));

describe('MergeTreeCompactTask.upgrade in planSections', () => {
  // Disjoint large files (one section each, so each goes through upgrade()).
  const maxClean = file('max-clean', 5, 0, 9, 0n);
  const maxDel = file('max-del', 5, 10, 19, 4n);
  const maxUnknown = file('max-unknown', 5, 20, 29, null);
  const l0Clean = file('l0-clean', 0, 30, 39, 0n);
  const l0Del = file('l0-del', 0, 40, 49, 2n);
  const l0Unknown = file('l0-unknown', 0, 50, 59, null);
  const l3Del = file('l3-del', 3, 60, 69, 1n);
  const all = [maxClean, maxDel, maxUnknown, l0Clean, l0Del, l0Unknown, l3Del];

  test('to the max level: files that may hold retracts are rewritten, even those at the max level already; clean ones are upgraded or left', () => {
    assert.deepEqual(show(planSections({ outputLevel: 5, files: all }, cmp, { minFileSize: 700, maxLevel: 5 })), [
      'rewrite-file:max-del', 'rewrite-file:max-unknown', 'upgrade:l0-clean', 'rewrite-file:l0-del', 'rewrite-file:l0-unknown', 'rewrite-file:l3-del',
    ]);
  });

  test('below the max level: retracts are kept, so every large file is upgraded (or left at the output level)', () => {
    const files = [l0Clean, l0Del, l0Unknown, file('l3-at-output', 3, 70, 79, 5n), file('l1', 1, 80, 89, null)];
    assert.deepEqual(show(planSections({ outputLevel: 3, files }, cmp, { minFileSize: 700, maxLevel: 5 })), [
      'upgrade:l0-clean', 'upgrade:l0-del', 'upgrade:l0-unknown', 'upgrade:l1',
    ]);
  });

  test('compaction.force-rewrite-all-files rewrites every file on its own, at any level', () => {
    assert.deepEqual(show(planSections({ outputLevel: 5, files: all }, cmp, { minFileSize: 700, maxLevel: 5, forceRewriteAllFiles: true })), all.map((f) => `rewrite-file:${f.fileName}`));
  });

  test('a single small section is upgraded file by file through the same rule; small neighbours are merged first', () => {
    // A lone small file: rewrite() hands it to upgrade(); two disjoint small files are merged together.
    const a = file('small-max-del', 5, 0, 4, 3n, 100);
    const b = file('small-max-clean', 5, 5, 9, 0n, 100);
    assert.deepEqual(show(planSections({ outputLevel: 5, files: [a] }, cmp, { minFileSize: 700, maxLevel: 5 })), ['rewrite-file:small-max-del']);
    assert.deepEqual(show(planSections({ outputLevel: 5, files: [b] }, cmp, { minFileSize: 700, maxLevel: 5 })), []);
    assert.deepEqual(show(planSections({ outputLevel: 5, files: [a, b] }, cmp, { minFileSize: 700, maxLevel: 5 })), ['rewrite:small-max-clean+small-max-del']);
    // Two small files then a large one with deletes at the max level: the small ones merge, the large one is rewritten alone.
    const s1 = file('s1', 0, 100, 104, 0n, 100), s2 = file('s2', 0, 102, 108, 0n, 100);
    assert.deepEqual(show(planSections({ outputLevel: 5, files: [s1, s2, maxDel] }, cmp, { minFileSize: 700, maxLevel: 5 })), ['rewrite-file:max-del', 'rewrite:s1+s2']);
  });
});

describe('CompactStrategy.pickFullCompaction of a single max-level run', () => {
  // Small disjoint max-level files: MergeTreeCompactTask would merge them; FileRewriteCompactTask does not.
  const top = [file('t1', 5, 0, 4, 0n, 100), file('t2', 5, 5, 9, 0n, 100), file('t3', 5, 10, 14, 0n, 20_000)];
  const runs = levelSortedRuns(top, cmp);

  test('nothing to do without force or vectors', () => {
    assert.equal(pickFullCompaction(6, runs), null);
    assert.equal(pickFullCompaction(6, runs, false, () => false), null);
  });

  test('compaction.force-rewrite-all-files: every file, each rewritten on its own', () => {
    const unit = pickFullCompaction(6, runs, true);
    assert.deepEqual(unit && { level: unit.outputLevel, files: unit.files.map((f) => f.fileName), fileRewrite: unit.fileRewrite }, { level: 5, files: ['t1', 't2', 't3'], fileRewrite: true });
    assert.deepEqual(show(planSections(unit!, cmp, { minFileSize: 700, maxLevel: 5, forceRewriteAllFiles: true })), ['rewrite-file:t1', 'rewrite-file:t2', 'rewrite-file:t3']);
  });

  test('with a deletion-vector maintainer: only the files that have a vector', () => {
    const unit = pickFullCompaction(6, runs, false, (n) => n === 't1' || n === 't2');
    assert.deepEqual(unit?.files.map((f) => f.fileName), ['t1', 't2']);
    assert.deepEqual(show(planSections(unit!, cmp, { minFileSize: 700, maxLevel: 5 })), ['rewrite-file:t1', 'rewrite-file:t2']);
  });

  test('more than one run: every run to the max level, planned by MergeTreeCompactTask (small neighbours merged)', () => {
    const unit = pickFullCompaction(6, levelSortedRuns([...top, file('l0', 0, 20, 24, 0n, 100)], cmp), true);
    assert.equal(unit?.fileRewrite, undefined);
    assert.deepEqual(show(planSections(unit!, cmp, { minFileSize: 700, maxLevel: 5, forceRewriteAllFiles: true })), ['rewrite:t1+t2', 'rewrite-file:t3', 'rewrite-file:l0']);
  });
});
