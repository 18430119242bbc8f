import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BlobData;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.types.DataTypeJsonParser;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Data-evolution tables (Paimon 2.0) as Paimon Java writes and reads them.
 *
 * <ul>
 *   <li>{@code write wh db tbl cols firstRowId rows.jsonl}: one batch commit of the rows (JSON
 *       objects over the columns {@code cols}, comma separated, or {@code *} for all) written with
 *       {@code withWriteType(rowType.project(cols))}, as DataEvolutionTableTest does; with
 *       firstRowId &gt;= 0 every new file of the commit gets that first row id (a partial-column
 *       update of existing rows), else the commit assigns new row ids. BLOB values are given as
 *       strings and written as their UTF-8 bytes.
 *   <li>{@code add-column wh db tbl name type}: ALTER TABLE ADD COLUMN (type as Paimon's JSON
 *       type string, e.g. "STRING").
 *   <li>{@code read wh db tbl}: every row with _ROW_ID and _SEQUENCE_NUMBER, one JSON object a
 *       line, sorted; BLOB values as their UTF-8 text.
 *   <li>{@code files wh db tbl}: PaimonTool's {@code rowTrackedFiles}.
 * </ul>
 */
public class DataEvolutionTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        if (a.length < 4) throw new IllegalArgumentException("usage: DataEvolutionTool write|add-column|read|files wh db table ...");
        switch (a[0]) {
            case "write":
                write(PaimonTool.table(a[1], a[2], a[3]), a[4], Long.parseLong(a[5]), a[6]);
                break;
            case "add-column": {
                Catalog c = PaimonTool.catalog(a[1]);
                DataType t = DataTypeJsonParser.parseDataType(JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree("\"" + a[5] + "\""));
                c.alterTable(Identifier.create(a[2], a[3]), SchemaChange.addColumn(a[4], t), false);
                PaimonTool.emit(PaimonTool.obj("added", a[4]));
                break;
            }
            case "read":
                read(PaimonTool.table(a[1], a[2], a[3]));
                break;
            case "files":
                files(PaimonTool.table(a[1], a[2], a[3]));
                break;
            default:
                throw new IllegalArgumentException("unknown command " + a[0]);
        }
        PaimonTool.out.flush();
    }

    static void write(FileStoreTable t, String cols, long firstRowId, String file) throws Exception {
        RowType rt = cols.equals("*") ? t.rowType() : t.rowType().project(Arrays.asList(cols.split(",")));
        List<GenericRow> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            JsonNode n = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(line);
            GenericRow r = new GenericRow(rt.getFieldCount());
            for (int i = 0; i < rt.getFieldCount(); i++) {
                DataField f = rt.getFields().get(i);
                JsonNode v = n.get(f.name());
                if (f.type().getTypeRoot() == DataTypeRoot.BLOB) {
                    r.setField(i, v == null || v.isNull() ? null : new BlobData(v.asText().getBytes(StandardCharsets.UTF_8)));
                } else {
                    r.setField(i, PaimonTool.internal(v, f.type()));
                }
            }
            rows.add(r);
        }
        BatchWriteBuilder builder = t.newBatchWriteBuilder();
        List<CommitMessage> msgs;
        try (BatchTableWrite w = builder.newWrite().withWriteType(rt)) {
            for (GenericRow r : rows) w.write(r);
            msgs = w.prepareCommit();
        }
        if (firstRowId >= 0) {
            for (CommitMessage m : msgs) {
                List<DataFileMeta> files = ((CommitMessageImpl) m).newFilesIncrement().newFiles();
                List<DataFileMeta> assigned = new ArrayList<>();
                for (DataFileMeta f : files) assigned.add(f.assignFirstRowId(firstRowId));
                files.clear();
                files.addAll(assigned);
            }
        }
        try (BatchTableCommit c = builder.newCommit()) {
            c.commit(msgs);
        }
        t.snapshotManager().invalidateCache();
        PaimonTool.emit(PaimonTool.obj("rows", rows.size(), "snapshotId", t.snapshotManager().latestSnapshotId()));
    }

    static void read(FileStoreTable t) throws Exception {
        RowType rt = SpecialFields.rowTypeWithRowTracking(t.rowType());
        ReadBuilder rb = t.newReadBuilder().withReadType(rt);
        List<Split> splits = rb.newScan().plan().splits();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(splits)) {
            r.forEachRemaining(row -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    DataField f = rt.getFields().get(i);
                    if (f.type().getTypeRoot() == DataTypeRoot.BLOB) {
                        m.put(f.name(), row.isNullAt(i) ? null : new String(row.getBlob(i).toData(), StandardCharsets.UTF_8));
                    } else {
                        m.put(f.name(), PaimonTool.value(row, i, f.type()));
                    }
                }
                lines.add(PaimonTool.toJson(m));
            });
        }
        Collections.sort(lines);
        for (String l : lines) PaimonTool.out.println(l);
    }

    static void files(FileStoreTable t) throws Exception {
        PaimonTool.rowTrackedFiles(t);
    }
}
