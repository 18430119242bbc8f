/**
 * Manifest codecs other than the default zstd: Paimon Java writes tables with
 * `manifest.compression` = snappy, deflate and null; we decode every manifest list and manifest to
 * the entries Java reports. We then commit to those tables honouring the option (our files carry
 * the same codec) and Java reads the rows back through our snapshot.
 */
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson } from '../../src/paimon/spec/json.js';
import { LocalFileIO } from '../../src/paimon/fs/local-file-io.js';
import { binaryFieldTypeFromSql } from '../../src/paimon/spec/binary-row.js';
import { FileStoreCommit } from '../../src/paimon/table/file-store-commit.js';
import { readHeader } from '../../src/paimon/spec/objects-file.js';
import { toDeleteEntry } from '../../src/paimon/spec/manifest-entry.js';
import { FileSource } from '../../src/paimon/spec/data-file-meta.js';
import { arr, assertEntry, big, obj, paimonTool, paimonToolJson, tempDir } from './avro-support.js';

const VERSION = '1.4.2' as const;
const CODECS: [string, string][] = [
  ['snappy', 'snappy'],
  ['deflate', 'deflate'],
  ['null', 'null'],
];

describe(`manifest codecs written by Paimon Java ${VERSION}`, () => {
  let wh = '';
  const io = new LocalFileIO();
  before(async () => {
    wh = tempDir('codecs-');
    const dir = tempDir('codec-input-');
    for (const [option] of CODECS) {
      const schema = join(dir, `${option}.json`);
      writeFileSync(
        schema,
        JSON.stringify({
          fields: [
            { name: 'dt', type: 'STRING' },
            { name: 'id', type: 'BIGINT NOT NULL' },
            { name: 'v', type: 'STRING' },
          ],
          partitionKeys: ['dt'],
          primaryKeys: ['dt', 'id'],
          options: { bucket: '1', 'manifest.compression': option, 'write-only': 'true' },
        }),
      );
      await paimonToolJson(VERSION, 'create-table', wh, 'interop', `t_${option}`, schema);
      const rows = join(dir, `${option}.jsonl`);
      writeFileSync(rows, '{"dt":"a","id":1,"v":"x"}\n{"dt":"b","id":2,"v":null}\n');
      await paimonToolJson(VERSION, 'write', wh, 'interop', `t_${option}`, rows);
      writeFileSync(rows, '{"dt":"a","id":3,"v":"y"}\n');
      await paimonToolJson(VERSION, 'write', wh, 'interop', `t_${option}`, rows);
    }
  });

  for (const [option, avroCodec] of CODECS) {
    test(`${option}: we decode Java's manifests, and our commit honours the option`, async () => {
      const table = join(wh, 'interop.db', `t_${option}`);
      const c = new FileStoreCommit({
        fileIO: io,
        tablePath: table,
        commitUser: 'ts-codec-test',
        partitionFields: [{ name: 'dt', type: binaryFieldTypeFromSql('STRING') }],
        keyTypes: [binaryFieldTypeFromSql('BIGINT')],
        bucketMode: 'HASH_FIXED',
        tableOptions: { 'manifest.compression': option },
      });
      const latest = await c.snapshotManager.latestSnapshot();
      assert.ok(latest);
      assert.equal(readHeader(readFileSync(join(table, 'manifest', latest.deltaManifestList)), 'list').codec, avroCodec);

      const dump = obj(await paimonToolJson(VERSION, 'dump', wh, 'interop', `t_${option}`));
      let compared = 0;
      for (const [fileName, list] of Object.entries(obj(dump.manifests))) {
        assert.equal(readHeader(readFileSync(join(table, 'manifest', fileName)), fileName).codec, avroCodec);
        const java = arr(list).map(obj);
        const ours = await c.manifestFile.read(fileName);
        assert.equal(ours.length, java.length);
        const byName = new Map(java.map((j) => [String(obj(j.file).fileName), j]));
        for (const e of ours) {
          const j = byName.get(e.file.fileName);
          assert.ok(j, e.file.fileName);
          assertEntry(e, j);
          compared++;
        }
      }
      for (const [listName, content] of Object.entries(obj(dump.manifestLists))) {
        const ours = await c.manifestList.read(listName);
        const java = arr(obj(content).manifests).map(obj);
        assert.deepEqual(ours.map((m) => [m.fileName, m.fileSize]), java.map((j) => [j.fileName, big(j.fileSize)]));
      }
      assert.equal(compared, 3);

      const rowsBefore = (await paimonTool(VERSION, 'read', wh, 'interop', `t_${option}`)).sort();
      const live = await c.scan.readLiveEntries(latest);
      const victim = live[0];
      const copyName = `data-ts-${option}-copy-0.parquet`;
      copyFileSync(c.pathFactory.toDataFilePath(victim.partition, victim.bucket, victim.file), join(c.pathFactory.bucketPath(victim.partition, victim.bucket), copyName));
      const commit = c.commit({
        kind: 'COMPACT',
        deltaEntries: [toDeleteEntry(victim), { ...victim, file: { ...victim.file, fileName: copyName, fileSource: FileSource.COMPACT } }],
        commitIdentifier: 9223372036854775807n,
      });
      const r = await commit;
      assert.equal(readHeader(readFileSync(join(table, 'manifest', r.snapshot.deltaManifestList)), 'ours').codec, avroCodec);
      const rowsAfter = (await paimonTool(VERSION, 'read', wh, 'interop', `t_${option}`)).sort();
      assert.deepEqual(rowsAfter, rowsBefore);
      const check = obj(await paimonToolJson(VERSION, 'check', wh, 'interop', `t_${option}`));
      assert.equal(check.ok, true);
      const snap = obj(parseJson(readFileSync(join(table, 'snapshot', `snapshot-${r.snapshot.id}`), 'utf8'), 'snapshot'));
      assert.equal(snap.commitKind, 'COMPACT');
    });
  }
});
