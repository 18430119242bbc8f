import org.apache.paimon.Snapshot;
import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Row-tracking append tables as Paimon Java sees them.
 *
 * <ul>
 *   <li>{@code compact wh db tbl}: Spark's CompactProcedure.compactUnAwareBucketTable without Spark:
 *       AppendCompactCoordinator plans, each AppendCompactTask rewrites with the write type
 *       {@code SpecialFields.rowTypeWithRowTracking(rowType)} (so _ROW_ID and _SEQUENCE_NUMBER
 *       become physical columns of the new files), one commit.
 *   <li>{@code de-compact wh db tbl}: Spark's CompactProcedure.compactDataEvolutionTable without
 *       Spark (Paimon 2.0): DataEvolutionCompactCoordinator (no blob, no vector compaction) plans
 *       until the end of the scan, each task's doCompact, the extra messages of
 *       DataEvolutionCompactionCommitPreparation, one commit per plan. Called by reflection so
 *       that this tool also compiles against 1.4, which has no such procedure.
 *   <li>{@code read wh db tbl}: every row with its _ROW_ID and _SEQUENCE_NUMBER (the row-tracking
 *       read type), one JSON object a line, sorted.
 *   <li>{@code files wh db tbl}: the latest snapshot's nextRowId and the DataFileMeta of every live
 *       file (value stats decoded over the file's write columns), ordered by first row id, then
 *       minimum sequence number.
 * </ul>
 */
public class RowTrackingTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        if (a.length < 4) throw new IllegalArgumentException("usage: RowTrackingTool compact|de-compact|read|files wh db table");
        FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
        switch (a[0]) {
            case "compact":
                compact(t);
                break;
            case "de-compact":
                dataEvolutionCompact(t);
                break;
            case "read":
                read(t);
                break;
            case "files":
                files(t);
                break;
            default:
                throw new IllegalArgumentException("unknown command " + a[0]);
        }
        PaimonTool.out.flush();
    }

    static void compact(FileStoreTable table) throws Exception {
        FileStoreTable t = table.copy(Map.of("write-only", "false"));
        String user = "compact-" + UUID.randomUUID();
        List<AppendCompactTask> tasks = new AppendCompactCoordinator(t, false).run();
        List<CommitMessage> msgs = new ArrayList<>();
        BaseAppendFileStoreWrite w = (BaseAppendFileStoreWrite) t.store().newWrite(user);
        try {
            w.withIOManager(PaimonTool.ioManager());
            if (t.coreOptions().rowTrackingEnabled()) w.withWriteType(SpecialFields.rowTypeWithRowTracking(t.rowType()));
            for (AppendCompactTask task : tasks) msgs.add(task.doCompact(t, w));
        } finally {
            w.close();
        }
        if (!msgs.isEmpty()) {
            try (TableCommitImpl c = t.newCommit(user)) {
                c.commit(msgs);
            }
        }
        t.snapshotManager().invalidateCache();
        PaimonTool.emit(PaimonTool.obj("tasks", tasks.size(), "latestSnapshotId", t.snapshotManager().latestSnapshotId()));
    }

    @SuppressWarnings("unchecked")
    static void dataEvolutionCompact(FileStoreTable table) throws Exception {
        FileStoreTable t = table.copy(Map.of("write-only", "false"));
        Snapshot s = t.snapshotManager().latestSnapshot();
        String user = "compact-" + UUID.randomUUID();
        String pkg = "org.apache.paimon.append.dataevolution.";
        Class<?> coordinatorClass = Class.forName(pkg + "DataEvolutionCompactCoordinator");
        Object coordinator = coordinatorClass
                .getConstructor(FileStoreTable.class, Class.forName("org.apache.paimon.partition.PartitionPredicate"), boolean.class, boolean.class, Snapshot.class)
                .newInstance(t, null, false, false, s);
        Class<?> preparationClass = Class.forName(pkg + "DataEvolutionCompactionCommitPreparation");
        int tasks = 0, commits = 0;
        while (true) {
            List<?> planned;
            try {
                planned = (List<?>) coordinatorClass.getMethod("plan").invoke(coordinator);
            } catch (java.lang.reflect.InvocationTargetException e) {
                if (e.getCause() != null && e.getCause().getClass().getSimpleName().equals("EndOfScanException")) break;
                throw e;
            }
            if (planned.isEmpty()) continue;
            List<CommitMessage> msgs = new ArrayList<>();
            for (Object task : planned) msgs.add((CommitMessage) task.getClass().getMethod("doCompact", FileStoreTable.class, String.class).invoke(task, t, user));
            Object preparation = preparationClass.getConstructor(FileStoreTable.class, Snapshot.class).newInstance(t, s);
            msgs.addAll((List<CommitMessage>) preparationClass.getMethod("prepare", List.class).invoke(preparation, new ArrayList<>(msgs)));
            try (TableCommitImpl c = t.newCommit(user)) {
                c.commit(msgs);
            }
            tasks += planned.size();
            commits++;
        }
        t.snapshotManager().invalidateCache();
        PaimonTool.emit(PaimonTool.obj("tasks", tasks, "commits", commits, "latestSnapshotId", t.snapshotManager().latestSnapshotId()));
    }

    static void read(FileStoreTable t) throws Exception {
        RowType rt = SpecialFields.rowTypeWithRowTracking(t.rowType());
        ReadBuilder rb = t.newReadBuilder().withReadType(rt);
        List<Split> splits = rb.newScan().plan().splits();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(splits)) {
            r.forEachRemaining(row -> lines.add(PaimonTool.toJson(PaimonTool.rowObject(row, rt))));
        }
        Collections.sort(lines);
        for (String l : lines) PaimonTool.out.println(l);
    }

    static void files(FileStoreTable t) throws Exception {
        Snapshot s = t.snapshotManager().latestSnapshot();
        List<DataFileMeta> live = new ArrayList<>();
        if (s != null) for (ManifestEntry e : t.store().newScan().withSnapshot(s).plan().files()) live.add(e.file());
        live.sort(Comparator.comparing((DataFileMeta f) -> f.firstRowId() == null ? Long.MAX_VALUE : f.firstRowId())
                .thenComparingLong(DataFileMeta::minSequenceNumber)
                .thenComparing(DataFileMeta::fileName));
        List<Object> files = new ArrayList<>();
        for (DataFileMeta f : live) {
            TableSchema schema = t.schemaManager().schema(f.schemaId());
            RowType written = schema.logicalRowType();
            if (f.writeCols() != null && f.writeCols().contains(SpecialFields.ROW_ID.name())) written = SpecialFields.rowTypeWithRowTracking(written);
            List<DataType> types = new ArrayList<>();
            List<String> cols = f.valueStatsCols() != null ? f.valueStatsCols() : written.getFieldNames();
            for (String c : cols) for (DataField df : written.getFields()) if (df.name().equals(c)) types.add(df.type());
            Map<String, Object> m = PaimonTool.dataFile(f, null, Collections.emptyList());
            m.put("valueStats", PaimonTool.stats(f.valueStats(), types));
            files.add(m);
        }
        PaimonTool.emit(PaimonTool.obj("snapshotId", s == null ? null : s.id(), "nextRowId", s == null ? null : s.nextRowId(), "files", files));
    }
}
