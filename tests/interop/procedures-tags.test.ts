/**
 * The tag procedures against Paimon Java's own tag lifecycle (TagTool.java: Table.deleteTags,
 * renameTag, replaceTag, TagTimeExpire, TagAutoManager; PaimonTool: createTag), on copies of one Java-written
 * history per version (tags with and without time_retained, all on expired snapshots, two on
 * one snapshot): Java and ours leave the same files and the same tag files; Java 1.4.2/2.0.0
 * and pypaimon read the same rows at every remaining tag of both copies; Java's `check` passes on
 * ours and Java keeps writing on it afterwards. Then what we do differently on purpose: a tag
 * a branch was created from keeps the branch's files, and two concurrent create_tag of one name
 * give one success and one TAG_ALREADY_EXISTS.
 *
 * Java calls are batched: per version one JVM builds the history, one runs every Java
 * operation, one runs every check and read.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { CatalogSet, FileSystemProcedureCatalog } from '../../src/catalogs.js';
import { ProcedureExecutor } from '../../procedures/framework/executor.js';
import { ProcedureRegistry } from '../../procedures/framework/registry.js';
import { configSchema } from '../../src/config-schema.js';
import { tagProcedures } from '../../procedures/tags/index.js';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callNamed, copyWarehouse, executorFor, firstRow } from './procedures-support.js';
import { canonicalSort, tempWarehouse, type PaimonJavaVersion, pypaimons } from './peers.js';
import { assertSameFiles, copies, DB, rowsOf, TABLE_DIR, tableFiles, tagBatch, tagNames, tagsHistory, TBL, type StepResult } from './tags-support.js';

const T = `${DB}.${TBL}`;

interface Scenario {
  name: string;
  /** Java's steps on copy `a` (TagTool / PaimonTool argument lists, without the warehouse prefix). */
  java: (a: string) => string[][];
  /** Ours on copy `b`: the result rows. */
  ours: (b: string) => Promise<Record<string, unknown>[]>;
  /** Applied to both copies first. */
  prepare?: (wh: string) => void;
}

/**
 * Automatic creation on the history: tag1 and tag8 renamed to daily auto-tag names, and a new
 * schema turning on process-time daily tags with at most two auto tags. Paimon then creates
 * yesterday's tag on the earliest snapshot, drops the oldest auto tag (alone on its expired
 * snapshot, so with its files) and expires tag_ttl (tag.time-expire-enabled).
 */
function enableAutoTags(wh: string): void {
  const dir = join(wh, TABLE_DIR);
  renameSync(join(dir, 'tag', 'tag-tag1'), join(dir, 'tag', 'tag-2020-01-01'));
  renameSync(join(dir, 'tag', 'tag-tag8'), join(dir, 'tag', 'tag-2020-01-02'));
  const schema = JSON.parse(readFileSync(join(dir, 'schema', 'schema-0'), 'utf8'));
  schema.id = 1;
  Object.assign(schema.options, { 'tag.automatic-creation': 'process-time', 'tag.creation-period': 'daily', 'tag.num-retained-max': '2' });
  writeFileSync(join(dir, 'schema', 'schema-1'), JSON.stringify(schema, null, 2));
}

async function rows(wh: string, procedure: string, args: Record<string, string | number | boolean | null>): Promise<Record<string, unknown>[]> {
  const o = await callNamed(executorFor(wh, tagProcedures), procedure, { table: T, ...args });
  if (!o.ok) throw new Error(`${procedure} failed: ${o.error.code}: ${o.error.message}`);
  return o.result.rows;
}

/** Set after each version's history is built: later than every tag of it. */
let olderThan = 0;

const SCENARIOS: Scenario[] = [
  {
    name: 'delete one tag on an expired snapshot',
    java: (a) => [['delete-tags', a, DB, TBL, 'tag3']],
    ours: (b) => rows(b, 'delete_tag', { tag: 'tag3' }),
  },
  {
    name: 'delete a list (one of two tags of a snapshot, and two alone)',
    java: (a) => [['delete-tags', a, DB, TBL, 'tag1, tag_mid ,tag8']],
    ours: (b) => rows(b, 'delete_tag', { tag: 'tag1, tag_mid ,tag8' }),
  },
  {
    name: 'delete both tags of one snapshot',
    java: (a) => [['delete-tags', a, DB, TBL, 'tag_mid,tag_mid2']],
    ours: (b) => rows(b, 'delete_tag', { tag: 'tag_mid,tag_mid2' }),
  },
  {
    name: 'rename',
    java: (a) => [['rename-tag', a, DB, TBL, 'tag3', 'tag3_renamed']],
    ours: (b) => rows(b, 'rename_tag', { tag: 'tag3', target_tag: 'tag3_renamed' }),
  },
  {
    name: 'replace with another snapshot and a retention',
    java: (a) => [['replace-tag', a, DB, TBL, 'tag8', '17', '3600000']],
    ours: (b) => rows(b, 'replace_tag', { tag: 'tag8', snapshot_id: 17, time_retained: '1 h' }),
  },
  {
    name: 'create on a snapshot only a tag still holds',
    java: (a) => [['create-tag', a, DB, TBL, 'tag_new', '14']],
    ours: (b) => rows(b, 'create_tag', { tag: 'tag_new', snapshot_id: 14 }),
  },
  {
    name: 'expire_tags: the tag whose retention passed',
    java: (a) => [['expire-tags', a, DB, TBL, '-']],
    ours: (b) => rows(b, 'expire_tags', {}),
  },
  {
    name: 'trigger_tag_automatic_creation',
    prepare: enableAutoTags,
    java: (a) => [['auto-tag', a, DB, TBL]],
    ours: (b) => rows(b, 'trigger_tag_automatic_creation', {}),
  },
  {
    name: 'expire_tags older_than: every tag',
    java: (a) => [['expire-tags', a, DB, TBL, String(olderThan)]],
    ours: (b) => rows(b, 'expire_tags', { older_than: String(olderThan) }),
  },
];

const VERSIONS: PaimonJavaVersion[] = ['1.4', '2.0'];

for (const v of VERSIONS) {
  describe(`tag procedures vs Paimon ${v} tag lifecycle`, () => {
    const pairs = new Map<string, { a: string; b: string; ours: Record<string, unknown>[] }>();
    let javaOut: StepResult[] = [];
    let verify: StepResult[] = [];
    const verifySteps: string[][] = [];
    const verifyIndex = new Map<string, number>();
    let shared: string;

    before(async () => {
      shared = await tagsHistory(v);
      olderThan = Date.now() + 30_000;
      for (const s of SCENARIOS) {
        const pair = copies(shared, `tags-${v}`);
        s.prepare?.(pair.a);
        s.prepare?.(pair.b);
        pairs.set(s.name, { ...pair, ours: [] });
      }
      // Every Java operation in one JVM, then ours.
      javaOut = await tagBatch(v, SCENARIOS.flatMap((s) => s.java(pairs.get(s.name)!.a)));
      for (const s of SCENARIOS) {
        const p = pairs.get(s.name)!;
        p.ours = await s.ours(p.b);
      }
      // Every check and read in one JVM: ours must pass Java's check, both copies read alike at
      // every remaining tag and at the latest snapshot, and Java keeps writing on ours.
      const add = (key: string, step: string[]): void => {
        verifyIndex.set(key, verifySteps.length);
        verifySteps.push(step);
      };
      for (const s of SCENARIOS) {
        const { a, b } = pairs.get(s.name)!;
        add(`${s.name}/check`, ['check', b, DB, TBL]);
        for (const tag of tagNames(b)) {
          add(`${s.name}/a/${tag}`, ['read', a, DB, TBL, `tag:${tag}`]);
          add(`${s.name}/b/${tag}`, ['read', b, DB, TBL, `tag:${tag}`]);
        }
        add(`${s.name}/a/latest`, ['read', a, DB, TBL]);
        add(`${s.name}/b/latest`, ['read', b, DB, TBL]);
      }
      // On a copy, so that the comparisons above see our result as it was.
      const last = join(tempWarehouse(`tags-after-${v}`), 'wh');
      copyWarehouse(pairs.get(SCENARIOS[SCENARIOS.length - 1].name)!.b, last);
      add('write-after', ['write-loop', last, DB, TBL, '2', '0', '500']);
      add('check-after', ['check', last, DB, TBL]);
      verify = await tagBatch(v, verifySteps);
    });

    const step = (key: string): StepResult => {
      const i = verifyIndex.get(key);
      assert.ok(i !== undefined, `no verification step ${key}`);
      return verify[i];
    };

    for (const s of SCENARIOS) {
      test(`${s.name}: same files and tags as Java; same rows at every tag; Java's check passes on ours`, () => {
        const { a, b } = pairs.get(s.name)!;
        assertSameFiles(a, b, s.name);
        assert.ok(step(`${s.name}/check`).ok);
        for (const tag of tagNames(b)) {
          const rowsA = rowsOf(step(`${s.name}/a/${tag}`));
          assert.ok(rowsA.length > 0, `tag ${tag} has rows`);
          assert.deepEqual(rowsOf(step(`${s.name}/b/${tag}`)), rowsA, `rows at tag ${tag}`);
        }
        assert.deepEqual(rowsOf(step(`${s.name}/b/latest`)), rowsOf(step(`${s.name}/a/latest`)));
      });
    }

    test('the results say what changed', () => {
      const del = pairs.get(SCENARIOS[0].name)!.ours[0];
      assert.equal(del.result, true);
      assert.equal(del.deleted_tags, 'tag3');
      assert.equal(del.snapshot_ids, '3');
      const list = pairs.get(SCENARIOS[1].name)!.ours[0];
      assert.equal(list.deleted_tags, 'tag1,tag_mid,tag8');
      assert.ok(Number(list.deleted_files) > 3, 'tag1 and tag8 took files with them');
      const expired = pairs.get('expire_tags: the tag whose retention passed')!.ours.map((r) => r.expired_tags);
      const javaExpired = JSON.parse(javaOut[SCENARIOS.findIndex((x) => x.name === 'expire_tags: the tag whose retention passed')].stdout.trim()).expired;
      assert.deepEqual(expired, javaExpired);
      assert.deepEqual(expired, ['tag_ttl']);
      const auto = pairs.get('trigger_tag_automatic_creation')!.ours[0];
      const javaTags = JSON.parse(javaOut[SCENARIOS.findIndex((x) => x.name === 'trigger_tag_automatic_creation')].stdout.trim()).tags as string[];
      assert.equal(String(auto.created_tags).length, 10, 'a daily tag was created');
      assert.ok(javaTags.includes(String(auto.created_tags)), `Java created ${auto.created_tags} too`);
      assert.equal(auto.deleted_tags, '2020-01-01');
      assert.equal(auto.expired_tags, 'tag_ttl');
      const all = pairs.get('expire_tags older_than: every tag')!.ours.map((r) => String(r.expired_tags)).sort();
      assert.deepEqual(all, ['tag1', 'tag3', 'tag8', 'tag_keep', 'tag_mid', 'tag_mid2', 'tag_ttl']);
    });

    test('Java keeps writing on our result and its check still passes', () => {
      assert.ok(step('write-after').ok);
      assert.ok(step('check-after').ok);
    });

    if (v === '2.0') {
      test('pypaimon reads the same rows as Java at a remaining tag and the latest snapshot of ours', async () => {
        const { b } = pairs.get(SCENARIOS[0].name)!;
        const javaAtTag = rowsOf(step(`${SCENARIOS[0].name}/b/tag8`)).map((l) => JSON.parse(l));
        const pyAtTag = await pypaimons.read(b, DB, TBL, 'tag:tag8');
        assert.deepEqual(canonicalSort(pyAtTag), canonicalSort(javaAtTag));
        const pyLatest = await pypaimons.read(b, DB, TBL);
        assert.deepEqual(canonicalSort(pyLatest), canonicalSort(rowsOf(step(`${SCENARIOS[0].name}/b/latest`)).map((l) => JSON.parse(l))));
      });

      test('a tag a branch was created from: ours keeps what the branch reads (Java deletes at least as much)', async () => {
        const { a, b } = copies(shared, `tags-branch-${v}`);
        // tag1 is alone on snapshot 1; branch b1 starts from it (its snapshot 1 names tag1's manifest lists).
        const [, , branchBefore] = await tagBatch(v, [
          ['create-branch', a, DB, TBL, 'b1', 'tag1'],
          ['create-branch', b, DB, TBL, 'b1', 'tag1'],
          ['read', b, DB, TBL, 'branch:b1'],
          ['delete-tags', a, DB, TBL, 'tag1'],
        ]);
        const before = tableFiles(b);
        const r = firstRow(await callNamed(executorFor(b, tagProcedures), 'delete_tag', { table: T, tag: 'tag1' }));
        assert.equal(r.deleted_tags, 'tag1');
        const after = new Set(tableFiles(b));
        const oursGone = before.filter((f) => !after.has(f));
        const javaAfter = new Set(tableFiles(a));
        const javaGone = before.filter((f) => !javaAfter.has(f));
        assert.ok(oursGone.includes('tag/tag-tag1'));
        assert.ok(oursGone.every((f) => javaGone.includes(f)), 'we delete nothing Java keeps');
        const [listed, branchAfter] = await tagBatch(v, [
          ['list-files', b, DB, TBL],
          ['read', b, DB, TBL, 'branch:b1'],
        ]);
        const reachable = (JSON.parse(listed.stdout.trim()) as { files: string[] }).files;
        const missing = reachable.filter((f) => !after.has(f) && !f.startsWith('/') && !f.includes('://'));
        assert.deepEqual(missing, [], 'every file a snapshot, tag or branch of ours reaches is still there');
        assert.ok(rowsOf(branchAfter).length > 0);
        assert.deepEqual(rowsOf(branchAfter), rowsOf(branchBefore), 'the branch reads as before');
      });

      test('two concurrent create_tag of one name: one success, one TAG_ALREADY_EXISTS; Java reads the winner', async () => {
        const { b } = copies(shared, `tags-race-${v}`);
        // Two executors: two proxies, each with its own table lock, racing on one warehouse.
        const make = () =>
          new ProcedureExecutor({
            registry: new ProcedureRegistry(tagProcedures),
            catalogs: new CatalogSet([new FileSystemProcedureCatalog('paimon', b, new LocalFileIO())]),
            limits: configSchema.parse({}).procedures,
          });
        const [x, y] = await Promise.all([
          callNamed(make(), 'create_tag', { table: T, tag: 'race', snapshot_id: 17 }),
          callNamed(make(), 'create_tag', { table: T, tag: 'race', snapshot_id: 14 }),
        ]);
        const oks = [x, y].filter((o) => o.ok);
        const fails = [x, y].filter((o) => !o.ok);
        assert.equal(oks.length, 1);
        assert.equal(fails.length, 1);
        assert.equal(fails[0].ok ? '' : fails[0].error.code, 'TAG_ALREADY_EXISTS');
        // Snapshot 17 exists; 14 only as tag_mid's.
        const [atTag, atSnapshot] = await tagBatch(v, [
          ['read', b, DB, TBL, 'tag:race'],
          ['read', b, DB, TBL, x.ok ? '17' : 'tag:tag_mid'],
        ]);
        assert.deepEqual(rowsOf(atTag), rowsOf(atSnapshot));
      });
    }
  });
}
