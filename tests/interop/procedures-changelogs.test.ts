/**
 * expire_changelogs against Paimon Java 1.4.2 and 2.0.0 (ChangelogTool.java runs what Flink's
 * ExpireChangelogsProcedure runs: ExpireChangelogImpl with only the call's values): on copies of
 * Java-written tables whose changelog lifecycle is decoupled (changelog.num-retained.max above
 * snapshot.num-retained.max, so Java's own commits left changelog/changelog-<id> files), one with
 * changelog-producer input and one without a producer, Java and ours leave exactly the same files
 * (hints included); Java's `check` passes on ours (or fails on Java's own result alike); Java and pypaimon read the same rows (latest
 * and at a tag) from both copies; Java keeps writing afterwards.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changelogProcedures } from '../../procedures/changelogs/index.js';
import type { CallOutcome } from '../../procedures/framework/executor.js';
import type { CallArgument } from '../../procedures/framework/binding.js';
import { callNamed, executorFor, firstRow, listTree, pyReadMany } from './procedures-support.js';
import { copyWarehouse, java, parseJson, sharedDirectory, type PaimonJavaVersion } from './peers.js';

const DB = 'interop';
const TABLES = ['c_input', 'c_none'] as const;
type Tbl = (typeof TABLES)[number];

function schema(producer: 'input' | 'none'): object {
  return {
    fields: [
      { name: 'id', type: 'INT NOT NULL' },
      { name: 'dt', type: 'DATE NOT NULL' },
      { name: 'v', type: 'STRING' },
    ],
    primaryKeys: ['dt', 'id'],
    partitionKeys: ['dt'],
    options: {
      bucket: '2',
      'partition.legacy-name': 'false',
      'changelog-producer': producer,
      // Java's commits expire snapshots beyond 3 and keep them as long-lived changelogs.
      'snapshot.num-retained.max': '3',
      'snapshot.num-retained.min': '1',
      'changelog.num-retained.max': '50',
    },
  };
}

/** Per table: snapshots 1-5 insert ids 0-4, tag4@4, 6-8 update, a full compaction (9), 10-12 insert: snapshots 10-12 and changelogs 1-9 remain. */
function changelogsHistory(v: PaimonJavaVersion): Promise<string> {
  return sharedDirectory(`changelogs-history-${v}`, async (staging) => {
    const wh = join(staging, 'wh');
    const steps: string[][] = [];
    for (const t of TABLES) {
      const f = join(staging, `${t}.json`);
      writeFileSync(f, JSON.stringify(schema(t === 'c_input' ? 'input' : 'none')));
      steps.push(
        ['create-table', wh, DB, t, f],
        ['write-loop', wh, DB, t, '5', '0', '0'],
        ['create-tag', wh, DB, t, 'tag4', '4'],
        ['write-loop', wh, DB, t, '3', '0', '0'],
        ['compact', wh, DB, t],
        ['write-loop', wh, DB, t, '3', '0', '100'],
      );
    }
    const results = await java(v).batch(steps);
    assert.ok(results.length === steps.length && results.every((r) => r.ok), JSON.stringify(results.filter((r) => !r.ok)));
  });
}

async function tool(v: PaimonJavaVersion, ...args: string[]): Promise<Record<string, unknown>> {
  const r = await java(v).runMain('ChangelogTool', args, { timeoutMs: 120_000 });
  return parseJson(r.stdout.trim().split('\n').pop() ?? 'null') as Record<string, unknown>;
}

function tableDir(wh: string, t: Tbl): string {
  return join(wh, `${DB}.db`, t);
}

function hints(wh: string, t: Tbl): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const h of ['changelog/EARLIEST', 'changelog/LATEST', 'snapshot/EARLIEST', 'snapshot/LATEST']) {
    const p = join(tableDir(wh, t), h);
    out[h] = existsSync(p) ? readFileSync(p, 'utf8') : null;
  }
  return out;
}

async function positional(wh: string, values: (string | number)[]): Promise<CallOutcome> {
  const args: CallArgument[] = values.map((v, i) => ({
    name: null,
    value: typeof v === 'string' ? { kind: 'string', value: v } : { kind: 'integer', value: BigInt(v), text: String(v) },
    offset: i,
  }));
  return executorFor(wh, changelogProcedures).run(
    { catalog: 'paimon', procedure: 'expire_changelogs', args, statement: 'CALL paimon.sys.expire_changelogs(...)' },
    { user: 'root', connectionId: 1, clientAddress: '127.0.0.1:1', currentDatabase: null },
    new AbortController().signal,
  );
}

/** The commit time of long-lived changelog `id`. */
function changelogTime(wh: string, t: Tbl, id: number): number {
  return (JSON.parse(readFileSync(join(tableDir(wh, t), 'changelog', `changelog-${id}`), 'utf8')) as { timeMillis: number }).timeMillis;
}

interface Case {
  name: string;
  /** ChangelogTool expire-changelogs arguments after the table: retainMax retainMin olderThanMillis maxDeletes deleteAll. */
  java: (origin: string, t: Tbl) => string[];
  ours: (b: string, t: Tbl, origin: string) => Promise<CallOutcome>;
  /** Changes the Java copy before ours is copied from it. */
  prepare?: (a: string, t: Tbl, v: PaimonJavaVersion) => Promise<void>;
  expectCount: number | string;
}

const CASES: Case[] = [
  {
    name: 'retain_max (positional)',
    java: () => ['6', '-', '-', '-', 'false'],
    ours: (b, t) => positional(b, [`${DB}.${t}`, 6]),
    expectCount: 6,
  },
  {
    name: 'older_than stops at the first changelog committed then',
    // ChangelogTool hands Paimon `now - olderThan` and Paimon subtracts it from its own later
    // `now`, so Java's cutoff drifts late by the milliseconds in between: give Java the middle of
    // the gap before changelog 4, which selects the same changelogs as changelog 4's own time.
    java: (o, t) => ['-', '-', String(Math.floor((changelogTime(join(o, 'wh'), t, 3) + changelogTime(join(o, 'wh'), t, 4)) / 2)), '-', 'false'],
    ours: (b, t, o) => callNamed(executorFor(b, changelogProcedures), 'expire_changelogs', { table: `${DB}.${t}`, older_than: String(changelogTime(join(o, 'wh'), t, 4)) }),
    expectCount: 3,
  },
  {
    name: 'max_deletes bounds one call',
    java: () => ['-', '-', String(Date.now()), '2', 'false'],
    ours: (b, t) => callNamed(executorFor(b, changelogProcedures), 'expire_changelogs', { table: `${DB}.${t}`, older_than: String(Date.now()), max_deletes: 2 }),
    expectCount: 2,
  },
  {
    name: "a consumer's next snapshot pins its changelog",
    prepare: async (a, t, v) => {
      const [r] = await java(v).batch([['create-consumer', a, DB, t, 'reader', '5']]);
      assert.ok(r?.ok, r?.error);
    },
    java: () => ['-', '-', String(Date.now()), '-', 'false'],
    ours: (b, t) => callNamed(executorFor(b, changelogProcedures), 'expire_changelogs', { table: `${DB}.${t}`, older_than: String(Date.now()) }),
    expectCount: 4,
  },
  {
    name: 'no arguments expires nothing (and writes the EARLIEST hint as Java does)',
    java: () => ['-', '-', '-', '-', 'false'],
    ours: (b, t) => callNamed(executorFor(b, changelogProcedures), 'expire_changelogs', { table: `${DB}.${t}` }),
    expectCount: 0,
  },
  {
    name: 'delete_all',
    java: () => ['-', '-', '-', '-', 'true'],
    ours: (b, t) => callNamed(executorFor(b, changelogProcedures), 'expire_changelogs', { table: `${DB}.${t}`, delete_all: true }),
    expectCount: 'Delete all separated changelogs success.',
  },
];

for (const v of ['1.4', '2.0'] as const) {
  describe(`expire_changelogs vs Paimon ${v} ExpireChangelogImpl`, () => {
    let origin: string;
    before(async () => {
      origin = await changelogsHistory(v);
      for (const t of TABLES) {
        const st = (await tool(v, 'changelogs', join(origin, 'wh'), DB, t)) as { changelogs: number[]; earliestSnapshot: number };
        assert.deepEqual(st.changelogs.map(Number), [1, 2, 3, 4, 5, 6, 7, 8, 9], `${t}: Java's commits left changelogs 1-9`);
        assert.equal(Number(st.earliestSnapshot), 10);
      }
    });

    for (const c of CASES) {
      test(`${c.name}: the same files as Java on both tables`, async () => {
        const a = copyWarehouse(join(origin, 'wh'), `changelogs-${v}-java`);
        for (const t of TABLES) if (c.prepare) await c.prepare(a, t, v);
        const b = copyWarehouse(a, `changelogs-${v}-ours`);
        for (const t of TABLES) {
          const out = await tool(v, 'expire-changelogs', a, DB, t, ...c.java(origin, t));
          const row = firstRow(await c.ours(b, t, origin));
          assert.equal(out.result, String(c.expectCount), `${t}: Java's count`);
          assert.equal(row.result, String(c.expectCount), `${t}: our result column is Flink's`);
          assert.deepEqual(listTree(tableDir(b, t)), listTree(tableDir(a, t)), `${t}: same files on disk as Paimon Java`);
          assert.deepEqual(hints(b, t), hints(a, t), `${t}: same hints`);
          if (c.expectCount !== 0) assert.ok(Number(row.deleted_files) > 0, `${t}: files deleted`);
        }
      });
    }

    test('after ours: Java check passes, Java and pypaimon read the same rows (latest and tag4) from both copies, Java keeps writing', async () => {
      const a = copyWarehouse(join(origin, 'wh'), `changelogs-${v}-after-java`);
      const b = copyWarehouse(join(origin, 'wh'), `changelogs-${v}-after-ours`);
      for (const t of TABLES) {
        await tool(v, 'expire-changelogs', a, DB, t, '5', '-', '-', '-', 'false');
        firstRow(await callNamed(executorFor(b, changelogProcedures), 'expire_changelogs', { table: `${DB}.${t}`, retain_max: 5 }));
      }
      // Paimon's changelog expiry deletes the changelog manifest list of tag4's snapshot (a tag keeps
      // data files only) and `check` reads it: on c_input it fails on Java's own result as on ours.
      for (const wh of [a, b]) {
        const [r] = await java(v).batch([['check', wh, DB, 'c_input']]);
        assert.ok(r && !r.ok && /manifest-list-.*not found/.test(r.error ?? ''), `check of c_input fails on ${wh === a ? "Java's" : 'our'} copy alike: ${r?.error ?? ''}`);
      }
      const steps: string[][] = [];
      for (const t of TABLES) {
        steps.push(['read', a, DB, t], ['read', b, DB, t], ['read', a, DB, t, 'tag:tag4'], ['read', b, DB, t, 'tag:tag4'], ['check', b, DB, 'c_none']);
      }
      for (const t of TABLES) steps.push(['write-loop', b, DB, t, '2', '0', '200'], ['read', b, DB, t]);
      // The same writes on Java's copy, so pypaimon reads the two copies at the same state below.
      for (const t of TABLES) steps.push(['write-loop', a, DB, t, '2', '0', '200']);
      steps.push(['check', b, DB, 'c_none']);
      const results = await java(v).batch(steps);
      assert.ok(results.length === steps.length && results.every((r) => r.ok), JSON.stringify(results.filter((r) => !r.ok).map((r) => r.error)));
      const rows = (i: number): string[] => (results[i]?.stdout ?? '').split('\n').filter((l) => l.trim() !== '').sort();
      TABLES.forEach((t, k) => {
        const i = k * 5;
        assert.ok(rows(i).length > 0 && rows(i + 2).length > 0, `${t} has rows`);
        assert.deepEqual(rows(i + 1), rows(i), `${t}: Java reads the same rows from both copies`);
        assert.deepEqual(rows(i + 3), rows(i + 2), `${t}: Java reads the same rows at tag4 from both copies`);
        assert.equal(rows(TABLES.length * 5 + k * 2 + 1).length, rows(i).length + 2, `${t}: Java's two new rows are read after ours`);
      });
      const py = await pyReadMany(
        TABLES.flatMap((t) => [
          { key: `a-${t}`, warehouse: a, db: DB, table: t },
          { key: `b-${t}`, warehouse: b, db: DB, table: t },
          { key: `a-${t}-tag`, warehouse: a, db: DB, table: t, target: 'tag:tag4' },
          { key: `b-${t}-tag`, warehouse: b, db: DB, table: t, target: 'tag:tag4' },
        ]),
      );
      for (const t of TABLES) {
        for (const suffix of ['', '-tag']) {
          const pa = py.get(`a-${t}${suffix}`);
          const pb = py.get(`b-${t}${suffix}`);
          assert.ok(pa && 'rows' in pa && pb && 'rows' in pb, `pypaimon reads both copies of ${t}${suffix}: ${JSON.stringify(pa)} ${JSON.stringify(pb)}`);
          assert.deepEqual(pb.rows, pa.rows, `pypaimon reads the same rows of ${t}${suffix}`);
        }
      }
    });

    test('dry_run reports the plan and changes nothing; retain_max below retain_min is refused', async () => {
      const b = copyWarehouse(join(origin, 'wh'), `changelogs-${v}-dry`);
      const before = TABLES.map((t) => listTree(tableDir(b, t)));
      const row = firstRow(await callNamed(executorFor(b, changelogProcedures), 'expire_changelogs', { table: `${DB}.c_input`, retain_max: 6, dry_run: true }));
      assert.equal(row.dry_run, true);
      assert.equal(row.changed, false);
      assert.equal(row.deleted_changelogs_count, 6);
      assert.ok(Number(row.deleted_files) > 0);
      const bad = await callNamed(executorFor(b, changelogProcedures), 'expire_changelogs', { table: `${DB}.c_input`, retain_max: 2, retain_min: 3 });
      assert.equal(bad.ok, false);
      if (!bad.ok) assert.equal(bad.error.code, 'INVALID_ARGUMENT');
      assert.deepEqual(
        TABLES.map((t) => listTree(tableDir(b, t))),
        before,
      );
    });
  });
}
