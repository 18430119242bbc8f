import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.data.variant.Variant;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.JsonSerdeUtil;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * VARIANT peer program of the interop tests (compiled with PaimonTool against Paimon 2.0.0;
 * PaimonTool's own read prints VARIANT as unsupported, and its writer cannot build one).
 *
 * Commands:
 *   write wh db table rows.jsonl   one batch commit of the rows: JSON objects by field name, a
 *                                  VARIANT field given as its JSON text (a string, parsed with
 *                                  GenericVariant.fromJson, so "1.50" stays a decimal), inside
 *                                  ROW, ARRAY and MAP too; "_rowKind" ("-D", ...) sets the row kind.
 *                                  Prints {rows, snapshotId}.
 *   read wh db table               every row of the latest snapshot as one JSON line (sorted),
 *                                  a VARIANT as the JSON text Paimon renders (Variant.toJson).
 */
public class VariantTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        if (a.length < 4) throw new IllegalArgumentException("usage: VariantTool write|read wh db table [rows.jsonl]");
        FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
        switch (a[0]) {
            case "write":
                write(t, a[4]);
                break;
            case "read":
                for (String l : read(t)) PaimonTool.out.println(l);
                break;
            default:
                throw new IllegalArgumentException("unknown command " + a[0]);
        }
        PaimonTool.out.flush();
    }

    static void write(FileStoreTable t, String file) throws Exception {
        RowType rt = t.rowType();
        List<GenericRow> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            JsonNode n = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(line);
            RowKind kind = n.has("_rowKind") ? RowKind.fromShortString(n.get("_rowKind").asText()) : RowKind.INSERT;
            GenericRow r = (GenericRow) internal(n, rt);
            r.setRowKind(kind);
            rows.add(r);
        }
        long id = PaimonTool.commitRows(t, rows);
        PaimonTool.emit(PaimonTool.obj("rows", rows.size(), "snapshotId", id));
    }

    /** PaimonTool's JSON -> internal value, with VARIANT (its JSON text) wherever it is nested. */
    static Object internal(JsonNode n, DataType t) {
        if (n == null || n.isNull()) return null;
        switch (t.getTypeRoot()) {
            case VARIANT:
                return GenericVariant.fromJson(n.asText());
            case ARRAY: {
                DataType et = ((ArrayType) t).getElementType();
                Object[] xs = new Object[n.size()];
                for (int i = 0; i < xs.length; i++) xs[i] = internal(n.get(i), et);
                return new GenericArray(xs);
            }
            case MAP: {
                MapType mt = (MapType) t;
                Map<Object, Object> m = new LinkedHashMap<>();
                for (JsonNode kv : n) m.put(internal(kv.get(0), mt.getKeyType()), internal(kv.get(1), mt.getValueType()));
                return new GenericMap(m);
            }
            case ROW: {
                RowType rt = (RowType) t;
                GenericRow r = new GenericRow(rt.getFieldCount());
                for (int i = 0; i < rt.getFieldCount(); i++) {
                    DataField f = rt.getFields().get(i);
                    r.setField(i, internal(n.get(f.name()), f.type()));
                }
                return r;
            }
            default:
                return PaimonTool.internal(n, t);
        }
    }

    static List<String> read(FileStoreTable t) throws Exception {
        RowType rt = t.rowType();
        ReadBuilder rb = t.newReadBuilder();
        List<Split> splits = rb.newScan().plan().splits();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(splits)) {
            r.forEachRemaining(row -> lines.add(PaimonTool.toJson(rowObject(row, rt))));
        }
        Collections.sort(lines);
        return lines;
    }

    static Map<String, Object> rowObject(InternalRow r, RowType rt) {
        Map<String, Object> m = new LinkedHashMap<>();
        List<DataField> fs = rt.getFields();
        for (int i = 0; i < fs.size(); i++) m.put(fs.get(i).name(), value(r, i, fs.get(i).type()));
        return m;
    }

    static Object value(DataGetters g, int pos, DataType t) {
        if (g.isNullAt(pos)) return null;
        switch (t.getTypeRoot()) {
            case VARIANT: {
                Variant v = g.getVariant(pos);
                return v.toJson();
            }
            case ARRAY: {
                InternalArray arr = g.getArray(pos);
                DataType et = ((ArrayType) t).getElementType();
                List<Object> l = new ArrayList<>();
                for (int i = 0; i < arr.size(); i++) l.add(value(arr, i, et));
                return l;
            }
            case MAP: {
                InternalMap m = g.getMap(pos);
                MapType mt = (MapType) t;
                List<Object> l = new ArrayList<>();
                for (int i = 0; i < m.size(); i++) {
                    l.add(java.util.Arrays.asList(value(m.keyArray(), i, mt.getKeyType()), value(m.valueArray(), i, mt.getValueType())));
                }
                return l;
            }
            case ROW: {
                RowType rt = (RowType) t;
                return rowObject(g.getRow(pos, rt.getFieldCount()), rt);
            }
            default:
                return PaimonTool.value(g, pos, t);
        }
    }
}
