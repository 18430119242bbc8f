/**
 * The branch procedures against Paimon's own implementation (tests/interop/java/BranchTool.java):
 * on copies of one Java-written history (branches from tags, a branch with its own schema change,
 * a branch of a branch, an empty branch), Paimon 2.0.0 runs each operation on one copy and we run
 * it on another. Then: the same files (and the same metadata file contents where Paimon copies
 * them); Paimon 1.4.2, Paimon 2.0.0 and pypaimon read the same rows on every branch; Paimon keeps
 * writing to a branch we created and to main after our fast_forward; Paimon's `check` passes.
 * Last, a Paimon writer commits to main while fast_forward runs: no commit is lost.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyWarehouse, tempDir } from './procedures-support.js';
import { canonicalSort, java, parseJson, parseJsonLines, pypaimon, type PaimonJavaVersion, type Row } from './peers.js';
import { assertCheckPassed, branchHistory, branchTool, DB, metadataTree, okRow, ours, TABLE, type StepResult } from './branches-support.js';

/** One operation: a label, Paimon's steps on its copy, and ours on the other. */
interface Case {
  name: string;
  java: (wh: string) => string[][];
  ours: (wh: string) => Promise<void>;
  /** Compare file lists only (merge: manifests and snapshots carry new ids and times). */
  namesOnly?: boolean;
}

const t = (b?: string) => (b ? `${TABLE}$branch_${b}` : TABLE);

async function expectCode(p: ReturnType<typeof ours>, code: string): Promise<void> {
  const o = await p;
  assert.equal(o.ok, false, `expected ${code}`);
  if (!o.ok) assert.equal(o.error.code, code, o.error.message);
}

const CASES: Case[] = [
  {
    name: 'create',
    java: (wh) => [
      ['create-branch', wh, DB, t(), 'nb', 't3'],
      ['create-branch', wh, DB, t(), 'ne'],
      ['create-branch', wh, DB, t('bt'), 'nbb', 'bt3'],
      ['create-branch', wh, DB, t(), 'nb', 't3', 'true'],
    ],
    ours: async (wh) => {
      okRow(await ours(wh, 'create_branch', { table: 'interop.t', branch: 'nb', tag: 't3' }));
      okRow(await ours(wh, 'create_branch', { table: 'interop.t', branch: 'ne' }));
      okRow(await ours(wh, 'create_branch', { table: 'interop.t$branch_bt', branch: 'nbb', tagName: 'bt3' }));
      assert.equal(okRow(await ours(wh, 'create_branch', { table: 'interop.t', branch: 'nb', tag: 't3', ignoreIfExists: 'true' })).created, false);
    },
  },
  {
    name: 'delete',
    java: (wh) => [['delete-branch', wh, DB, t(), 'bt,be']],
    ours: async (wh) => {
      assert.equal(okRow(await ours(wh, 'delete_branch', { table: 'interop.t', branch: 'bt,be' })).deleted_branches, 'bt,be');
    },
  },
  {
    name: 'rename',
    java: (wh) => [['rename-branch', wh, DB, t(), 'bs', 'bs2']],
    ours: async (wh) => {
      okRow(await ours(wh, 'rename_branch', { table: 'interop.t', from_branch: 'bs', to_branch: 'bs2' }));
    },
  },
  {
    name: 'ff',
    java: (wh) => [['fast-forward', wh, DB, t(), 'ff']],
    ours: async (wh) => {
      const r = okRow(await ours(wh, 'fast_forward', { table: 'interop.t', branch: 'ff' }));
      assert.deepEqual([r.previous_snapshot_id, r.current_snapshot_id, r.copied_snapshot_ids, r.replaced_snapshot_ids], [3, 5, '4-5', '']);
    },
  },
  {
    // bs forked at t2 and changed its schema; main's s3 came after the fork.
    name: 'ff-forced',
    java: (wh) => [['fast-forward', wh, DB, t(), 'bs']],
    ours: async (wh) => {
      await expectCode(ours(wh, 'fast_forward', { table: 'interop.t', branch: 'bs' }), 'UNSAFE_ARGUMENT');
      const r = okRow(await ours(wh, 'fast_forward', { table: 'interop.t', branch: 'bs', force: true }));
      assert.deepEqual([r.replaced_snapshot_ids, r.replaced_tags, r.copied_snapshot_ids], ['3', 't3', '3']);
    },
  },
  {
    name: 'ff-branch-of-branch',
    java: (wh) => [['fast-forward', wh, DB, t('bt'), 'bbt']],
    ours: async (wh) => {
      okRow(await ours(wh, 'fast_forward', { table: 'interop.t$branch_bt', branch: 'bbt' }));
    },
  },
  {
    name: 'refusals',
    java: (wh) => [
      ['fast-forward', wh, DB, t(), 'be'],
      ['merge-branch', wh, DB, t(), 'ff', 'main'],
      ['delete-branch', wh, DB, t(), 'nope'],
    ],
    ours: async (wh) => {
      await expectCode(ours(wh, 'fast_forward', { table: 'interop.t', branch: 'be' }), 'SNAPSHOT_NOT_FOUND');
      const o = await ours(wh, 'merge_branch', { table: 'interop.t', source_branch: 'ff' });
      assert.equal(o.ok, false);
      if (!o.ok) assert.match(o.error.message, /does not start at snapshot 1.*rule: complete append-only history/);
      await expectCode(ours(wh, 'delete_branch', { table: 'interop.t', branch: 'nope' }), 'BRANCH_NOT_FOUND');
    },
  },
  {
    name: 'merge',
    namesOnly: true,
    java: (wh) => [['merge-branch', wh, DB, t(), 'mg', 'main']],
    ours: async (wh) => {
      const dry = okRow(await ours(wh, 'merge_branch', { table: 'interop.t', source_branch: 'mg', dry_run: true }));
      assert.equal(dry.merged_files, 1);
      const r = okRow(await ours(wh, 'merge_branch', { table: 'interop.t', source_branch: 'mg', target_branch: 'main' }));
      assert.deepEqual([r.merged_files, r.merged_rows, r.snapshot_id], [1, 1n, 4]);
      assert.equal(okRow(await ours(wh, 'merge_branch', { table: 'interop.t', source_branch: 'mg' })).merged_files, 0, 'a second merge is a no-op');
    },
  },
];

/** Branches of interop.t to read in `wh` (main first). */
function branchesOf(wh: string): string[] {
  const tree = metadataTree(wh);
  const names = new Set<string>();
  for (const k of Object.keys(tree)) {
    const m = /^branch\/branch-([^/]+)\/snapshot\/snapshot-/.exec(k);
    if (m) names.add(m[1]!);
  }
  return ['main', ...[...names].sort()];
}

/** Rows of every branch of `wh`, read by Paimon `v` in the results of a batch (`read` steps). */
function readSteps(wh: string): string[][] {
  return branchesOf(wh).map((b) => ['read', wh, DB, TABLE, `branch:${b}`]);
}

function rowsOf(r: StepResult, what: string): Row[] {
  assert.ok(r.ok, `${what}: ${r.error}`);
  return canonicalSort(parseJsonLines(r.stdout) as Row[]);
}

describe('branch procedures: the same as Paimon Java', () => {
  const copies = new Map<string, { a: string; b: string }>();
  let javaResults: Map<string, StepResult[]>;

  before(async () => {
    const origin = await branchHistory();
    for (const c of CASES) {
      const dir = tempDir(`branches-${c.name}-`);
      const a = join(dir, 'java');
      const b = join(dir, 'ours');
      copyWarehouse(origin, a);
      copyWarehouse(origin, b);
      copies.set(c.name, { a, b });
    }
    // Paimon 2.0.0 runs every case's steps in one JVM.
    const steps = CASES.flatMap((c) => c.java(copies.get(c.name)!.a));
    const results = await branchTool('2.0', steps);
    javaResults = new Map();
    let i = 0;
    for (const c of CASES) {
      const n = c.java(copies.get(c.name)!.a).length;
      javaResults.set(c.name, results.slice(i, i + n));
      i += n;
    }
    for (const c of CASES) await c.ours(copies.get(c.name)!.b);
  });

  for (const c of CASES) {
    test(`${c.name}: the same files as Paimon`, () => {
      const { a, b } = copies.get(c.name)!;
      const r = javaResults.get(c.name)!;
      if (c.name === 'refusals') {
        assert.deepEqual(r.map((x) => x.ok), [false, false, false], 'Paimon refuses them too');
        assert.match(r[1]!.error ?? '', /does not start at snapshot 1/);
      } else {
        for (const x of r) assert.ok(x.ok, x.error);
      }
      const ta = metadataTree(a);
      const tb = metadataTree(b);
      if (c.namesOnly) assert.deepEqual(Object.keys(tb).filter((k) => !k.startsWith('manifest/')).sort(), Object.keys(ta).filter((k) => !k.startsWith('manifest/')).sort());
      else assert.deepEqual(tb, ta);
    });
  }

  test('pypaimon reads the same rows on the branches we changed', async () => {
    const pairs: [string, string][] = [
      ['ff', 'main'],
      ['ff-forced', 'main'],
      ['ff-branch-of-branch', 'bt'],
      ['rename', 'bs2'],
      ['merge', 'main'],
    ];
    // One pypaimon process for every read (read-many of tests/interop/python/paimon_peer.py).
    const specs = pairs.flatMap(([c, b], i) => {
      const { a, b: o } = copies.get(c)!;
      const target = b === 'main' ? {} : { target: `branch:${b}` };
      return [
        { key: `j${i}`, warehouse: a, db: DB, table: TABLE, ...target },
        { key: `o${i}`, warehouse: o, db: DB, table: TABLE, ...target },
      ];
    });
    const dir = tempDir('branches-py-');
    const specFile = join(dir, 'specs.json');
    writeFileSync(specFile, JSON.stringify(specs));
    const r = await pypaimon.run(['read-many', join(dir, 'out'), specFile], { timeoutMs: 300_000 });
    const results = (parseJson(r.stdout.trim()) as unknown as { results: Record<string, { ok: boolean; error?: string }> }).results;
    const rowsFor = (key: string): Row[] => {
      assert.ok(results[key]?.ok, `pypaimon read ${key}: ${results[key]?.error}`);
      return canonicalSort(parseJsonLines(readFileSync(join(dir, 'out', `${key}.rows.jsonl`), 'utf8')) as Row[]);
    };
    pairs.forEach(([c, b], i) => {
      const mine = rowsFor(`o${i}`);
      assert.deepEqual(mine, rowsFor(`j${i}`), `${c} ${b}`);
      assert.ok(mine.length > 0, `${c} ${b} has rows`);
    });
  });

  test('Paimon 1.4.2 and 2.0.0 read the same rows on every branch of ours as of Paimon\'s; Paimon keeps writing; check passes', async () => {
    const versions: PaimonJavaVersion[] = ['1.4', '2.0'];
    for (const v of versions) {
      const steps: string[][] = [];
      const labels: string[] = [];
      const checked: string[] = [];
      for (const c of CASES) {
        const { a, b } = copies.get(c.name)!;
        for (const s of readSteps(a)) {
          steps.push(s);
          labels.push(`${c.name} java ${s[4]}`);
        }
        for (const s of readSteps(b)) {
          steps.push(s);
          labels.push(`${c.name} ours ${s[4]}`);
        }
        steps.push(['check', b, DB, TABLE]);
        labels.push(`${c.name} check`);
        checked.push(b);
      }
      const res = await branchTool(v, steps);
      const rows = new Map<string, Row[]>();
      let k = 0;
      res.forEach((r, i) => {
        if (labels[i]!.endsWith(' check')) assertCheckPassed(r, checked[k++]!, `${labels[i]} (${v})`);
        else rows.set(labels[i]!, rowsOf(r, `${labels[i]} (${v})`));
      });
      for (const [label, r] of rows) {
        if (!label.includes(' ours ')) continue;
        assert.deepEqual(r, rows.get(label.replace(' ours ', ' java ')), `${label}: Paimon ${v} reads the same rows`);
      }
      assert.equal(rows.get('ff ours branch:main')!.length, 5, 'main after fast_forward ff: i=0,1,2,40,41');
      assert.equal(rows.get('ff-forced ours branch:main')!.length, 3, 'main after fast_forward bs: i=0,1,20');
    }
    // Paimon keeps writing to a branch we created and to main after our fast_forward.
    const create = copies.get('create')!.b;
    const ff = copies.get('ff')!.b;
    const forced = copies.get('ff-forced')!.b;
    const after = await branchTool('2.0', [
      ['write-loop', create, DB, t('nb'), '1', '0', '70'],
      ['write-loop', create, DB, t('nbb'), '1', '0', '71'],
      ['write-loop', create, DB, t('ne'), '1', '0', '72'],
      ['write-loop', ff, DB, t(), '1', '0', '73'],
      ['write-loop', forced, DB, t(), '1', '0', '74'],
      ['read', create, DB, TABLE, 'branch:nb'],
      ['read', create, DB, TABLE, 'branch:nbb'],
      ['read', create, DB, TABLE, 'branch:ne'],
      ['read', ff, DB, TABLE],
      ['read', forced, DB, TABLE],
      ['check', create, DB, TABLE],
      ['check', ff, DB, TABLE],
      ['check', forced, DB, TABLE],
    ]);
    for (const r of after.slice(0, 10)) assert.ok(r.ok, r.error);
    assert.deepEqual(rowsOf(after[5]!, 'nb').length, 4, 'nb: t3 (3 rows) + 1');
    assert.deepEqual(rowsOf(after[6]!, 'nbb').length, 4, 'nbb: bt3 (3 rows) + 1');
    assert.deepEqual(rowsOf(after[7]!, 'ne').length, 1);
    assert.deepEqual(rowsOf(after[8]!, 'ff main').length, 6);
    assert.deepEqual(rowsOf(after[9]!, 'forced main').length, 4);
    [create, ff, forced].forEach((wh, j) => assertCheckPassed(after[10 + j]!, wh, `check after Paimon's writes (${j})`));
  });


});

describe('fast_forward while Paimon writes to main', () => {
  test('no commit is lost; each call succeeds, is refused, or reports CONCURRENT_MODIFICATION', async () => {
    const origin = await branchHistory();
    const wh = join(tempDir('branches-concurrent-'), 'wh');
    copyWarehouse(origin, wh);
    const writer = java('2.0').writeLoop(wh, DB, TABLE, 12, 20, 100);
    const codes = new Map<string, number>();
    let done = false;
    void writer.finally(() => {
      done = true;
    });
    while (!done) {
      const o = await ours(wh, 'fast_forward', { table: 'interop.t', branch: 'ff' });
      const k = o.ok ? 'ok' : o.error.code;
      codes.set(k, (codes.get(k) ?? 0) + 1);
      assert.ok(['ok', 'UNSAFE_ARGUMENT', 'CONCURRENT_MODIFICATION'].includes(k), `${k}: ${o.ok ? '' : o.error.message}`);
    }
    const { commits } = await writer;
    assert.equal(commits.length, 12);
    const res = await branchTool('2.0', [
      ['read', wh, DB, TABLE],
      ['check', wh, DB, TABLE],
    ]);
    const ids = new Set(rowsOf(res[0]!, 'main').map((r) => Number(r['id'])));
    for (const c of commits) assert.ok(ids.has(c.i), `the writer's row ${c.i} is still in main (${[...codes].join(' ')})`);
    for (const i of [0, 1, 2]) assert.ok(ids.has(i), `main's row ${i} is kept`);
    assertCheckPassed(res[1]!, wh, 'check after the race');
  });
});

describe('merge_branch on a row-tracking table (Paimon 2.0.0)', () => {
  test("is NOT_SUPPORTED naming Paimon's own merge_branch, changes nothing; Paimon 2.0 merges the same table", async () => {
    const dir = tempDir('branches-row-tracking-');
    const wh = join(dir, 'wh');
    const schema = join(dir, 'schema.json');
    writeFileSync(schema, JSON.stringify({ fields: [{ name: 'id', type: 'INT' }, { name: 'v', type: 'STRING' }], options: { bucket: '-1', 'row-tracking.enabled': 'true' } }));
    const build = await branchTool('2.0', [
      ['create-table', wh, DB, TABLE, schema],
      ['write-loop', wh, DB, t(), '1', '0', '0'],
      ['create-tag', wh, DB, t(), 'r1', '1'],
      ['create-branch', wh, DB, t(), 'rb', 'r1'],
      ['write-loop', wh, DB, t('rb'), '1', '0', '90'],
    ]);
    for (const r of build) assert.ok(r.ok, r.error);
    const before = metadataTree(wh);
    for (const dry_run of [true, false]) {
      const o = await ours(wh, 'merge_branch', { table: 'interop.t', source_branch: 'rb', dry_run });
      assert.equal(o.ok, false);
      if (!o.ok) {
        assert.equal(o.error.code, 'NOT_SUPPORTED');
        assert.match(o.error.message, /row-tracking\.enabled.*merge_branch in Flink or Spark.*Table\.mergeBranch in Paimon Java 2\.0/);
      }
    }
    assert.deepEqual(metadataTree(wh), before, 'nothing was written');
    // The alternative the message names works on this very table.
    const theirs = await branchTool('2.0', [
      ['merge-branch', wh, DB, t(), 'rb', 'main'],
      ['read', wh, DB, TABLE],
    ]);
    assert.ok(theirs[0]!.ok, theirs[0]!.error);
    assert.deepEqual(rowsOf(theirs[1]!, 'main after Paimon merged').map((r) => Number(r['id'])).sort((x, y) => x - y), [0, 90]);
  });
});
