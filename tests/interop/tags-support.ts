/**
 * Support for the tag-procedure interop tests: Paimon Java's own tag lifecycle through
 * tests/interop/java/TagTool.java (many steps in one JVM), one Java-written table history per
 * version shared by every test of a run (sharedDirectory), and the comparisons (files on disk,
 * tag files without their creation time).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { java, parseJson, sharedDirectory, tempWarehouse, type PaimonJavaVersion } from './peers.js';
import { copyWarehouse, listTree } from './procedures-support.js';

export const DB = 'interop';
export const TBL = 't';
export const TABLE_DIR = 'interop.db/t';

export interface StepResult {
  ok: boolean;
  stdout: string;
  error?: string;
}

/** TagTool / PaimonTool commands in ONE JVM; rejects on the first failing step unless `allowFailure`. */
export async function tagBatch(v: PaimonJavaVersion, steps: string[][], opts: { allowFailure?: boolean } = {}): Promise<StepResult[]> {
  const f = join(tempWarehouse('tag-batch'), 'steps.json');
  writeFileSync(f, JSON.stringify(steps));
  const r = await java(v).runMain('TagTool', ['batch', f], { timeoutMs: 600_000 });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  const results = (parseJson(last) as unknown as { results: StepResult[] }).results;
  if (!opts.allowFailure) {
    const bad = results.findIndex((x) => !x.ok);
    if (bad >= 0 || results.length !== steps.length) {
      const i = bad >= 0 ? bad : results.length;
      throw new Error(`TagTool batch step ${i} (${(steps[i] ?? []).join(' ')}) failed: ${results[i]?.error ?? 'not run'}`);
    }
  }
  return results;
}

/**
 * The shared history (written by Paimon `v`): a primary-key table partitioned by dt (new-style
 * partition names, so pypaimon reads it too), two buckets. Snapshots 1-5 insert ids 0-4; tags
 * tag1@1, tag3@3; 6-10 update the same keys; tag_keep@7 (retained 1 day), tag8@8; a full
 * compaction (11) drops the overwritten files; 12-14 insert more; tag_mid and tag_mid2 both @14;
 * 15-17 update; a compaction (18); then snapshots expire down to 17-18, so every tag but none of
 * the snapshots they point at remains; last tag_ttl@3 (retained 1 ms: expired by time).
 */
export function tagsHistory(v: PaimonJavaVersion): Promise<string> {
  return sharedDirectory(`tags-history-${v}`, async (staging) => {
    const wh = join(staging, 'wh');
    const schema = join(staging, 'schema.json');
    writeFileSync(
      schema,
      JSON.stringify({
        fields: [
          { name: 'id', type: 'INT NOT NULL' },
          { name: 'dt', type: 'DATE NOT NULL' },
          { name: 'v', type: 'STRING' },
        ],
        primaryKeys: ['dt', 'id'],
        partitionKeys: ['dt'],
        options: { bucket: '2', 'write-only': 'true', 'partition.legacy-name': 'false' },
      }),
    );
    const s = (...a: string[]): string[] => a;
    await tagBatch(v, [
      s('create-table', wh, DB, TBL, schema),
      s('write-loop', wh, DB, TBL, '5', '0', '0'),
      s('create-tag', wh, DB, TBL, 'tag1', '1'),
      s('create-tag', wh, DB, TBL, 'tag3', '3'),
      s('write-loop', wh, DB, TBL, '5', '0', '0'),
      s('create-tag', wh, DB, TBL, 'tag_keep', '7', '86400000'),
      s('create-tag', wh, DB, TBL, 'tag8', '8'),
      s('compact', wh, DB, TBL),
      s('write-loop', wh, DB, TBL, '3', '0', '100'),
      s('create-tag', wh, DB, TBL, 'tag_mid', '14'),
      s('create-tag', wh, DB, TBL, 'tag_mid2', '14'),
      s('write-loop', wh, DB, TBL, '3', '0', '0'),
      s('compact', wh, DB, TBL),
      s('expire', wh, DB, TBL, '2', '2', String(Date.now() + 60_000), '2147483647'),
      // Last: a commit would already expire it (Paimon's writer runs TagTimeExpire after commits).
      s('create-tag', wh, DB, TBL, 'tag_ttl', '3', '1'),
    ]);
  });
}

/** The history's warehouse inside the shared directory. */
export function historyWarehouseOf(shared: string): string {
  return join(shared, 'wh');
}

/** Two fresh copies of the shared history: `a` for Paimon Java, `b` for ours. */
export function copies(shared: string, label: string): { a: string; b: string } {
  const dir = tempWarehouse(label);
  const a = join(dir, 'java');
  const b = join(dir, 'ours');
  copyWarehouse(historyWarehouseOf(shared), a);
  copyWarehouse(historyWarehouseOf(shared), b);
  return { a, b };
}

/** Files of the table (relative, sorted; Java's .crc side files ignored). */
export function tableFiles(wh: string): string[] {
  return listTree(join(wh, TABLE_DIR));
}

/** Every tag file of the table's main branch as JSON, without tagCreateTime (the wall clock of whoever wrote it). */
export function tagContents(wh: string): Record<string, unknown> {
  const dir = join(wh, TABLE_DIR, 'tag');
  const out: Record<string, unknown> = {};
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((n) => n.startsWith('tag-')).sort()) {
    const json = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
    delete json.tagCreateTime;
    out[f.slice(4)] = json;
  }
  return out;
}

/** Java's operation on `a` and ours on `b` left the same files and the same tags. */
export function assertSameFiles(a: string, b: string, what: string): void {
  assert.deepEqual(tableFiles(b), tableFiles(a), `${what}: same files on disk as Paimon Java`);
  assert.deepEqual(tagContents(b), tagContents(a), `${what}: same tag files (creation time aside)`);
}

/** Tag names of the table's main branch in `wh`. */
export function tagNames(wh: string): string[] {
  return Object.keys(tagContents(wh));
}

/** Rows printed by a PaimonTool `read` step, sorted. */
export function rowsOf(r: StepResult): string[] {
  return r.stdout.split('\n').filter((l) => l.trim() !== '').sort();
}
