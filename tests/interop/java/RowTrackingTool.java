import org.apache.paimon.Snapshot;
import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.IndexManifestEntry;
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
 *   <li>{@code compact wh db tbl [key=value ...]}: Spark's CompactProcedure.compactUnAwareBucketTable without Spark:
 *       AppendCompactCoordinator plans, each AppendCompactTask rewrites with the write type
 *       {@code SpecialFields.rowTypeWithRowTracking(rowType)} (so _ROW_ID and _SEQUENCE_NUMBER
 *       become physical columns of the new files), one commit. With deletion vectors the task
 *       itself reads the vectors through the partition's AppendDeleteFileMaintainer (restored
 *       from the latest snapshot, as in Spark) and returns the index changes with the files.
 *   <li>{@code de-compact wh db tbl}: Spark's CompactProcedure.compactDataEvolutionTable without
 *       Spark (Paimon 2.0): DataEvolutionCompactCoordinator (no blob, no vector compaction) plans
 *       until the end of the scan, each task's doCompact, the extra messages of
 *       DataEvolutionCompactionCommitPreparation, one commit per plan. Called by reflection so
 *       that this tool also compiles against 1.4, which has no such procedure.
 *   <li>{@code read wh db tbl}: every row with its _ROW_ID and _SEQUENCE_NUMBER (the row-tracking
 *       read type), one JSON object a line, sorted.
 *   <li>{@code files wh db tbl}: the latest snapshot's nextRowId, the DataFileMeta of every live
 *       file (value stats decoded over the columns the file holds: valueStatsCols, else its
 *       writeCols in its own schema; none for .blob files), ordered by first row id, data before
 *       blob files, then sequence numbers, and its deletion-vector index entries ("indexFiles").
 * </ul>
 */
public class RowTrackingTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        if (a.length < 4) throw new IllegalArgumentException("usage: RowTrackingTool compact|de-compact|read|files wh db table [key=value ...]");
        FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
        switch (a[0]) {
            case "compact":
                compact(t, dynamicOptions(a, 4));
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

    /** {@code key=value} arguments from {@code from} on: options of this call only, over the table's. */
    static Map<String, String> dynamicOptions(String[] a, int from) {
        Map<String, String> o = new java.util.HashMap<>();
        for (int i = from; i < a.length; i++) {
            int eq = a[i].indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("expected key=value, got " + a[i]);
            o.put(a[i].substring(0, eq), a[i].substring(eq + 1));
        }
        return o;
    }

    static void compact(FileStoreTable table, Map<String, String> options) throws Exception {
        Map<String, String> dynamic = new java.util.HashMap<>(options);
        dynamic.put("write-only", "false");
        FileStoreTable t = table.copy(dynamic);
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
        PaimonTool.rowTrackedFiles(t);
    }
}
