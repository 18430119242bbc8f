/*
 * CompactBench: the Paimon Java side of bench/compact.ts (one JVM per command, JSON on stdout).
 *
 *   write   <wh> <db> <tbl> <buckets> <rounds> <rowsPerRound> <valueChars> <seed> [mergeEngine]
 *       Creates a deduplicate primary-key table (id BIGINT pk, s STRING, n BIGINT, d DOUBLE;
 *       bucket = <buckets>, parquet, write-only) and writes <rounds> commits with Paimon's own
 *       writer. Each commit holds about <rowsPerRound> distinct keys drawn from a random window of
 *       half the key space (4 * rowsPerRound keys), so keys overlap across commits and every bucket
 *       gets one level-0 file per commit. s is <valueChars> pseudo-random characters (little to
 *       compress). With [mergeEngine] "append": an unaware-bucket append table of the same
 *       columns (no primary key, bucket -1), one small file per commit of about <rowsPerRound> rows.
 *   digest  <wh> <db> <tbl>
 *       Reads the latest snapshot's merged rows in-process and prints their count and an
 *       order-independent digest (sum of a 64-bit hash of every row), so two tables can be compared
 *       without printing millions of rows.
 *   compact <wh> <db> <tbl>
 *       Paimon's own full compaction of every bucket (the same calls as PaimonTool compact), or for
 *       an unaware-bucket append table the tasks of AppendCompactCoordinator run by
 *       AppendCompactTask.doCompact and committed together (as Spark's CompactProcedure
 *       compactUnAwareBucketTable does), timed in process; prints millis, the peak heap used and the process's peak resident set (VmHWM).
 */

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.StreamTableCommit;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;
import java.util.SplittableRandom;

public class CompactBench {
    public static void main(String[] a) throws Exception {
        try {
            switch (a[0]) {
                case "write":
                    write(a[1], a[2], a[3], Integer.parseInt(a[4]), Integer.parseInt(a[5]), Integer.parseInt(a[6]),
                            Integer.parseInt(a[7]), Long.parseLong(a[8]), a.length > 9 ? a[9] : "deduplicate");
                    break;
                case "digest":
                    digest(a[1], a[2], a[3]);
                    break;
                case "compact":
                    compact(a[1], a[2], a[3]);
                    break;
                default:
                    throw new IllegalArgumentException("unknown command " + a[0]);
            }
        } catch (Throwable e) {
            System.err.println("CompactBench error: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static Catalog catalog(String wh) throws Exception {
        org.apache.paimon.options.Options o = new org.apache.paimon.options.Options();
        o.set("warehouse", wh.contains("://") ? wh : "file://" + Paths.get(wh).toAbsolutePath());
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    static FileStoreTable table(String wh, String db, String tbl) throws Exception {
        return (FileStoreTable) catalog(wh).getTable(Identifier.create(db, tbl));
    }

    static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray();

    static void write(String wh, String db, String tbl, int buckets, int rounds, int perRound, int valueChars, long seed,
            String mergeEngine) throws Exception {
        Catalog c = catalog(wh);
        c.createDatabase(db, true);
        boolean append = mergeEngine.equals("append");
        Schema.Builder sb = Schema.newBuilder()
                .column("id", DataTypes.BIGINT().notNull())
                .column("s", DataTypes.STRING())
                .column("n", DataTypes.BIGINT())
                .column("d", DataTypes.DOUBLE())
                .option("file.format", "parquet")
                .option("write-only", "true");
        if (append) sb.option("bucket", "-1");
        else sb.primaryKey("id").option("bucket", String.valueOf(buckets)).option("merge-engine", mergeEngine);
        Schema s = sb.build();
        c.createTable(Identifier.create(db, tbl), s, false);
        FileStoreTable t = (FileStoreTable) c.getTable(Identifier.create(db, tbl));
        long keySpace = 4L * perRound;
        SplittableRandom r = new SplittableRandom(seed);
        char[] buf = new char[valueChars];
        long rows = 0;
        long t0 = System.nanoTime();
        StreamWriteBuilder b = t.newStreamWriteBuilder();
        try (StreamTableWrite w = b.newWrite(); StreamTableCommit cm = b.newCommit()) {
            for (int round = 0; round < rounds; round++) {
                long start = r.nextLong(keySpace / 2);
                for (long k = start; k < start + keySpace / 2; k++) {
                    if (!r.nextBoolean()) continue;
                    for (int i = 0; i < valueChars; i++) buf[i] = ALPHABET[r.nextInt(64)];
                    w.write(GenericRow.of(k, BinaryString.fromString(new String(buf)), (long) round * 1_000_000_000L + k,
                            k / 7.0 + round));
                    rows++;
                }
                cm.commit(round, w.prepareCommit(false, round));
                System.err.println("CompactBench write: round " + round + " committed, " + rows + " rows so far");
            }
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("{\"rowsWritten\":" + rows + ",\"millis\":" + millis + ",\"snapshotId\":"
                + t.snapshotManager().latestSnapshotId() + "}");
    }

    static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        x *= 0xc4ceb9fe1a85ec53L;
        x ^= x >>> 33;
        return x;
    }

    static void digest(String wh, String db, String tbl) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        ReadBuilder rb = t.newReadBuilder();
        long count = 0;
        long sum = 0;
        long t0 = System.nanoTime();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            RecordReader.RecordIterator<InternalRow> it;
            while ((it = reader.readBatch()) != null) {
                InternalRow row;
                while ((row = it.next()) != null) {
                    long h = mix(row.getLong(0));
                    h = mix(h ^ (row.isNullAt(1) ? 0 : row.getString(1).toString().hashCode()));
                    h = mix(h ^ (row.isNullAt(2) ? 0 : row.getLong(2)));
                    h = mix(h ^ (row.isNullAt(3) ? 0 : Double.doubleToLongBits(row.getDouble(3))));
                    sum += h;
                    count++;
                }
                it.releaseBatch();
            }
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        System.out.println("{\"rows\":" + count + ",\"digest\":\"" + Long.toHexString(sum) + "\",\"millis\":" + millis
                + ",\"snapshotId\":" + t.snapshotManager().latestSnapshotId() + "}");
    }

    static void compact(String wh, String db, String tbl) throws Exception {
        FileStoreTable t = table(wh, db, tbl).copy(Map.of("write-only", "false"));
        for (java.lang.management.MemoryPoolMXBean p : java.lang.management.ManagementFactory.getMemoryPoolMXBeans())
            if (p.getType() == java.lang.management.MemoryType.HEAP) p.resetPeakUsage();
        long t0 = System.nanoTime();
        if (t.primaryKeys().isEmpty() && t.coreOptions().bucket() == -1) {
            java.util.List<org.apache.paimon.append.AppendCompactTask> tasks;
            try {
                tasks = new org.apache.paimon.append.AppendCompactCoordinator(t, false).run();
            } catch (org.apache.paimon.table.source.EndOfScanException e) {
                tasks = new java.util.ArrayList<>();
            }
            String user = java.util.UUID.randomUUID().toString();
            java.util.List<org.apache.paimon.table.sink.CommitMessage> messages = new java.util.ArrayList<>();
            org.apache.paimon.operation.BaseAppendFileStoreWrite w =
                    (org.apache.paimon.operation.BaseAppendFileStoreWrite) t.store().newWrite(user);
            try {
                for (org.apache.paimon.append.AppendCompactTask task : tasks) messages.add(task.doCompact(t, w));
            } finally {
                w.close();
            }
            try (org.apache.paimon.table.sink.TableCommitImpl c = t.newCommit(user)) {
                c.commit(messages);
            }
        } else {
        BatchWriteBuilder b = t.newBatchWriteBuilder();
        try (BatchTableWrite w = b.newWrite(); BatchTableCommit c = b.newCommit()) {
            w.withIOManager(org.apache.paimon.disk.IOManager.create(System.getProperty("java.io.tmpdir")));
            for (org.apache.paimon.manifest.BucketEntry e : t.newSnapshotReader().bucketEntries())
                w.compact(e.partition(), e.bucket(), true);
            c.commit(w.prepareCommit());
        }
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        long heap = 0;
        for (java.lang.management.MemoryPoolMXBean p : java.lang.management.ManagementFactory.getMemoryPoolMXBeans())
            if (p.getType() == java.lang.management.MemoryType.HEAP) heap += p.getPeakUsage().getUsed();
        long hwm = -1;
        for (String line : Files.readAllLines(Paths.get("/proc/self/status")))
            if (line.startsWith("VmHWM:")) hwm = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        t.snapshotManager().invalidateCache();
        System.out.println("{\"millis\":" + millis + ",\"peakHeapBytes\":" + heap + ",\"peakRssBytes\":" + hwm
                + ",\"maxHeapBytes\":" + Runtime.getRuntime().maxMemory() + ",\"latestSnapshotId\":"
                + t.snapshotManager().latestSnapshotId() + "}");
    }
}
