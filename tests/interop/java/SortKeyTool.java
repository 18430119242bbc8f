import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.sort.hilbert.HilbertIndexer;
import org.apache.paimon.sort.zorder.ZIndexer;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.InternalRowUtils;
import org.apache.paimon.utils.JsonSerdeUtil;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Test peer: Paimon Java's own sort keys of a sort compaction (ZIndexer, HilbertIndexer, and the
 * ascending NULLS FIRST record order), to check the proxy's sort compaction against.
 *
 * <pre>
 * keys  spec.json                         {"fields":[{"name","type"}],"rows":[{..}],
 *                                           "cases":[{"orderBy":[..],"varTypeSize":8}]}
 *                                          -> {"cases":[{"zorder":[hex..],"hilbert":[hex..]|null}]}
 * check wh db tbl strategy col1,col2      -> for every data file of the latest snapshot, its rows read
 *                                          in file order: how many adjacent pairs are out of order
 * </pre>
 */
public class SortKeyTool {

    public static void main(String[] a) {
        PaimonTool.out = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        // stdout carries our JSON only: whatever Paimon or Hadoop prints goes to stderr.
        System.setOut(System.err);
        int rc = 0;
        try {
            switch (a[0]) {
                case "keys":
                    keys(a[1]);
                    break;
                case "check":
                    check(a[1], a[2], a[3], a[4], Arrays.asList(a[5].split(",")));
                    break;
                default:
                    throw new IllegalArgumentException("unknown command " + a[0]);
            }
        } catch (Throwable t) {
            System.err.println("SortKeyTool error: " + t);
            t.printStackTrace(System.err);
            rc = 1;
        }
        PaimonTool.out.flush();
        System.exit(rc);
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }

    static int compareUnsigned(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            int c = (a[i] & 0xff) - (b[i] & 0xff);
            if (c != 0) return c;
        }
        return a.length - b.length;
    }

    static void keys(String specFile) throws Exception {
        JsonNode spec = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(new String(Files.readAllBytes(Paths.get(specFile)), StandardCharsets.UTF_8));
        List<DataField> fields = new ArrayList<>();
        int id = 0;
        for (JsonNode f : spec.get("fields")) {
            fields.add(new DataField(id++, f.get("name").asText(), DataTypeJsonParser.parseDataType(f.get("type"))));
        }
        RowType rt = new RowType(fields);
        List<GenericRow> rows = new ArrayList<>();
        for (JsonNode r : spec.get("rows")) rows.add(PaimonTool.rowFromJson(r, rt));
        List<Object> results = new ArrayList<>();
        for (JsonNode c : spec.get("cases")) {
            List<String> cols = new ArrayList<>();
            for (JsonNode x : c.get("orderBy")) cols.add(x.asText());
            ZIndexer z = new ZIndexer(rt, cols, c.get("varTypeSize").asInt());
            z.open();
            HilbertIndexer h = cols.size() > 1 ? new HilbertIndexer(rt, cols) : null;
            if (h != null) h.open();
            List<Object> zs = new ArrayList<>();
            List<Object> hs = new ArrayList<>();
            for (GenericRow row : rows) {
                zs.add(hex(z.index(row)));
                if (h != null) hs.add(hex(h.index(row)));
            }
            results.add(PaimonTool.obj("zorder", zs, "hilbert", h == null ? null : hs));
        }
        PaimonTool.emit(PaimonTool.obj("cases", results));
    }

    interface KeyFn {
        Object key(InternalRow row);
    }

    static void check(String wh, String db, String tbl, String strategy, List<String> cols) throws Exception {
        FileStoreTable t = PaimonTool.table(PaimonTool.catalog(wh), db, tbl);
        RowType rt = t.rowType();
        KeyFn fn;
        java.util.Comparator<Object> cmp;
        switch (strategy) {
            case "zorder": {
                ZIndexer z = new ZIndexer(rt, cols, t.coreOptions().varTypeSize());
                z.open();
                fn = row -> z.index(row).clone();
                cmp = (x, y) -> compareUnsigned((byte[]) x, (byte[]) y);
                break;
            }
            case "hilbert": {
                HilbertIndexer h = new HilbertIndexer(rt, cols);
                h.open();
                fn = row -> h.index(row).clone();
                cmp = (x, y) -> compareUnsigned((byte[]) x, (byte[]) y);
                break;
            }
            case "order": {
                int[] idx = new int[cols.size()];
                DataType[] types = new DataType[cols.size()];
                InternalRow.FieldGetter[] getters = new InternalRow.FieldGetter[cols.size()];
                for (int i = 0; i < idx.length; i++) {
                    idx[i] = rt.getFieldNames().indexOf(cols.get(i));
                    types[i] = rt.getTypeAt(idx[i]);
                    getters[i] = InternalRow.createFieldGetter(types[i], idx[i]);
                }
                fn = row -> {
                    Object[] k = new Object[idx.length];
                    for (int i = 0; i < idx.length; i++) {
                        Object v = getters[i].getFieldOrNull(row);
                        // copy: readers reuse their row objects
                        if (v instanceof BinaryString) v = BinaryString.fromString(v.toString());
                        k[i] = v;
                    }
                    return k;
                };
                cmp = (x, y) -> {
                    Object[] a = (Object[]) x, b = (Object[]) y;
                    for (int i = 0; i < a.length; i++) {
                        if (a[i] == null && b[i] == null) continue;
                        if (a[i] == null) return -1; // NULLS FIRST
                        if (b[i] == null) return 1;
                        DataTypeRoot root = types[i].getTypeRoot();
                        int c = root == DataTypeRoot.BINARY || root == DataTypeRoot.VARBINARY
                                ? compareUnsigned((byte[]) a[i], (byte[]) b[i])
                                : InternalRowUtils.compare(a[i], b[i], root);
                        if (c != 0) return c;
                    }
                    return 0;
                };
                break;
            }
            default:
                throw new IllegalArgumentException("unknown strategy " + strategy);
        }
        List<Object> files = new ArrayList<>();
        long total = 0, violations = 0;
        TableRead read = t.newReadBuilder().newRead();
        for (DataSplit split : t.newSnapshotReader().read().dataSplits()) {
            for (DataFileMeta f : split.dataFiles()) {
                DataSplit one = DataSplit.builder()
                        .withSnapshot(split.snapshotId())
                        .withPartition(split.partition())
                        .withBucket(split.bucket())
                        .withBucketPath(split.bucketPath())
                        .withTotalBuckets(split.totalBuckets())
                        .withDataFiles(Collections.singletonList(f))
                        .isStreaming(false)
                        .rawConvertible(true)
                        .build();
                long rows = 0, bad = 0, first = -1;
                Object prev = null;
                try (RecordReader<InternalRow> r = read.createReader(one)) {
                    RecordReader.RecordIterator<InternalRow> it;
                    while ((it = r.readBatch()) != null) {
                        InternalRow row;
                        while ((row = it.next()) != null) {
                            Object k = fn.key(row);
                            if (prev != null && cmp.compare(prev, k) > 0) {
                                bad++;
                                if (first < 0) first = rows;
                            }
                            prev = k;
                            rows++;
                        }
                        it.releaseBatch();
                    }
                }
                total += rows;
                violations += bad;
                Map<String, Object> m = PaimonTool.obj("file", f.fileName(), "rows", rows, "violations", bad, "firstViolation", first);
                files.add(m);
            }
        }
        PaimonTool.emit(PaimonTool.obj("strategy", strategy, "rows", total, "violations", violations, "files", files));
    }
}
