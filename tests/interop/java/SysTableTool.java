import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.RowType;

import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * System-table peer program of the interop tests (compiled with PaimonTool against Paimon 1.4.2
 * and 2.0.0; prints one JSON document on stdout).
 *
 * Commands:
 *   read wh db table=name,name,... [table=...]
 *                                    reads `table$<name>` for each name through Paimon's own system
 *                                    tables (catalog.getTable of the `$` identifier, a full scan;
 *                                    `table` may be `tbl$branch_b`) and prints
 *                                    {table: {name: {columns: [{name, type}], rows: [[...]]}}}:
 *                                    types as DataType.asSQLString(), values as text (TIMESTAMP as
 *                                    `yyyy-MM-dd HH:mm:ss.SSS` of its LocalDateTime, as MySQL's
 *                                    text protocol sends a DATETIME(3)), NULL as null, rows in
 *                                    the order the system table reads them.
 *                                    `table@tag=...` reads them with the dynamic option
 *                                    scan.tag-name = tag (Table.copy), as FOR VERSION AS OF 'tag'
 *                                    does; the result is keyed by `table@tag`. ARRAY values print
 *                                    as `[a, b]`.
 */
public class SysTableTool {

    static final DateTimeFormatter DATETIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        if (a.length < 4 || !a[0].equals("read")) throw new IllegalArgumentException("usage: SysTableTool read wh db table=name,name,... ...");
        Catalog c = PaimonTool.catalog(a[1]);
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 3; i < a.length; i++) {
            String[] spec = a[i].split("=", 2);
            Map<String, Object> tables = new LinkedHashMap<>();
            String[] at = spec[0].split("@", 2);
            for (String name : spec[1].split(",")) {
                Table t = c.getTable(Identifier.create(a[2], at[0] + "$" + name));
                if (at.length == 2) t = t.copy(Collections.singletonMap("scan.tag-name", at[1]));
                tables.put(name, read(t));
            }
            out.put(spec[0], tables);
        }
        PaimonTool.emit(out);
        PaimonTool.out.flush();
    }

    static Map<String, Object> read(Table t) throws Exception {
        RowType type = t.rowType();
        List<Object> columns = new ArrayList<>();
        List<InternalRow.FieldGetter> getters = new ArrayList<>();
        for (int i = 0; i < type.getFieldCount(); i++) {
            DataField f = type.getFields().get(i);
            columns.add(PaimonTool.obj("name", f.name(), "type", f.type().asSQLString()));
            getters.add(InternalRow.createFieldGetter(f.type(), i));
        }
        List<Object> rows = new ArrayList<>();
        ReadBuilder rb = t.newReadBuilder();
        try (RecordReader<InternalRow> reader = rb.newRead().createReader(rb.newScan().plan())) {
            reader.forEachRemaining(row -> {
                List<Object> values = new ArrayList<>();
                for (int i = 0; i < getters.size(); i++) values.add(text(type.getTypeAt(i), getters.get(i).getFieldOrNull(row)));
                rows.add(values);
            });
        }
        return PaimonTool.obj("columns", columns, "rows", rows);
    }

    static String text(DataType type, Object v) {
        if (v == null) return null;
        if (type.getTypeRoot() == DataTypeRoot.TIMESTAMP_WITHOUT_TIME_ZONE) return ((Timestamp) v).toLocalDateTime().format(DATETIME);
        if (type.getTypeRoot() == DataTypeRoot.ARRAY) {
            InternalArray arr = (InternalArray) v;
            DataType elem = ((ArrayType) type).getElementType();
            InternalArray.ElementGetter g = InternalArray.createElementGetter(elem);
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < arr.size(); i++) parts.add(text(elem, g.getElementOrNull(arr, i)));
            return "[" + String.join(", ", parts) + "]";
        }
        return v.toString();
    }
}
