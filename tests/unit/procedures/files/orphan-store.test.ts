import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { CandidateStore, DirTable, ReachableStore } from '../../../../procedures/files/orphan-store.js';
import { escapeField, hashName, readLines, SpillSpace, unescapeField } from '../../../../procedures/files/orphan-spill.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'orphan-store-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface C {
  dir: number;
  name: string;
  size: number;
  area: number;
}

const key = (c: C): string => JSON.stringify([c.dir, c.name, c.size, c.area]);

/** The orphans by the definition: temp-area files always, others when their name is not reached. */
function expected(cands: readonly C[], reached: readonly string[]): string[] {
  const r = new Set(reached);
  return cands.filter((c) => c.area >= 4 || !r.has(c.name)).map(key).sort();
}

// Names from a small alphabet (so names repeat across directories and collide in partitions),
// including the characters the spill format has to escape and non-ASCII ones.
const nameArb = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '\t', '\n', '\\', 'é', '日', '\r', '-'), minLength: 1, maxLength: 4 });

describe('orphan candidate store', () => {
  test('property: the anti-join gives the same orphans in memory, spilled, and re-split', () => {
    let run = 0;
    fc.assert(
      fc.property(
        fc.array(fc.record({ dir: fc.nat(5), name: nameArb, size: fc.nat(1 << 40), area: fc.nat(5) }), { maxLength: 60 }),
        fc.array(nameArb, { maxLength: 60 }),
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 2, max: 5 }),
        (cands, reached, threshold, fanout) => {
          const space = new SpillSpace(join(dir, `s${run++}`), fanout);
          try {
            const store = new CandidateStore(space, threshold);
            for (const c of cands) store.add(c.dir, c.name, c.size, c.area);
            assert.equal(store.count, cands.length);
            assert.equal(store.spilled, cands.length > threshold);
            const reach = new ReachableStore(space, threshold);
            for (const n of reached) reach.mark(n);
            assert.equal(reach.spilled, new Set(reached).size > threshold);
            const out = new CandidateStore(space, threshold);
            store.match(reach, out);
            const got = [...out.entries()].map(key).sort();
            assert.deepEqual(got, expected(cands, reached));
            assert.equal(out.count, got.length);
            // Never more than the threshold in memory at once, unless one name alone exceeds it.
            const perName = new Map<string, number>();
            for (const c of cands) perName.set(c.name, (perName.get(c.name) ?? 0) + 1);
            const maxSameName = Math.max(0, ...perName.values());
            assert.ok(store.stats.peakInMemory <= Math.max(threshold + 1, maxSameName), `peak ${store.stats.peakInMemory} > ${threshold}`);
            store.dispose();
            out.dispose();
            // Every partition and split file is removed as soon as it is matched or disposed.
            if (space.location !== null) assert.deepEqual(readdirSync(space.location, { recursive: true }).filter((f) => !String(f).match(/^[a-z]+-\d+$/)), []);
          } finally {
            space.dispose();
          }
          assert.ok(!existsSync(join(dir, `s${run - 1}`)) || readdirSync(join(dir, `s${run - 1}`)).length === 0, 'spill directory left behind');
        },
      ),
      { numRuns: 150 },
    );
  });

  test('a second anti-join over spilled orphans (the recheck) removes names reached later, reachable names in memory', () => {
    const space = new SpillSpace(join(dir, 'recheck'), 4);
    try {
      const store = new CandidateStore(space, 10);
      for (let i = 0; i < 100; i++) store.add(i % 3, `f${i}`, i, i % 7 === 0 ? 4 : 0);
      const r1 = new ReachableStore(space, 1000);
      for (let i = 0; i < 100; i += 2) r1.mark(`f${i}`);
      const orphans = new CandidateStore(space, 10);
      store.match(r1, orphans);
      assert.ok(orphans.spilled);
      const r2 = new ReachableStore(space, 1000);
      for (let i = 1; i < 50; i += 2) r2.mark(`f${i}`);
      assert.ok(!r2.spilled);
      const final = new CandidateStore(space, 10);
      orphans.match(r2, final);
      const names = [...final.entries()].map((c) => c.name).sort();
      const want: string[] = [];
      for (let i = 0; i < 100; i++) if (i % 7 === 0 || (i % 2 === 1 && i >= 50)) want.push(`f${i}`);
      assert.deepEqual(names, want.sort());
    } finally {
      space.dispose();
    }
  });

  test('directories are stored once', () => {
    const d = new DirTable();
    assert.equal(d.intern('/a/b'), 0);
    assert.equal(d.intern('/a/c'), 1);
    assert.equal(d.intern('/a/b'), 0);
    assert.equal(d.path(1), '/a/c');
    assert.equal(d.size, 2);
    assert.throws(() => d.path(2));
  });

  test('a non-positive threshold is refused', () => {
    assert.throws(() => new CandidateStore(new SpillSpace(dir), 0), /positive integer/);
  });
});

describe('orphan spill files', () => {
  test('fields round-trip through escaping', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const e = escapeField(s);
        assert.ok(!/[\t\n\r]/.test(e));
        assert.equal(unescapeField(e), s);
      }),
    );
  });

  test('lines are read back across 1 MiB chunk boundaries, multi-byte characters intact', () => {
    const p = join(dir, 'lines');
    const lines: string[] = [];
    // ~2.5 MiB of lines of varying length, mostly 3-byte characters, one line longer than a chunk.
    for (let i = 0; i < 30_000; i++) lines.push(`${i}:` + '日本'.repeat(i % 37) + 'é');
    lines.splice(1234, 0, 'x' + '語'.repeat(400_000));
    writeFileSync(p, lines.join('\n') + '\n');
    assert.deepEqual([...readLines(p)], lines);
    writeFileSync(p, 'no newline at the end');
    assert.deepEqual([...readLines(p)], ['no newline at the end']);
    writeFileSync(p, '');
    assert.deepEqual([...readLines(p)], []);
  });

  test('the hash spreads names over partitions, differently per seed', () => {
    const counts = new Array<number>(32).fill(0);
    const moved = { n: 0 };
    for (let i = 0; i < 32_000; i++) {
      const n = `data-${i}-0.parquet`;
      counts[hashName(n, 0) % 32]!++;
      if (hashName(n, 0) % 32 !== hashName(n, 1) % 32) moved.n++;
    }
    for (const c of counts) assert.ok(c > 800 && c < 1200, `partition size ${c}`);
    assert.ok(moved.n > 28_000, `only ${moved.n} names changed partition with the seed`);
  });
});
