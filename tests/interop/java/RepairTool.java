import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.operation.ListUnexistingFiles;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.StreamTableWrite;
import org.apache.paimon.table.sink.StreamWriteBuilder;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.utils.JsonSerdeUtil;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Repair peer program of the interop tests (compiled with PaimonTool against Paimon 1.4.2 and
 * 2.0.0), run in the long-lived JVM of a test file.
 *
 * Commands (each prints one JSON document):
 *   remove-unexisting wh db t dryRun     paimon-core's ListUnexistingFiles per partition, then (unless
 *                                        dryRun) the commit SparkRemoveUnexistingFiles makes:
 *                                        TableCommit.commit(Long.MAX_VALUE, DataIncrement(deleted))
 *                                        -> {"files": [path...], "snapshotId": latest}
 *   write-watermark wh db t jsonl watermark   rows of a JSONL file in one commit whose
 *                                        ManifestCommittable carries the watermark -> {"snapshotId"}
 *   rollback-to-watermark wh db t wm     SnapshotManager.earlierOrEqualWatermark + rollbackTo, as
 *                                        RollbackToWatermarkProcedure -> {"snapshotId": target}
 *   repair-earliest wh db t snapshotId  SnapshotManager.repairEarliestSnapshot (Paimon 2.0; called
 *                                        reflectively, 1.4.2 has none) -> {"previous", "current"}
 *   purge wh db t                        FileStoreTable.purgeFiles, as PurgeFilesProcedure -> {"latestSnapshotId"}
 *   compact-tables wh db t1,t2,...       PaimonTool compact of each table (the work of Flink's
 *                                        compact_database in divided mode, one table at a time)
 *                                        -> {"millis": total}
 *   anything else                        a PaimonTool command
 */
public class RepairTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        run(a);
        PaimonTool.out.flush();
    }

    static void run(String[] a) throws Exception {
        if (a.length == 0) throw new IllegalArgumentException("usage: RepairTool remove-unexisting|write-watermark|rollback-to-watermark|compact-tables ...");
        switch (a[0]) {
            case "remove-unexisting": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                boolean dry = Boolean.parseBoolean(a[4]);
                ListUnexistingFiles op = new ListUnexistingFiles(t);
                List<String> files = new ArrayList<>();
                List<CommitMessage> messages = new ArrayList<>();
                for (BinaryRow p : t.newScan().listPartitions()) {
                    for (Map.Entry<Integer, Map<String, DataFileMeta>> e : op.list(p).entrySet()) {
                        files.addAll(e.getValue().keySet());
                        messages.add(new CommitMessageImpl(p, e.getKey(), t.coreOptions().bucket(),
                                new DataIncrement(Collections.emptyList(), new ArrayList<>(e.getValue().values()), Collections.emptyList()),
                                CompactIncrement.emptyIncrement()));
                    }
                }
                if (!dry && !messages.isEmpty()) {
                    try (TableCommitImpl c = t.newCommit(UUID.randomUUID().toString())) {
                        c.commit(Long.MAX_VALUE, messages);
                    }
                }
                Collections.sort(files);
                t.snapshotManager().invalidateCache();
                PaimonTool.emit(PaimonTool.obj("files", files, "snapshotId", t.snapshotManager().latestSnapshotId()));
                return;
            }
            case "write-watermark": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                long watermark = Long.parseLong(a[5]);
                String user = "wm-" + UUID.randomUUID();
                StreamWriteBuilder b = t.newStreamWriteBuilder().withCommitUser(user);
                long id = 1;
                try (StreamTableWrite w = b.newWrite(); TableCommitImpl c = (TableCommitImpl) b.newCommit()) {
                    w.withIOManager(PaimonTool.ioManager());
                    for (String line : Files.readAllLines(Paths.get(a[4]), StandardCharsets.UTF_8)) {
                        if (line.isBlank()) continue;
                        GenericRow r = PaimonTool.rowFromJson(JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(line), t.rowType());
                        w.write(r);
                    }
                    ManifestCommittable mc = new ManifestCommittable(id, watermark);
                    for (CommitMessage m : w.prepareCommit(false, id)) mc.addFileCommittable(m);
                    c.commit(mc);
                }
                t.snapshotManager().invalidateCache();
                PaimonTool.emit(PaimonTool.obj("snapshotId", t.snapshotManager().latestSnapshotId()));
                return;
            }
            case "rollback-to-watermark": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                Snapshot s = t.snapshotManager().earlierOrEqualWatermark(Long.parseLong(a[4]));
                if (s == null) throw new IllegalStateException("Can not find snapshot earlier than " + a[4]);
                t.rollbackTo(s.id());
                PaimonTool.emit(PaimonTool.obj("snapshotId", s.id()));
                return;
            }
            case "repair-earliest": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                long id = Long.parseLong(a[4]);
                Object previous = t.snapshotManager().getClass().getMethod("repairEarliestSnapshot", long.class).invoke(t.snapshotManager(), id);
                PaimonTool.emit(PaimonTool.obj("previous", previous, "current", id));
                return;
            }
            case "purge": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                t.purgeFiles();
                t.snapshotManager().invalidateCache();
                PaimonTool.emit(PaimonTool.obj("latestSnapshotId", t.snapshotManager().latestSnapshotId()));
                return;
            }
            case "compact-tables": {
                long t0 = System.nanoTime();
                java.io.PrintStream real = PaimonTool.out;
                try {
                    PaimonTool.out = new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
                    for (String tbl : a[3].split(",")) PaimonTool.run(new String[] {"compact", a[1], a[2], tbl});
                } finally {
                    PaimonTool.out = real;
                }
                PaimonTool.emit(PaimonTool.obj("millis", (System.nanoTime() - t0) / 1_000_000));
                return;
            }
            default:
                PaimonTool.run(a);
        }
    }
}
