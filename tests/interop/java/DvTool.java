import org.apache.paimon.Snapshot;
import org.apache.paimon.deletionvectors.Bitmap64DeletionVector;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.table.FileStoreTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Deletion-vector peer program of the interop tests (compiled with PaimonTool against Paimon
 * 1.4.2 and 2.0.0; prints one JSON document on stdout).
 *
 * Commands:
 *   golden                     serialized deletion vectors (V1 BitmapDeletionVector and V2
 *                              Bitmap64DeletionVector) of fixed position sets, as hex, for the
 *                              decoder's golden tests
 *   read-dvs wh db table       every deletion vector of the latest snapshot as Paimon reads it:
 *                              data file name, index file, bucket and the deleted positions
 *                              ("dvs"); vectors of data files that are not live go to "stale"
 *   delete wh db table field v1,v2,...
 *                              deletes the rows whose INT/BIGINT column `field` has one of the values
 *                              the way Spark's DELETE does on an append table with deletion vectors
 *                              (PaimonSparkWriter.persistDeletionVectors): the positions of the
 *                              matching rows in each live data file become a vector that the
 *                              append deletion-file maintainer of the partition (bucket -1) or of
 *                              the bucket (fixed bucket) merges and persists; the index changes
 *                              are committed as one snapshot. Prints the deleted positions per file.
 */
public class DvTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        if (a.length == 0) throw new IllegalArgumentException("usage: DvTool golden | read-dvs wh db table");
        switch (a[0]) {
            case "golden":
                golden();
                break;
            case "read-dvs":
                readDvs(a[1], a[2], a[3]);
                break;
            case "delete":
                delete(a[1], a[2], a[3], a[4], a[5]);
                break;
            default:
                throw new IllegalArgumentException("unknown command " + a[0]);
        }
        PaimonTool.out.flush();
    }

    /** Cases: name, bitmap64, ranges {start, endExclusive, step}. */
    static final Object[][] CASES = {
        {"empty", false, new long[][] {}},
        {"single-zero", false, new long[][] {{0, 1, 1}}},
        {"sparse-array", false, new long[][] {{3, 4, 1}, {7, 8, 1}, {65535, 65537, 1}, {100000, 100001, 1}, {2000000, 2000001, 1}}},
        {"dense-bitmap", false, new long[][] {{0, 30000, 3}}},
        {"bitmap-and-array", false, new long[][] {{1, 20000, 2}, {70000, 70100, 7}, {140000, 140001, 1}}},
        {"many-containers", false, new long[][] {{0, 6000000, 65537}}},
        {"large-positions", false, new long[][] {{2147483000L, 2147483647L, 101}}},
        {"v2-empty", true, new long[][] {}},
        {"v2-runs", true, new long[][] {{0, 5000, 1}, {70000, 70010, 1}, {131072, 131073, 1}}},
        {"v2-mixed", true, new long[][] {{0, 30000, 3}, {100000, 100500, 1}, {200000, 200100, 9}}},
        {"v2-many-containers", true, new long[][] {{5, 6000000, 65539}}},
        {"v2-high-keys", true, new long[][] {{1, 2, 1}, {4294967296L + 5, 4294967296L + 6, 1}, {3 * 4294967296L + 7, 3 * 4294967296L + 9000, 1}}},
    };

    static void golden() {
        List<Object> out = new ArrayList<>();
        for (Object[] c : CASES) {
            boolean b64 = (Boolean) c[1];
            long[][] ranges = (long[][]) c[2];
            DeletionVector dv = b64 ? new Bitmap64DeletionVector() : new BitmapDeletionVector();
            List<Object> rs = new ArrayList<>();
            for (long[] r : ranges) {
                for (long p = r[0]; p < r[1]; p += r[2]) dv.delete(p);
                rs.add(List.of(r[0], r[1], r[2]));
            }
            byte[] bytes = DeletionVector.serializeToBytes(dv);
            // Java reads it back (the framing our reader checks: size, magic, CRC).
            DeletionVector back = DeletionVector.deserializeFromBytes(bytes);
            if (back.getCardinality() != dv.getCardinality()) throw new IllegalStateException("round trip of " + c[0]);
            out.add(PaimonTool.obj("name", c[0], "bitmap64", b64, "ranges", rs, "cardinality", dv.getCardinality(), "hex", PaimonTool.hex(bytes)));
        }
        PaimonTool.emit(PaimonTool.obj("cases", out));
    }

    static void readDvs(String wh, String db, String tbl) throws Exception {
        FileStoreTable t = PaimonTool.table(wh, db, tbl);
        Snapshot s = t.snapshotManager().latestSnapshot();
        List<Object> out = new ArrayList<>();
        List<Object> stale = new ArrayList<>();
        if (s != null) {
            IndexFileHandler h = t.store().newIndexFileHandler();
            // Row counts of the live data files: positions are probed with isDeleted (1.4 has no iterator).
            Map<String, Long> rowCounts = new TreeMap<>();
            for (ManifestEntry m : t.store().newScan().withSnapshot(s).plan().files()) rowCounts.put(m.file().fileName(), m.file().rowCount());
            for (IndexManifestEntry e : h.scan(s, "DELETION_VECTORS")) {
                Map<String, DeletionVector> dvs = new TreeMap<>(h.readAllDeletionVectors(e));
                for (Map.Entry<String, DeletionVector> d : dvs.entrySet()) {
                    List<Long> positions = new ArrayList<>();
                    Long rows = rowCounts.get(d.getKey());
                    if (rows == null) {
                        // A vector of a data file that is not live (Paimon 1.4's FileRewriteCompactTask
                        // did not commit the index change; fixed in 2.0, apache/paimon#8783).
                        stale.add(PaimonTool.obj("dataFile", d.getKey(), "indexFile", e.indexFile().fileName(), "cardinality", d.getValue().getCardinality()));
                        continue;
                    }
                    for (long p = 0; p < rows; p++) if (d.getValue().isDeleted(p)) positions.add(p);
                    out.add(PaimonTool.obj(
                            "dataFile", d.getKey(),
                            "indexFile", e.indexFile().fileName(),
                            "bucket", e.bucket(),
                            "cardinality", d.getValue().getCardinality(),
                            "bitmap64", d.getValue() instanceof Bitmap64DeletionVector,
                            "positions", positions));
                }
            }
        }
        PaimonTool.emit(PaimonTool.obj("snapshotId", s == null ? null : s.id(), "dvs", out, "stale", stale));
    }

    static void delete(String wh, String db, String tbl, String field, String values) throws Exception {
        FileStoreTable t = PaimonTool.table(wh, db, tbl);
        Snapshot s = t.snapshotManager().latestSnapshot();
        if (s == null) throw new IllegalStateException("table has no snapshot");
        java.util.Set<Long> wanted = new java.util.HashSet<>();
        for (String v : values.split(",")) if (!v.isEmpty()) wanted.add(Long.parseLong(v.trim()));
        int idx = t.rowType().getFieldNames().indexOf(field);
        if (idx < 0) throw new IllegalArgumentException("no field " + field);
        boolean isLong = t.rowType().getTypeAt(idx).getTypeRoot() == org.apache.paimon.types.DataTypeRoot.BIGINT;
        boolean bitmap64 = "true".equals(t.options().get("deletion-vectors.bitmap64"));
        boolean unaware = t.bucketMode() == org.apache.paimon.table.BucketMode.BUCKET_UNAWARE;
        // Positions of the matching rows in each live file (read alone, no vector applied: file order).
        Map<String, List<Object>> grouped = new TreeMap<>();
        Map<String, org.apache.paimon.data.BinaryRow> partitions = new java.util.HashMap<>();
        Map<String, Integer> buckets = new java.util.HashMap<>();
        Map<String, Map<String, DeletionVector>> dvsByGroup = new TreeMap<>();
        List<Object> report = new ArrayList<>();
        org.apache.paimon.table.source.InnerTableRead read = t.newRead();
        for (org.apache.paimon.table.source.DataSplit split : t.newSnapshotReader().withSnapshot(s).read().dataSplits()) {
            for (org.apache.paimon.io.DataFileMeta f : split.dataFiles()) {
                org.apache.paimon.table.source.DataSplit one = org.apache.paimon.table.source.DataSplit.builder()
                        .withSnapshot(s.id()).withPartition(split.partition()).withBucket(split.bucket())
                        .withBucketPath(split.bucketPath()).withTotalBuckets(split.totalBuckets())
                        .withDataFiles(java.util.Collections.singletonList(f)).rawConvertible(true).build();
                DeletionVector dv = bitmap64 ? new Bitmap64DeletionVector() : new BitmapDeletionVector();
                List<Long> positions = new ArrayList<>();
                long pos = 0;
                try (org.apache.paimon.reader.RecordReader<org.apache.paimon.data.InternalRow> r = read.createReader(one)) {
                    org.apache.paimon.reader.RecordReader.RecordIterator<org.apache.paimon.data.InternalRow> it;
                    while ((it = r.readBatch()) != null) {
                        org.apache.paimon.data.InternalRow row;
                        while ((row = it.next()) != null) {
                            if (!row.isNullAt(idx) && wanted.contains(isLong ? row.getLong(idx) : (long) row.getInt(idx))) {
                                dv.delete(pos);
                                positions.add(pos);
                            }
                            pos++;
                        }
                        it.releaseBatch();
                    }
                }
                if (pos != f.rowCount()) throw new IllegalStateException("read " + pos + " rows of " + f.fileName() + ", it has " + f.rowCount());
                if (positions.isEmpty()) continue;
                String key = org.apache.paimon.utils.SerializationUtils.serializeBinaryRow(split.partition()).length + ":" + java.util.Arrays.toString(org.apache.paimon.utils.SerializationUtils.serializeBinaryRow(split.partition())) + "|" + (unaware ? 0 : split.bucket());
                partitions.put(key, split.partition());
                buckets.put(key, split.bucket());
                dvsByGroup.computeIfAbsent(key, k -> new TreeMap<>()).put(f.fileName(), dv);
                report.add(PaimonTool.obj("dataFile", f.fileName(), "bucket", split.bucket(), "positions", positions));
            }
        }
        List<org.apache.paimon.table.sink.CommitMessage> msgs = new ArrayList<>();
        IndexFileHandler h = t.store().newIndexFileHandler();
        for (Map.Entry<String, Map<String, DeletionVector>> g : dvsByGroup.entrySet()) {
            org.apache.paimon.data.BinaryRow p = partitions.get(g.getKey());
            org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer m = unaware
                    ? org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer.forUnawareAppend(h, s, p)
                    : org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer.forBucketedAppend(h, s, p, buckets.get(g.getKey()));
            for (Map.Entry<String, DeletionVector> d : g.getValue().entrySet()) m.notifyNewDeletionVector(d.getKey(), d.getValue());
            List<org.apache.paimon.index.IndexFileMeta> added = new ArrayList<>();
            List<org.apache.paimon.index.IndexFileMeta> deleted = new ArrayList<>();
            for (IndexManifestEntry e : m.persist()) (e.kind() == org.apache.paimon.manifest.FileKind.ADD ? added : deleted).add(e.indexFile());
            msgs.add(new org.apache.paimon.table.sink.CommitMessageImpl(
                    m.getPartition(), m.getBucket(), null,
                    new org.apache.paimon.io.DataIncrement(java.util.Collections.emptyList(), java.util.Collections.emptyList(), java.util.Collections.emptyList(), added, deleted),
                    org.apache.paimon.io.CompactIncrement.emptyIncrement()));
        }
        if (!msgs.isEmpty()) {
            try (org.apache.paimon.table.sink.BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
                c.commit(msgs);
            }
        }
        t.snapshotManager().invalidateCache();
        PaimonTool.emit(PaimonTool.obj("deleted", report, "latestSnapshotId", t.snapshotManager().latestSnapshotId()));
    }
}
