/**
 * The interop harness itself: Paimon Java (1.4.2, 2.0.0) builds the table matrix, its dump and read
 * outputs parse and are consistent with each other, and pypaimon reads the same rows as Java for
 * every table both can read (a real cross-implementation check), in both directions.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MATRIX_DB, MATRIX_TABLES, PAIMON_JAVA_VERSIONS, canonicalJson, canonicalSort, copyWarehouse, java, matrixWarehouse, parseJson, parseJsonLines, pypaimon, tempWarehouse, toComparable, type PaimonJavaVersion, type Row, type TableDump, pypaimons } from './peers.js';

const FULL: Record<PaimonJavaVersion, string> = { '1.4': '1.4.2', '2.0': '2.0.0' };

describe('peers.ts JSON', () => {
  test('64-bit integers survive parsing exactly; safe ones are numbers', () => {
    const v = parseJson('{"a":9223372036854775807,"b":-9223372036854775808,"c":42,"d":1.5,"e":1E300,"f":[null,true,"x\\"y"]}');
    assert.deepEqual(v, { a: 9223372036854775807n, b: -9223372036854775808n, c: 42, d: 1.5, e: 1e300, f: [null, true, 'x"y'] });
    assert.equal(canonicalJson(v), '{"a":9223372036854775807,"b":-9223372036854775808,"c":42,"d":1.5,"e":1e+300,"f":[null,true,"x\\"y"]}');
    assert.deepEqual(toComparable({ x: 5n, y: 2n ** 60n }), { x: 5, y: 2n ** 60n });
    assert.throws(() => parseJson('{"a":1,}'), SyntaxError);
  });
});

for (const v of PAIMON_JAVA_VERSIONS) {
  describe(`Paimon Java ${FULL[v]} peer`, () => {
    let wh = '';
    let all = new Map<string, { dump: TableDump; rows: Row[] } | { error: string }>();
    const dumpOf = (t: string): TableDump => {
      const e = all.get(t);
      assert.ok(e, `no dump of ${t}`);
      assert.ok(!('error' in e), `dump of ${t} failed: ${'error' in e ? e.error : ''}`);
      return e.dump;
    };
    const rowsOf = (t: string): Row[] => {
      const e = all.get(t);
      assert.ok(e && !('error' in e), `read of ${t} failed`);
      return e.rows;
    };

    before(async () => {
      wh = await matrixWarehouse(v);
      all = await java(v).dumpAll(wh, MATRIX_DB);
    });

    test('the pinned version resolved', async () => {
      assert.equal(await java(v).paimonVersion(), FULL[v]);
      assert.equal(dumpOf('pk_dedup').paimonVersion, FULL[v]);
    });

    test('create-matrix made every table and dump/read succeed on each', () => {
      assert.deepEqual([...all.keys()].sort(), MATRIX_TABLES.map((t) => t.name).sort());
      for (const t of MATRIX_TABLES) {
        const d = dumpOf(t.name);
        assert.equal(d.table, `${MATRIX_DB}.${t.name}`);
        assert.equal(d.primaryKeys.length > 0, t.kind === 'primary-key', `${t.name} kind`);
        assert.ok(rowsOf(t.name).length > 0, `${t.name} has rows`);
      }
    });

    test('dumps are self-consistent: snapshots, hints, manifest lists, manifests, schemas', () => {
      for (const t of MATRIX_TABLES) {
        const d = dumpOf(t.name);
        const ids = d.snapshots.map((s) => BigInt(s.id as number));
        assert.ok(ids.length > 0, `${t.name} snapshots`);
        for (let i = 1; i < ids.length; i++) assert.equal(ids[i], (ids[i - 1] as bigint) + 1n, `${t.name}: snapshot ids are contiguous`);
        assert.equal(BigInt(d.latestSnapshotId as number), ids[ids.length - 1]);
        assert.equal(d.hints.LATEST, String(ids[ids.length - 1]), `${t.name}: LATEST hint`);
        const schemaIds = new Set(d.schemas.map((s) => Number(s.id)));
        for (const s of d.snapshots) {
          // commitIdentifier of a batch commit is Long.MAX_VALUE: must come through exactly.
          if (s.commitKind === 'APPEND') assert.equal(s.commitIdentifier, 9223372036854775807n, `${t.name}@${String(s.id)} commitIdentifier`);
          assert.ok(schemaIds.has(Number(s.schemaId)), `${t.name}: schema ${String(s.schemaId)} exists`);
          for (const k of ['baseManifestList', 'deltaManifestList'] as const) {
            const name = s[k] as string;
            const ml = d.manifestLists[name];
            assert.ok(ml, `${t.name}@${String(s.id)}: ${k} ${name} dumped`);
            const sizeKey = k === 'baseManifestList' ? 'baseManifestListSize' : 'deltaManifestListSize';
            assert.equal(ml.fileSize, s[sizeKey], `${t.name}: ${k} size`);
            for (const m of ml.manifests) {
              const entries = d.manifests[m.fileName];
              assert.ok(entries, `manifest ${m.fileName} dumped`);
              assert.equal(
                entries.filter((e) => e.kind === 'ADD').length,
                Number(m.numAddedFiles),
                `${t.name}: ${m.fileName} numAddedFiles`,
              );
              assert.equal(entries.filter((e) => e.kind === 'DELETE').length, Number(m.numDeletedFiles));
              for (const e of entries) {
                assert.ok(schemaIds.has(Number(e.file.schemaId)), `${t.name}: entry schema ${String(e.file.schemaId)}`);
                assert.equal(e.partition.arity, d.partitionKeys.length);
                // serializedHex = 4-byte big-endian arity + BinaryRow bytes
                assert.equal(e.partition.serializedHex, e.partition.arity.toString(16).padStart(8, '0') + e.partition.hex);
              }
            }
          }
        }
        // Total record count of the latest snapshot = live ADD rows - DELETE rows over base+delta.
        const last = d.snapshots[d.snapshots.length - 1] as Record<string, unknown>;
        let live = 0n;
        for (const k of ['baseManifestList', 'deltaManifestList']) {
          for (const m of (d.manifestLists[last[k] as string] as { manifests: { fileName: string }[] }).manifests) {
            for (const e of d.manifests[m.fileName] ?? []) live += (e.kind === 'ADD' ? 1n : -1n) * BigInt(e.file.rowCount);
          }
        }
        assert.equal(live, BigInt(last.totalRecordCount as number), `${t.name}: totalRecordCount equals the manifests`);
      }
    });

    test('the matrix has what it promises (types, partitions, DV, changelog, evolution, tags, branches, consumers)', () => {
      const part = dumpOf('append_part');
      const partValues = new Set<string>();
      for (const entries of Object.values(part.manifests)) for (const e of entries) partValues.add(canonicalJson(e.partition.values));
      assert.ok(partValues.has('[null,null,null]'), 'an all-NULL partition');
      assert.ok(partValues.has('["a b/c=d%e",3,"1999-12-31"]'), 'a partition value needing escaping');

      const dv = dumpOf('pk_dv');
      const dvFiles = Object.values(dv.indexManifests).flat().filter((e) => e.indexFile.indexType === 'DELETION_VECTORS');
      assert.ok(dvFiles.some((e) => (e.indexFile.dvRanges ?? []).length > 0), 'a deletion vector over a data file');

      const input = dumpOf('pk_changelog_input');
      assert.ok(input.snapshots.some((s) => typeof s.changelogManifestList === 'string'), 'changelog manifests');
      assert.ok(dumpOf('pk_changelog_decoupled').changelogs.length > 0, 'long-lived changelog files');

      const evo = dumpOf('schema_evo');
      assert.equal(evo.schemas.length, 4);
      const lastFields = (evo.schemas[3]?.fields as { name: string; type: unknown }[]).map((f) => `${f.name}:${String(f.type)}`);
      assert.deepEqual(lastFields, ['id:INT NOT NULL', 'full_name:STRING', 'v:BIGINT', 'extra:STRING']);

      const h = dumpOf('history');
      assert.deepEqual(h.tags.map((t) => [t.name, Number(t.snapshotId)]), [['t1', 1], ['t3', 3], ['t5', 5]]);
      assert.equal(h.tags.find((t) => t.name === 't3')?.tagTimeRetainedMillis, 86_400_000);
      assert.deepEqual(h.branches, ['b1', 'b_empty']);
      assert.deepEqual(toComparable(h.consumers), { c1: { nextSnapshot: 4 }, c2: { nextSnapshot: 2 } });

      const types = rowsOf('types');
      const first = types.find((r) => r.id === 1);
      assert.equal(first?.c_bigint, 9223372036854775807n);
      assert.equal(first?.c_decimal_38_10, '1234567890123456789012345678.0123456789');
      assert.equal(first?.c_ts9, '2024-01-02T03:04:05.678901234');
      assert.equal(first?.c_ltz3, '2023-11-14T22:13:20.123000000Z');
      assert.equal(first?.c_time3, '12:34:56.789');
    });

    test('merged views: Paimon Java applies each merge engine (fixed expectations)', () => {
      const s = (rows: Row[]): string[] => rows.map((r) => canonicalJson(r));
      assert.deepEqual(s(rowsOf('pk_dedup')), [
        '{"dt":"2024-01-01","id":1,"name":"a3","v":100}',
        '{"dt":"2024-01-01","id":3,"name":"f","v":-9223372036854775808}',
        '{"dt":"2024-01-02","id":1,"name":"c","v":3}',
        '{"dt":"2024-01-02","id":2,"name":"d","v":4}',
        '{"dt":"2024-01-03","id":1,"name":"e","v":9223372036854775807}',
      ]);
      assert.deepEqual(s(rowsOf('pk_agg')), [
        '{"id":1,"s":12,"mx":7,"mn":3,"lv":"z","lnn":"z","cnt":3,"ds":"3.255"}',
        '{"id":2,"s":3,"mx":1,"mn":0,"lv":"y2","lnn":"y","cnt":2,"ds":null}',
      ]);
      assert.deepEqual(s(rowsOf('pk_partial')), [
        '{"id":1,"a":"a1","b":10,"c":1.5}',
        '{"id":2,"a":"a2b","b":20,"c":2.5}',
        '{"id":3,"a":"a3","b":30,"c":3.5}',
      ]);
      assert.deepEqual(s(rowsOf('pk_first_row')), ['{"id":1,"v":"first"}', '{"id":2,"v":"b"}', '{"id":3,"v":"c"}', '{"id":4,"v":"d"}']);
      assert.deepEqual(s(rowsOf('pk_dv')).length, 5);
    });

    test('pypaimon reads the same rows as Paimon Java for every table both can read', async () => {
      const readable = MATRIX_TABLES.filter((t) => t.pypaimonReads).map((t) => t.name);
      const py = await pypaimon.readAll(wh, MATRIX_DB, readable);
      for (const t of readable) {
        const p = py.get(t);
        assert.ok(p && !('error' in p), `pypaimon failed on ${t}: ${p && 'error' in p ? p.error : 'missing'}`);
        assert.deepEqual(toComparable(p.rows), toComparable(rowsOf(t)), `rows of ${t}`);
      }
    });

    test('known divergence: pypaimon 2.0.0 cannot read DATE partitions Java wrote with legacy names', async () => {
      // Java (partition.legacy-name=true, the default) writes p_date=19723; pypaimon looks for
      // p_date=2024-01-01. If this starts passing, flip pypaimonReads for append_part.
      const py = await pypaimon.readAll(wh, MATRIX_DB, ['append_part']);
      const p = py.get('append_part');
      assert.ok(p && 'error' in p, 'pypaimon unexpectedly read append_part');
      assert.match(p.error, /p_date=\d{4}-\d{2}-\d{2}\//);
      assert.ok(existsSync(join(wh, `${MATRIX_DB}.db`, 'append_part', 'p_str=x', 'p_int=1', 'p_date=19723')));
    });

    test('time travel and branches: Java and pypaimon agree on tag, snapshot and branch reads', async () => {
      const j = java(v);
      const [byTag, bySnap, byBranch] = await j.batch([
        ['read', wh, MATRIX_DB, 'history', 'tag:t3'],
        ['read', wh, MATRIX_DB, 'history', '3'],
        ['read', wh, MATRIX_DB, 'history', 'branch:b1'],
      ]);
      const rowsOfStep = (r: { ok: boolean; stdout: string; error?: string } | undefined): Row[] => {
        assert.ok(r?.ok, r?.error);
        return canonicalSort(parseJsonLines(r.stdout) as Row[]);
      };
      const atTag = rowsOfStep(byTag);
      assert.deepEqual(atTag, rowsOfStep(bySnap));
      assert.deepEqual(atTag.map((r) => canonicalJson(r)), ['{"id":1,"v":"one@3"}', '{"id":2,"v":"v2"}', '{"id":3,"v":"v3"}']);
      const branch = rowsOfStep(byBranch);
      assert.deepEqual(branch.map((r) => canonicalJson(r)), [
        '{"id":1,"v":"one@branch"}',
        '{"id":100,"v":"branch-only"}',
        '{"id":2,"v":"v2"}',
        '{"id":3,"v":"v3"}',
      ]);
      // The typed wrapper gives the same answer as the batch step.
      assert.deepEqual(await j.read(wh, MATRIX_DB, 'history', 3n), atTag);
      assert.deepEqual(toComparable(await pypaimons.read(wh, MATRIX_DB, 'history', 'tag:t3')), toComparable(atTag));
      assert.deepEqual(toComparable(await pypaimons.read(wh, MATRIX_DB, 'history', 'branch:b1')), toComparable(branch));
    });

    test('pypaimon sees the same history metadata as Java (snapshots, schema, tags, branches, consumers)', async () => {
      const d = dumpOf('history');
      const p = await pypaimon.dumpSnapshots(wh, MATRIX_DB, 'history');
      assert.equal(Number(p.latestSnapshotId), Number(d.latestSnapshotId));
      assert.deepEqual(
        p.snapshots.map((s) => [Number(s.id), s.baseManifestList, s.deltaManifestList, s.commitIdentifier]),
        d.snapshots.map((s) => [Number(s.id), s.baseManifestList, s.deltaManifestList, s.commitIdentifier]),
      );
      assert.deepEqual(p.tags.map((t) => [t.name, Number(t.snapshotId)]), d.tags.map((t) => [t.name, Number(t.snapshotId)]));
      assert.deepEqual(p.branches, d.branches);
      assert.deepEqual(toComparable(p.consumers), toComparable(d.consumers));
      const b = await pypaimon.dumpSnapshots(wh, MATRIX_DB, 'history', 'b1');
      const jb = await java(v).dump(wh, MATRIX_DB, 'history', 'b1');
      assert.equal(Number(b.latestSnapshotId), Number(jb.latestSnapshotId));
      assert.deepEqual(b.snapshots.map((s) => Number(s.id)), jb.snapshots.map((s) => Number(s.id)));
      // A branch created from a tag carries that tag (t3) besides its own (bt1).
      assert.deepEqual(jb.tags.map((t) => t.name), ['bt1', 't3']);
      assert.deepEqual(b.tags.map((t) => t.name), ['bt1', 't3']);
    });

    test('reverse direction: Paimon Java reads the tables pypaimon wrote, to the same rows', async () => {
      const pwh = tempWarehouse(`py-written-${FULL[v]}`);
      const created = await pypaimon.create(pwh);
      const names = Object.keys(created.tables).sort();
      assert.deepEqual(names, ['py_append', 'py_append_part', 'py_pk', 'py_pk_dv', 'py_pk_partial']);
      const jall = await java(v).dumpAll(pwh, created.database, names);
      const pall = await pypaimon.readAll(pwh, created.database, names);
      for (const t of names) {
        const je = jall.get(t);
        const pe = pall.get(t);
        assert.ok(je && !('error' in je), `Java failed on ${t}: ${je && 'error' in je ? je.error : ''}`);
        assert.ok(pe && !('error' in pe), `pypaimon failed on ${t}`);
        // DV tables show level-0 rows only after a compaction, which pypaimon never runs.
        assert.equal(je.rows.length > 0, t !== 'py_pk_dv', `${t}: ${je.rows.length} rows`);
        assert.deepEqual(toComparable(je.rows), toComparable(pe.rows), `rows of ${t}`);
        assert.equal(Number(je.dump.latestSnapshotId), created.tables[t]);
      }
      assert.deepEqual(
        (jall.get('py_pk_partial') as { rows: Row[] }).rows.map((r) => canonicalJson(r)),
        ['{"id":1,"a":"a1","b":10}', '{"id":2,"a":"a2","b":20}'],
      );
      // Paimon's own compaction makes the pypaimon-written DV rows visible, to both readers.
      await java(v).compact(pwh, created.database, 'py_pk_dv');
      const dvRows = await java(v).read(pwh, created.database, 'py_pk_dv');
      assert.deepEqual(dvRows.map((r) => canonicalJson(r)), ['{"id":1,"v":"a"}', '{"id":2,"v":"b"}', '{"id":3,"v":"c"}', '{"id":4,"v":"d"}']);
      assert.deepEqual(toComparable(await pypaimons.read(pwh, created.database, 'py_pk_dv')), toComparable(dvRows));
      const pk = (jall.get('py_pk') as { rows: Row[] }).rows.map((r) => canonicalJson(r));
      assert.deepEqual(pk, [
        '{"dt":"2024-01-01","id":1,"name":"a3","v":-9223372036854775808}',
        '{"dt":"2024-01-01","id":2,"name":"b","v":2}',
        '{"dt":"2024-01-02","id":1,"name":"c","v":3}',
        '{"dt":"2024-01-02","id":3,"name":"d","v":9007199254740993}',
      ]);
    });

    test('write, create-table, tag/branch/consumer, compact, expire, list-files and check work on a copy', async () => {
      const j = java(v);
      const cw = copyWarehouse(wh, `maint-${FULL[v]}`);
      const before = rowsOf('pk_dedup');

      // A new table, rows written through the canonical form (typed wrappers: createTable, write).
      await j.createTable(cw, 'scratch', 'w', {
        fields: [
          { name: 'id', type: 'INT NOT NULL' },
          { name: 'big', type: 'BIGINT' },
          { name: 'd', type: 'DECIMAL(20, 2)' },
          { name: 'ts', type: 'TIMESTAMP(6)' },
          { name: 's', type: 'STRING' },
        ],
        primaryKeys: ['id'],
        options: { bucket: '1', 'write-only': 'true' },
      });
      const rows: Row[] = [
        { id: 1, big: 9223372036854775807n, d: '12.50', ts: '2024-05-06T07:08:09.123456000', s: 'x' },
        { id: 2, big: null, d: null, ts: null, s: null },
      ];
      const w = await j.write(cw, 'scratch', 'w', rows);
      assert.equal(Number(w.snapshotId), 1);
      await j.write(cw, 'scratch', 'w', [
        { id: 2, big: 1, d: '0.01', ts: null, s: 'y', _rowKind: '+I' },
        { id: 1, _rowKind: '-D', big: null, d: null, ts: null, s: null },
      ]);

      // The rest of the Java-only history in one JVM (JVM starts dominate on a busy machine).
      const steps: string[][] = [
        ['compact', cw, MATRIX_DB, 'pk_dedup'],
        ['read', cw, MATRIX_DB, 'pk_dedup'],
        ['dump', cw, MATRIX_DB, 'pk_dedup'],
        ['compact', cw, MATRIX_DB, 'append_unpart'],
        ['read', cw, 'scratch', 'w'],
        ['write-loop', cw, 'scratch', 'w', '3', '0', '10'],
        ['create-tag', cw, 'scratch', 'w', 'keep', '2'],
        ['create-branch', cw, 'scratch', 'w', 'br', 'keep'],
        ['create-consumer', cw, 'scratch', 'w', 'cons', '4'],
        ['dump', cw, 'scratch', 'w'],
        ['expire', cw, 'scratch', 'w', '1', '1', String(Date.now()), '100'],
        ['list-files', cw, 'scratch', 'w'],
        ['check', cw, 'scratch', 'w'],
        ['rollback', cw, MATRIX_DB, 'history', 't3'],
      ];
      const res = await j.batch(steps);
      assert.equal(res.length, steps.length, `a step failed: ${res.map((r) => r.error ?? 'ok').join(', ')}`);
      const out = (i: number): Record<string, unknown> => parseJson((res[i] as { stdout: string }).stdout) as Record<string, unknown>;
      const lines = (i: number): string[] => canonicalSort(parseJsonLines((res[i] as { stdout: string }).stdout)).map((r) => canonicalJson(r));

      // Paimon's own full compaction keeps the merged view and commits one COMPACT snapshot.
      assert.equal(out(0).mode, 'bucketed');
      assert.equal(Number(out(0).latestSnapshotId), Number(out(0).before) + 1);
      assert.deepEqual(lines(1), before.map((r) => canonicalJson(r)));
      const compacted = out(2) as unknown as TableDump;
      assert.equal(compacted.snapshots[compacted.snapshots.length - 1]?.commitKind, 'COMPACT');
      assert.equal(out(3).mode, 'append-unaware');

      assert.deepEqual(lines(4), ['{"id":2,"big":1,"d":"0.01","ts":null,"s":"y"}']);
      // Tag keep pins snapshot 2 (the state read in step 4), through expiry and the later writes.
      assert.deepEqual(toComparable(await pypaimons.read(cw, 'scratch', 'w', 'tag:keep')), toComparable(parseJsonLines((res[4] as { stdout: string }).stdout)));
      assert.deepEqual((out(5).commits as { snapshotId: number }[]).map((x) => Number(x.snapshotId)), [3, 4, 5]);

      const dw = out(9) as unknown as TableDump;
      assert.deepEqual(dw.tags.map((t) => t.name), ['keep']);
      assert.deepEqual(dw.branches, ['br']);
      assert.deepEqual(toComparable(dw.consumers), { cons: { nextSnapshot: 4 } });
      // The consumer (next snapshot 4) protects snapshot 4 and later from expiry.
      assert.equal(Number(out(10).earliestSnapshotId), 4);
      const files = out(11) as { files: string[] };
      assert.ok(files.files.includes('snapshot/snapshot-5'));
      assert.ok(files.files.includes('tag/tag-keep'));
      assert.ok(files.files.includes('branch/branch-br/snapshot/snapshot-2'));
      assert.ok(files.files.some((f) => f.startsWith('bucket-0/data-')));
      const ok = out(12) as { ok: boolean; rowCounts: Record<string, number> };
      assert.equal(ok.ok, true);
      assert.equal(ok.rowCounts['main#keep'], 1);
      assert.equal(ok.rowCounts['main@5'], 4);
      // Rollback to a tag removes later snapshots and tags.
      assert.equal(Number(out(13).latestSnapshotId), 3);
      assert.deepEqual(out(13).tags, ['t1', 't3']);

      // Orphan clean (typed wrapper): a planted old file goes, referenced files stay (dry run first).
      const orphan = join(cw, 'scratch.db', 'w', 'bucket-0', 'data-orphan-0.parquet');
      writeFileSync(orphan, 'not parquet');
      const dry = await j.orphanClean(cw, 'scratch', 'w', Date.now() + 60_000, true);
      assert.ok(dry.deletedFiles.some((f) => f.endsWith('data-orphan-0.parquet')), JSON.stringify(dry.deletedFiles));
      assert.ok(existsSync(orphan));
      await j.orphanClean(cw, 'scratch', 'w', Date.now() + 60_000, false);
      assert.ok(!existsSync(orphan));

      // check fails loudly when a referenced file is gone.
      const victim = files.files.find((f) => f.startsWith('bucket-0/data-') && f.endsWith('.parquet')) as string;
      rmSync(join(cw, 'scratch.db', 'w', victim));
      await assert.rejects(j.check(cw, 'scratch', 'w'), (e: Error) => e.message.includes('references missing files') && e.message.includes(victim));
    });

    test('rollback-as-latest exists only from 2.0 on', async () => {
      const j = java(v);
      const cw = copyWarehouse(wh, `ral-${FULL[v]}`);
      if (v === '1.4') {
        await assert.rejects(j.rollbackAsLatest(cw, MATRIX_DB, 'history', 't1'), /does not exist in Paimon 1\.4\.2/);
        return;
      }
      const r = await j.rollbackAsLatest(cw, MATRIX_DB, 'history', 't1');
      assert.equal(r.success, true);
      assert.equal(Number(r.latestSnapshotId), 6);
      assert.deepEqual(await j.read(cw, MATRIX_DB, 'history'), await j.read(wh, MATRIX_DB, 'history', 'tag:t1'));
      assert.deepEqual(toComparable(await pypaimons.read(cw, MATRIX_DB, 'history')), toComparable(await j.read(cw, MATRIX_DB, 'history')));
    });

    test('synth-history builds a metadata-only history that read-metadata and list-files walk', async () => {
      const sw = tempWarehouse(`synth-${FULL[v]}`);
      const res = await java(v).batch([
        ['synth-history', sw, 'bench', 'big', '20', '10', 'touch'],
        ['read-metadata', sw, 'bench', 'big'],
        ['list-files', sw, 'bench', 'big'],
      ]);
      assert.equal(res.length, 3, res.map((r) => r.error ?? 'ok').join(', '));
      const made = parseJson((res[0] as { stdout: string }).stdout) as { snapshots: number; dataFiles: number };
      assert.deepEqual([made.snapshots, made.dataFiles], [20, 200]);
      const meta = parseJson((res[1] as { stdout: string }).stdout) as { snapshots: number; manifestEntries: number; millis: number };
      assert.equal(meta.snapshots, 20);
      assert.ok(meta.manifestEntries >= 200);
      const files = (parseJson((res[2] as { stdout: string }).stdout) as { files: string[] }).files;
      const data = files.filter((f) => /^dt=2024-01-1\d\/bucket-0\/data-synth-/.test(f));
      assert.equal(data.length, 200);
      for (const f of data.slice(0, 5)) assert.ok(existsSync(join(sw, 'bench.db', 'big', f)), f);
    });

    test('golden bytes: BinaryRows of every type, a manifest and a manifest list with their content', async () => {
      const dir = tempWarehouse(`golden-${FULL[v]}`);
      const g = await java(v).golden(dir);
      assert.ok(g.binaryRows > 100);
      const index = parseJson(readFileSync(join(dir, 'golden.json'), 'utf8')) as Record<string, unknown>;
      const rows = index.binaryRows as { name: string; file: string; serializedFile: string; hex: string; fields: string[] }[];
      for (const r of rows) {
        const bytes = readFileSync(join(dir, r.file));
        assert.equal(bytes.toString('hex'), r.hex, r.name);
        const ser = readFileSync(join(dir, r.serializedFile));
        assert.equal(ser.readInt32BE(0), r.fields.length, `${r.name} arity prefix`);
        assert.equal(ser.subarray(4).toString('hex'), r.hex, `${r.name} serialized = arity + bytes`);
      }
      const manifest = index.manifest as { file: string; fileSize: number; entries: unknown[] };
      assert.equal(readFileSync(join(dir, manifest.file)).length, manifest.fileSize);
      assert.equal(manifest.entries.length, 2);
      const ml = index.manifestList as { file: string; fileSize: number };
      assert.equal(readFileSync(join(dir, ml.file)).length, ml.fileSize);
    });
  });
}

test('canonicalSort orders rows the way the tools print them', () => {
  const rows: Row[] = [{ a: 2 }, { a: 10 }, { a: 1n }];
  // '{"a":10}' < '{"a":1}' because '0' < '}': plain code-unit order of the JSON text.
  assert.deepEqual(canonicalSort(rows), [{ a: 10 }, { a: 1n }, { a: 2 }]);
});
