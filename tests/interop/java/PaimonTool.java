/*
 * PaimonTool: the Paimon Java reference peer of our interop tests.
 *
 * One source file compiled against each pinned Paimon version (tests/setup/paimon-java.sh compiles
 * it into lib-classes-<version>/). Every command prints JSON on stdout (one document, or JSON lines
 * for `read`); logs and errors go to stderr; a failure exits non-zero with "PaimonTool error: ..."
 * on stderr. 64-bit integers are printed exactly as JSON numbers (parse them with a BigInt-aware
 * parser, e.g. parseJson in tests/interop/peers.ts).
 *
 * Canonical value rendering (shared with tests/interop/python/paimon_peer.py and peers.ts):
 *   BOOLEAN -> true/false; TINYINT..BIGINT -> number; FLOAT/DOUBLE -> shortest round-trip decimal of
 *   the (widened) double, "NaN"/"Infinity"/"-Infinity" as strings; DECIMAL -> plain string with the
 *   column's scale ("12.30"); CHAR/VARCHAR -> string; BINARY/VARBINARY -> lowercase hex string;
 *   DATE -> "YYYY-MM-DD"; TIME -> "HH:MM:SS.mmm"; TIMESTAMP(p) -> "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn"
 *   (always 9 fraction digits); TIMESTAMP_LTZ(p) -> the same with a trailing "Z" (UTC);
 *   ARRAY -> array; MAP/MULTISET -> array of [key, value] pairs; ROW -> object by field name.
 *
 * Commands: see usage() below.
 */

import org.apache.paimon.CoreOptions;
import org.apache.paimon.FileStore;
import org.apache.paimon.Snapshot;
import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryRowWriter;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.index.DeletionVectorMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.schema.TableSchema;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.tag.Tag;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeJsonParser;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimestampType;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.utils.SerializationUtils;
import org.apache.paimon.utils.SnapshotManager;
import org.apache.paimon.utils.TagManager;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

public class PaimonTool {

    static final String DB = "interop";
    static PrintStream out;

    public static void main(String[] args) {
        out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        // Keep stdout for our JSON only: anything Paimon or Hadoop prints goes to stderr.
        System.setOut(System.err);
        int rc = 0;
        try {
            run(args);
        } catch (Throwable t) {
            System.err.println("PaimonTool error: " + t);
            t.printStackTrace(System.err);
            rc = 1;
        }
        out.flush();
        System.exit(rc);
    }

    static void usage() {
        throw new IllegalArgumentException(
                "usage: PaimonTool <command> ...\n"
                        + "  version\n"
                        + "  batch <json-file>   (a JSON array of argument arrays, run in this one JVM; stops at the first failure)\n"
                        + "  serve               (JSON line requests on stdin, one answer line each on stdout; see serve())\n"
                        + "  create-matrix <warehouse>\n"
                        + "  create-table <warehouse> <db> <table> <schema-json-file>\n"
                        + "  dump <warehouse> <db> <table> [branch]\n"
                        + "  read <warehouse> <db> <table> [snapshotId|tag:<name>|branch:<name>|<name>]\n"
                        + "  dump-all <warehouse> <db> <outdir> [table,...]   (<t>.dump.json, <t>.rows.jsonl or <t>.error.txt)\n"
                        + "  golden <outdir>\n"
                        + "  write <warehouse> <db> <table> <jsonl-file> [overwrite]\n"
                        + "  write-loop <warehouse> <db> <table> <n> <sleepMs> [startIndex]\n"
                        + "  expire <wh> <db> <tbl> <retainMin> <retainMax> <olderThanMillis> <maxDeletes>\n"
                        + "  orphan-clean <wh> <db> <tbl> <olderThanMillis> <dryRun>\n"
                        + "  rollback <wh> <db> <tbl> <snapshotId|tag:<name>|<tag>>\n"
                        + "  rollback-as-latest <wh> <db> <tbl> <snapshotId|tag:<name>|<tag>>\n"
                        + "  compact <wh> <db> <tbl> [full|minor]\n"
                        + "  create-tag <wh> <db> <tbl> <tag> [snapshotId] [timeRetainedMillis]\n"
                        + "  create-branch <wh> <db> <tbl> <branch> [tag]\n"
                        + "  create-consumer <wh> <db> <tbl> <consumerId> <nextSnapshot>\n"
                        + "  list-files <wh> <db> <tbl>\n"
                        + "  read-metadata <wh> <db> <tbl>   (timed in-process: snapshots, manifest lists, manifests)\n"
                        + "  synth-history <wh> <db> <tbl> <snapshots> <filesPerSnapshot> [touch]   (metadata-only history for benchmarks)\n"
                        + "  check <wh> <db> <tbl>");
    }

    static void run(String[] a) throws Exception {
        if (a.length == 0) usage();
        switch (a[0]) {
            case "version":
                emit(obj("paimonVersion", paimonVersion()));
                return;
            case "batch":
                need(a, 2);
                batch(readFile(a[1]));
                return;
            case "serve":
                serve();
                return;
            case "create-matrix":
                need(a, 2);
                createMatrix(a[1]);
                return;
            case "create-table":
                need(a, 5);
                createTableFromJson(a[1], a[2], a[3], readFile(a[4]));
                return;
            case "dump":
                need(a, 4);
                emit(dump(a[1], a[2], a[3], a.length > 4 ? a[4] : null));
                return;
            case "read":
                need(a, 4);
                readRows(a[1], a[2], a[3], a.length > 4 ? a[4] : null);
                return;
            case "dump-all":
                need(a, 4);
                dumpAll(a[1], a[2], a[3], a.length > 4 ? a[4] : null);
                return;
            case "golden":
                need(a, 2);
                golden(a[1]);
                return;
            case "write":
                need(a, 5);
                writeJsonl(a[1], a[2], a[3], a[4], a.length > 5 && a[5].equals("overwrite"));
                return;
            case "write-loop":
                need(a, 6);
                writeLoop(a[1], a[2], a[3], Integer.parseInt(a[4]), Long.parseLong(a[5]),
                        a.length > 6 ? Long.parseLong(a[6]) : 0L);
                return;
            case "expire":
                need(a, 8);
                expire(a[1], a[2], a[3], Integer.parseInt(a[4]), Integer.parseInt(a[5]),
                        Long.parseLong(a[6]), Integer.parseInt(a[7]));
                return;
            case "orphan-clean":
                need(a, 6);
                orphanClean(a[1], a[2], a[3], Long.parseLong(a[4]), Boolean.parseBoolean(a[5]));
                return;
            case "rollback":
                need(a, 5);
                rollback(a[1], a[2], a[3], a[4]);
                return;
            case "rollback-as-latest":
                need(a, 5);
                rollbackAsLatest(a[1], a[2], a[3], a[4]);
                return;
            case "compact":
                need(a, 4);
                compact(a[1], a[2], a[3], a.length < 5 || !a[4].equals("minor"));
                return;
            case "create-tag":
                need(a, 5);
                createTag(a[1], a[2], a[3], a[4], a.length > 5 ? Long.valueOf(a[5]) : null,
                        a.length > 6 ? Long.valueOf(a[6]) : null);
                return;
            case "create-branch":
                need(a, 5);
                createBranch(a[1], a[2], a[3], a[4], a.length > 5 ? a[5] : null);
                return;
            case "create-consumer":
                need(a, 6);
                createConsumer(a[1], a[2], a[3], a[4], Long.parseLong(a[5]));
                return;
            case "synth-history":
                need(a, 6);
                synthHistory(a[1], a[2], a[3], Integer.parseInt(a[4]), Integer.parseInt(a[5]),
                        a.length > 6 && a[6].equals("touch"));
                return;
            case "read-metadata":
                need(a, 4);
                readMetadata(a[1], a[2], a[3]);
                return;
            case "list-files":
                need(a, 4);
                emit(listFiles(a[1], a[2], a[3]));
                return;
            case "check":
                need(a, 4);
                check(a[1], a[2], a[3]);
                return;
            default:
                usage();
        }
    }

    /** Runs many commands in one JVM; each command's stdout is captured into the result. */
    static void batch(String json) throws Exception {
        JsonNode steps = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(json);
        PrintStream real = out;
        List<Object> results = new ArrayList<>();
        try {
            for (JsonNode step : steps) {
                String[] args = new String[step.size()];
                for (int i = 0; i < args.length; i++) args[i] = step.get(i).asText();
                java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
                out = new PrintStream(buf, true, StandardCharsets.UTF_8);
                try {
                    if (args.length > 0 && args[0].equals("batch")) throw new IllegalArgumentException("batch cannot nest");
                    run(args);
                    out.flush();
                    results.add(obj("ok", true, "stdout", buf.toString(StandardCharsets.UTF_8)));
                } catch (Throwable t) {
                    out.flush();
                    t.printStackTrace(System.err);
                    results.add(obj("ok", false, "stdout", buf.toString(StandardCharsets.UTF_8), "error", String.valueOf(t)));
                    break;
                }
            }
        } finally {
            out = real;
        }
        emit(obj("results", results));
    }

    /**
     * The catalog options of the command being run: a request's own in serve mode, otherwise the
     * PAIMON_CATALOG_OPTIONS environment variable of this process.
     */
    static String catalogOptionsJson = System.getenv("PAIMON_CATALOG_OPTIONS");

    /** True while serve() runs: peer programs must then write to PaimonTool.out, not to fd 1. */
    static boolean serving = false;

    /** The stream a peer program's main() prints its JSON to: fd 1, or the request's buffer when serving. */
    static PrintStream stdoutForMain() {
        return serving ? out : new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    }

    /**
     * A long-lived peer: one JVM answers many commands, so a test pays the JVM and class-loading
     * start once instead of once per call. Each stdin line is a JSON request {id, main, args,
     * catalogOptions}; each answer is one stdout line {id, code, stdout, stderr}, with what the
     * command printed captured per request (code 1 and the stack trace in stderr on a failure, as a
     * process of its own would exit). `main` is PaimonTool or another peer program whose main()
     * neither exits the JVM nor reads stdin. Ends when stdin closes.
     */
    static void serve() throws Exception {
        PrintStream real = out;
        PrintStream realErr = System.err;
        serving = true;
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode req = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(line);
            String[] args = new String[req.get("args").size()];
            for (int i = 0; i < args.length; i++) args[i] = req.get("args").get(i).asText();
            String main = req.has("main") ? req.get("main").asText() : "PaimonTool";
            JsonNode opts = req.get("catalogOptions");
            catalogOptionsJson = opts == null || opts.isNull() ? null : opts.asText();
            java.io.ByteArrayOutputStream outBuf = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream errBuf = new java.io.ByteArrayOutputStream();
            PrintStream errStream = new PrintStream(errBuf, true, StandardCharsets.UTF_8);
            out = new PrintStream(outBuf, false, StandardCharsets.UTF_8);
            System.setErr(errStream);
            System.setOut(errStream);
            int code = 0;
            try {
                if (args.length > 0 && (args[0].equals("serve"))) throw new IllegalArgumentException("serve cannot nest");
                if (main.equals("PaimonTool")) run(args);
                else Class.forName(main).getMethod("main", String[].class).invoke(null, (Object) args);
            } catch (Throwable t) {
                Throwable cause = t instanceof java.lang.reflect.InvocationTargetException && t.getCause() != null ? t.getCause() : t;
                errStream.println(main + " error: " + cause);
                cause.printStackTrace(errStream);
                code = 1;
            } finally {
                out.flush();
                errStream.flush();
                System.setErr(realErr);
                System.setOut(realErr);
                out = real;
            }
            real.println(toJson(obj("id", req.get("id").asLong(), "code", code,
                    "stdout", outBuf.toString(StandardCharsets.UTF_8), "stderr", errBuf.toString(StandardCharsets.UTF_8))));
            real.flush();
        }
        serving = false;
    }

    static void need(String[] a, int n) {
        if (a.length < n) usage();
    }

    static String paimonVersion() {
        Package p = CoreOptions.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        if (v != null) return v;
        try {
            // Shaded jars keep the module's pom.properties.
            for (String m : new String[] {"paimon-core", "paimon-bundle", "paimon-common"}) {
                java.io.InputStream in = CoreOptions.class.getResourceAsStream(
                        "/META-INF/maven/org.apache.paimon/" + m + "/pom.properties");
                if (in != null) {
                    java.util.Properties props = new java.util.Properties();
                    props.load(in);
                    return props.getProperty("version");
                }
            }
        } catch (Exception ignored) {
        }
        return "unknown";
    }

    // ------------------------------------------------------------------ catalog helpers

    /**
     * A filesystem catalog on the warehouse. Extra catalog options (e.g. s3.endpoint, s3.access-key,
     * s3.secret-key, s3.path.style.access for an S3 warehouse) come from the environment variable
     * PAIMON_CATALOG_OPTIONS, a JSON object of strings.
     */
    static Catalog catalog(String warehouse) throws Exception {
        String wh = warehouse;
        if (!wh.contains("://")) wh = "file://" + Paths.get(wh).toAbsolutePath();
        org.apache.paimon.options.Options options = new org.apache.paimon.options.Options();
        options.set("warehouse", wh);
        String extra = catalogOptionsJson;
        if (extra != null && !extra.isBlank()) {
            Iterator<Map.Entry<String, JsonNode>> it = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(extra).fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                options.set(e.getKey(), e.getValue().asText());
            }
        }
        return CatalogFactory.createCatalog(CatalogContext.create(options));
    }

    static FileStoreTable table(Catalog c, String db, String tbl) throws Exception {
        return (FileStoreTable) c.getTable(Identifier.fromString(db + "." + tbl));
    }

    static FileStoreTable table(String wh, String db, String tbl) throws Exception {
        return table(catalog(wh), db, tbl);
    }

    // ------------------------------------------------------------------ JSON output

    /** A raw JSON fragment embedded as is (Paimon's own serialization of an object). */
    static final class Raw {
        final String json;

        Raw(String json) {
            this.json = json;
        }
    }

    /** A double to print in canonical form. */
    static final class Dbl {
        final double v;

        Dbl(double v) {
            this.v = v;
        }
    }

    static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    static void emit(Object o) {
        StringBuilder sb = new StringBuilder();
        writeJson(sb, o);
        out.println(sb);
    }

    static String toJson(Object o) {
        StringBuilder sb = new StringBuilder();
        writeJson(sb, o);
        return sb.toString();
    }

    @SuppressWarnings("unchecked")
    static void writeJson(StringBuilder sb, Object o) {
        if (o == null) {
            sb.append("null");
        } else if (o instanceof Raw) {
            // Paimon pretty-prints its JSON; re-print it compactly (Jackson keeps longs exact) so
            // that every document the tool prints is one line.
            try {
                sb.append(JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(((Raw) o).json).toString());
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        } else if (o instanceof String) {
            quote(sb, (String) o);
        } else if (o instanceof Boolean) {
            sb.append(o);
        } else if (o instanceof Dbl) {
            double d = ((Dbl) o).v;
            if (Double.isNaN(d)) sb.append("\"NaN\"");
            else if (Double.isInfinite(d)) sb.append(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
            else sb.append(shortestDouble(d));
        } else if (o instanceof Double || o instanceof Float) {
            writeJson(sb, new Dbl(((Number) o).doubleValue()));
        } else if (o instanceof Number) {
            sb.append(o.toString());
        } else if (o instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : ((Map<String, Object>) o).entrySet()) {
                if (!first) sb.append(',');
                first = false;
                quote(sb, e.getKey());
                sb.append(':');
                writeJson(sb, e.getValue());
            }
            sb.append('}');
        } else if (o instanceof Iterable) {
            sb.append('[');
            boolean first = true;
            for (Object e : (Iterable<Object>) o) {
                if (!first) sb.append(',');
                first = false;
                writeJson(sb, e);
            }
            sb.append(']');
        } else if (o instanceof byte[]) {
            quote(sb, hex((byte[]) o));
        } else {
            quote(sb, o.toString());
        }
    }

    /** Shortest decimal that parses back to the same double (what JS, Python and Java 19+ print). */
    static String shortestDouble(double d) {
        if (d == 0) return (1 / d < 0) ? "-0.0" : "0.0";
        BigDecimal exact = new BigDecimal(d);
        for (int p = 1; p <= 17; p++) {
            BigDecimal r = exact.round(new MathContext(p, java.math.RoundingMode.HALF_EVEN));
            if (Double.parseDouble(r.toString()) == d) {
                String s = r.stripTrailingZeros().toString();
                // BigDecimal prints "1E+2"; JSON accepts it, but make it "1E2" style-free plain when small.
                if (s.contains("E")) return s.replace("E+", "E");
                return s.contains(".") ? s : s + ".0";
            }
        }
        return Double.toString(d);
    }

    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
            }
        }
        sb.append('"');
    }

    static String hex(byte[] b) {
        if (b == null) return null;
        StringBuilder sb = new StringBuilder(b.length * 2);
        for (byte x : b) sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }

    static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static String readFile(String f) throws Exception {
        return new String(Files.readAllBytes(Paths.get(f)), StandardCharsets.UTF_8);
    }

    // ------------------------------------------------------------------ canonical values

    static final String NINE = "%09d";

    static String formatTime(int millisOfDay) {
        int ms = millisOfDay % 1000;
        int s = millisOfDay / 1000;
        return String.format("%02d:%02d:%02d.%03d", s / 3600, (s / 60) % 60, s % 60, ms);
    }

    static String formatTimestamp(Timestamp ts) {
        LocalDateTime ldt = ts.toLocalDateTime();
        return String.format("%04d-%02d-%02dT%02d:%02d:%02d.%09d", ldt.getYear(), ldt.getMonthValue(),
                ldt.getDayOfMonth(), ldt.getHour(), ldt.getMinute(), ldt.getSecond(), ldt.getNano());
    }

    static Object value(DataGetters g, int pos, DataType t) {
        if (g.isNullAt(pos)) return null;
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return g.getBoolean(pos);
            case TINYINT:
                return (long) g.getByte(pos);
            case SMALLINT:
                return (long) g.getShort(pos);
            case INTEGER:
                return (long) g.getInt(pos);
            case BIGINT:
                return g.getLong(pos);
            case FLOAT:
                return new Dbl((double) g.getFloat(pos));
            case DOUBLE:
                return new Dbl(g.getDouble(pos));
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                return g.getDecimal(pos, d.getPrecision(), d.getScale()).toBigDecimal()
                        .setScale(d.getScale()).toPlainString();
            }
            case CHAR:
            case VARCHAR:
                return g.getString(pos).toString();
            case BINARY:
            case VARBINARY:
                return hex(g.getBinary(pos));
            case DATE:
                return LocalDate.ofEpochDay(g.getInt(pos)).toString();
            case TIME_WITHOUT_TIME_ZONE:
                return formatTime(g.getInt(pos));
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return formatTimestamp(g.getTimestamp(pos, ((TimestampType) t).getPrecision()));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return formatTimestamp(g.getTimestamp(pos, ((LocalZonedTimestampType) t).getPrecision())) + "Z";
            case ARRAY: {
                InternalArray arr = g.getArray(pos);
                DataType et = ((ArrayType) t).getElementType();
                List<Object> l = new ArrayList<>();
                for (int i = 0; i < arr.size(); i++) l.add(value(arr, i, et));
                return l;
            }
            case MAP:
            case MULTISET: {
                InternalMap m = g.getMap(pos);
                DataType kt = t instanceof MapType ? ((MapType) t).getKeyType() : ((MultisetType) t).getElementType();
                DataType vt = t instanceof MapType ? ((MapType) t).getValueType() : DataTypes.INT();
                List<Object> l = new ArrayList<>();
                for (int i = 0; i < m.size(); i++) {
                    l.add(java.util.Arrays.asList(value(m.keyArray(), i, kt), value(m.valueArray(), i, vt)));
                }
                return l;
            }
            case ROW: {
                RowType rt = (RowType) t;
                return rowObject(g.getRow(pos, rt.getFieldCount()), rt);
            }
            default:
                return String.valueOf(t.getTypeRoot()) + ":unsupported";
        }
    }

    static Map<String, Object> rowObject(InternalRow r, RowType rt) {
        Map<String, Object> m = new LinkedHashMap<>();
        List<DataField> fs = rt.getFields();
        for (int i = 0; i < fs.size(); i++) m.put(fs.get(i).name(), value(r, i, fs.get(i).type()));
        return m;
    }

    static List<Object> rowValues(InternalRow r, List<DataType> types) {
        List<Object> l = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            try {
                l.add(value(r, i, types.get(i)));
            } catch (RuntimeException e) {
                l.add("!decode-error:" + e);
            }
        }
        return l;
    }

    /** Canonical JSON value -> Paimon internal value. */
    static Object internal(JsonNode n, DataType t) {
        if (n == null || n.isNull()) return null;
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return n.asBoolean();
            case TINYINT:
                return (byte) n.asInt();
            case SMALLINT:
                return (short) n.asInt();
            case INTEGER:
                return n.asInt();
            case BIGINT:
                return n.asLong();
            case FLOAT:
                return n.isTextual() ? Float.parseFloat(n.asText()) : (float) n.asDouble();
            case DOUBLE:
                return n.isTextual() ? Double.parseDouble(n.asText()) : n.asDouble();
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                return Decimal.fromBigDecimal(new BigDecimal(n.asText()), d.getPrecision(), d.getScale());
            }
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(n.asText());
            case BINARY:
            case VARBINARY:
                return unhex(n.asText());
            case DATE:
                return (int) LocalDate.parse(n.asText()).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                return (int) (java.time.LocalTime.parse(n.asText()).toNanoOfDay() / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return Timestamp.fromLocalDateTime(LocalDateTime.parse(n.asText()));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
                String s = n.asText();
                if (s.endsWith("Z")) s = s.substring(0, s.length() - 1);
                return Timestamp.fromLocalDateTime(LocalDateTime.parse(s));
            }
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
                    r.setField(i, internal(n.isArray() ? n.get(i) : n.get(f.name()), f.type()));
                }
                return r;
            }
            default:
                throw new IllegalArgumentException("cannot convert JSON to " + t);
        }
    }

    static GenericRow rowFromJson(JsonNode n, RowType rt) {
        RowKind kind = RowKind.INSERT;
        if (n.has("_rowKind")) kind = RowKind.fromShortString(n.get("_rowKind").asText());
        GenericRow r = new GenericRow(kind, rt.getFieldCount());
        for (int i = 0; i < rt.getFieldCount(); i++) {
            DataField f = rt.getFields().get(i);
            r.setField(i, internal(n.get(f.name()), f.type()));
        }
        return r;
    }

    // ------------------------------------------------------------------ writing helpers

    static long commitRows(Table t, List<GenericRow> rows) throws Exception {
        return commitRows(t, rows, null);
    }

    /** Writes rows in one batch commit; returns the new latest snapshot id (or -1 when none). */
    static long commitRows(Table t, List<GenericRow> rows, Map<String, String> overwrite) throws Exception {
        BatchWriteBuilder b = t.newBatchWriteBuilder();
        if (overwrite != null) b = b.withOverwrite(overwrite);
        try (BatchTableWrite w = b.newWrite(); BatchTableCommit c = b.newCommit()) {
            w.withIOManager(ioManager());
            for (GenericRow r : rows) w.write(r);
            c.commit(w.prepareCommit());
        }
        Long id = ((FileStoreTable) t).snapshotManager().latestSnapshotId();
        return id == null ? -1 : id;
    }

    static org.apache.paimon.disk.IOManager ioManager;

    /** Lookup-based writers (deletion vectors, changelog-producer=lookup, first-row) spill to a temp dir. */
    static org.apache.paimon.disk.IOManager ioManager() {
        if (ioManager == null) ioManager = org.apache.paimon.disk.IOManager.create(System.getProperty("java.io.tmpdir"));
        return ioManager;
    }

    static GenericRow row(Object... vals) {
        Object[] v = new Object[vals.length];
        for (int i = 0; i < vals.length; i++) v[i] = conv(vals[i]);
        return GenericRow.of(v);
    }

    static GenericRow del(Object... vals) {
        GenericRow r = row(vals);
        r.setRowKind(RowKind.DELETE);
        return r;
    }

    static Object conv(Object o) {
        if (o instanceof String) return BinaryString.fromString((String) o);
        if (o instanceof LocalDate) return (int) ((LocalDate) o).toEpochDay();
        if (o instanceof LocalDateTime) return Timestamp.fromLocalDateTime((LocalDateTime) o);
        return o;
    }

    // ------------------------------------------------------------------ create-matrix

    static FileStoreTable create(Catalog c, String name, Schema.Builder sb) throws Exception {
        Identifier id = Identifier.create(DB, name);
        c.createTable(id, sb.build(), false);
        return (FileStoreTable) c.getTable(id);
    }

    static Schema.Builder schema(Object... opts) {
        Schema.Builder b = Schema.newBuilder();
        b.option("file.format", "parquet");
        for (int i = 0; i < opts.length; i += 2) b.option((String) opts[i], (String) opts[i + 1]);
        return b;
    }

    static LocalDate d(String s) {
        return LocalDate.parse(s);
    }

    static LocalDateTime ts(String s) {
        return LocalDateTime.parse(s);
    }

    static void createMatrix(String wh) throws Exception {
        long t0 = System.currentTimeMillis();
        Catalog c = catalog(wh);
        c.createDatabase(DB, true);
        Map<String, Object> result = new LinkedHashMap<>();

        // 1. append, unpartitioned, bucket -1
        {
            FileStoreTable t = create(c, "append_unpart", schema("bucket", "-1", "write-only", "true")
                    .column("id", DataTypes.INT()).column("name", DataTypes.STRING())
                    .column("amount", DataTypes.DOUBLE()).column("ts", DataTypes.TIMESTAMP(3)));
            commitRows(t, List.of(row(1, "a", 1.5, ts("2024-01-01T00:00:00.001")), row(2, "b", -2.25, null),
                    row(3, null, null, ts("2024-02-29T23:59:59.999"))));
            commitRows(t, List.of(row(4, "d", 0.1, ts("2024-03-01T12:00:00")), row(1, "a-again", 1e300, null)));
            commitRows(t, List.of(row(5, "e\"quoted\" ü", Double.NaN, ts("1970-01-01T00:00:00"))));
            result.put("append_unpart", 3);
        }
        // 2. append partitioned on string, int, date with NULL partition values and escaping
        {
            FileStoreTable t = create(c, "append_part", schema("bucket", "-1", "write-only", "true")
                    .column("id", DataTypes.INT()).column("p_str", DataTypes.STRING())
                    .column("p_int", DataTypes.INT()).column("p_date", DataTypes.DATE())
                    .column("v", DataTypes.STRING()).partitionKeys("p_str", "p_int", "p_date"));
            commitRows(t, List.of(row(1, "x", 1, d("2024-01-01"), "v1"), row(2, "x", 2, d("2024-01-02"), "v2"),
                    row(3, null, 1, d("2024-01-01"), "v3")));
            commitRows(t, List.of(row(4, "y", null, null, "v4"), row(5, null, null, null, "v5"),
                    row(6, "x", 1, d("2024-01-01"), "v6")));
            commitRows(t, List.of(row(7, "a b/c=d%e", 3, d("1999-12-31"), "v7"), row(8, "ü", -1, d("2024-01-01"), null)));
            result.put("append_part", 3);
        }
        // 3. append, fixed bucket
        {
            FileStoreTable t = create(c, "append_fixed", schema("bucket", "2", "bucket-key", "id", "write-only", "true")
                    .column("id", DataTypes.INT()).column("k", DataTypes.STRING()).column("v", DataTypes.BIGINT()));
            for (int i = 0; i < 3; i++) {
                List<GenericRow> rows = new ArrayList<>();
                for (int j = 0; j < 5; j++) rows.add(row(i * 5 + j, "k" + (i * 5 + j), (long) (i * 1000 + j) * 3_000_000_000L));
                commitRows(t, rows);
            }
            result.put("append_fixed", 3);
        }
        // 4. primary key, fixed bucket, deduplicate, partitioned
        {
            FileStoreTable t = create(c, "pk_dedup", schema("bucket", "2", "write-only", "true")
                    .column("dt", DataTypes.STRING().notNull()).column("id", DataTypes.INT().notNull())
                    .column("name", DataTypes.STRING()).column("v", DataTypes.BIGINT())
                    .primaryKey("dt", "id").partitionKeys("dt"));
            commitRows(t, List.of(row("2024-01-01", 1, "a", 1L), row("2024-01-01", 2, "b", 2L), row("2024-01-02", 1, "c", 3L)));
            commitRows(t, List.of(row("2024-01-01", 1, "a2", 10L), row("2024-01-02", 2, "d", 4L)));
            commitRows(t, List.of(del("2024-01-01", 2, "b", 2L), row("2024-01-03", 1, "e", Long.MAX_VALUE)));
            commitRows(t, List.of(row("2024-01-01", 1, "a3", 100L), row("2024-01-01", 3, "f", Long.MIN_VALUE)));
            result.put("pk_dedup", 4);
        }
        // 5. primary key with deletion vectors (not write-only: level-0 files become visible only after compaction)
        {
            FileStoreTable t = create(c, "pk_dv", schema("bucket", "2", "deletion-vectors.enabled", "true",
                    "snapshot.num-retained.min", "1000", "snapshot.num-retained.max", "1000")
                    .column("id", DataTypes.INT().notNull()).column("name", DataTypes.STRING())
                    .column("v", DataTypes.BIGINT()).primaryKey("id"));
            commitRows(t, List.of(row(1, "a", 1L), row(2, "b", 2L), row(3, "c", 3L), row(4, "d", 4L)));
            commitRows(t, List.of(row(1, "a2", 10L), row(3, "c2", 30L), row(5, "e", 5L)));
            commitRows(t, List.of(del(2, "b", 2L), row(4, "d2", 40L)));
            commitRows(t, List.of(row(1, "a3", 100L), row(6, "f", 6L)));
            result.put("pk_dv", 4);
        }
        // 6. changelog-producer = input (write-only) and = lookup
        {
            FileStoreTable t = create(c, "pk_changelog_input", schema("bucket", "1", "changelog-producer", "input", "write-only", "true")
                    .column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING()).primaryKey("id"));
            commitRows(t, List.of(row(1, "a"), row(2, "b")));
            commitRows(t, List.of(row(1, "a2"), row(3, "c")));
            commitRows(t, List.of(del(2, "b")));
            result.put("pk_changelog_input", 3);
            FileStoreTable l = create(c, "pk_changelog_lookup", schema("bucket", "1", "changelog-producer", "lookup",
                    "snapshot.num-retained.min", "1000", "snapshot.num-retained.max", "1000")
                    .column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING()).primaryKey("id"));
            commitRows(l, List.of(row(1, "a"), row(2, "b")));
            commitRows(l, List.of(row(1, "a2"), row(3, "c")));
            commitRows(l, List.of(del(2, "b")));
            result.put("pk_changelog_lookup", 3);
        }
        // 7. partial-update
        {
            FileStoreTable t = create(c, "pk_partial", schema("bucket", "1", "merge-engine", "partial-update", "write-only", "true")
                    .column("id", DataTypes.INT().notNull()).column("a", DataTypes.STRING())
                    .column("b", DataTypes.INT()).column("c", DataTypes.DOUBLE()).primaryKey("id"));
            commitRows(t, List.of(row(1, "a1", null, null), row(2, null, 20, null)));
            commitRows(t, List.of(row(1, null, 10, null), row(2, "a2", null, 2.5)));
            commitRows(t, List.of(row(1, null, null, 1.5), row(3, "a3", 30, 3.5), row(2, "a2b", null, null)));
            result.put("pk_partial", 3);
        }
        // 8. aggregation
        {
            FileStoreTable t = create(c, "pk_agg", schema("bucket", "1", "merge-engine", "aggregation", "write-only", "true",
                    "fields.s.aggregate-function", "sum", "fields.mx.aggregate-function", "max",
                    "fields.mn.aggregate-function", "min", "fields.lv.aggregate-function", "last_value",
                    "fields.lnn.aggregate-function", "last_non_null_value", "fields.cnt.aggregate-function", "sum",
                    "fields.ds.aggregate-function", "sum")
                    .column("id", DataTypes.INT().notNull()).column("s", DataTypes.BIGINT())
                    .column("mx", DataTypes.INT()).column("mn", DataTypes.INT()).column("lv", DataTypes.STRING())
                    .column("lnn", DataTypes.STRING()).column("cnt", DataTypes.BIGINT())
                    .column("ds", DataTypes.DECIMAL(12, 3)).primaryKey("id"));
            commitRows(t, List.of(row(1, 10L, 5, 5, "x", "x", 1L, Decimal.fromBigDecimal(new BigDecimal("1.250"), 12, 3)),
                    row(2, 1L, 1, 1, "y", "y", 1L, null)));
            commitRows(t, List.of(row(1, 5L, 7, 3, null, null, 1L, Decimal.fromBigDecimal(new BigDecimal("2.005"), 12, 3)),
                    row(2, 2L, 0, 0, "y2", null, 1L, null)));
            commitRows(t, List.of(row(1, -3L, 6, 4, "z", "z", 1L, null)));
            result.put("pk_agg", 3);
        }
        // 9. first-row (not write-only: like deletion vectors, first-row reads skip level-0 files)
        {
            FileStoreTable t = create(c, "pk_first_row", schema("bucket", "1", "merge-engine", "first-row",
                    "snapshot.num-retained.min", "1000", "snapshot.num-retained.max", "1000")
                    .column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING()).primaryKey("id"));
            commitRows(t, List.of(row(1, "first"), row(2, "b")));
            commitRows(t, List.of(row(1, "second"), row(3, "c")));
            commitRows(t, List.of(row(3, "c2"), row(4, "d")));
            result.put("pk_first_row", 3);
        }
        // 10. schema evolution: add a column, rename a column, widen a type
        {
            FileStoreTable t = create(c, "schema_evo", schema("bucket", "1", "write-only", "true")
                    .column("id", DataTypes.INT().notNull()).column("name", DataTypes.STRING())
                    .column("v", DataTypes.INT()).primaryKey("id"));
            Identifier id = Identifier.create(DB, "schema_evo");
            commitRows(t, List.of(row(1, "a", 1), row(2, "b", 2)));
            c.alterTable(id, List.of(SchemaChange.addColumn("extra", DataTypes.STRING())), false);
            t = (FileStoreTable) c.getTable(id);
            commitRows(t, List.of(row(2, "b2", 20, "x2"), row(3, "c", 3, "x3")));
            c.alterTable(id, List.of(SchemaChange.renameColumn("name", "full_name")), false);
            t = (FileStoreTable) c.getTable(id);
            commitRows(t, List.of(row(4, "d", 4, null), row(1, "a2", 10, "x1")));
            c.alterTable(id, List.of(SchemaChange.updateColumnType("v", DataTypes.BIGINT())), false);
            t = (FileStoreTable) c.getTable(id);
            commitRows(t, List.of(row(5, "e", 5_000_000_000L, "x5")));
            result.put("schema_evo", 4);
        }
        // 11. every primitive type
        {
            FileStoreTable t = create(c, "types", typesSchema(schema("bucket", "-1", "write-only", "true")));
            commitRows(t, List.of(typesRow(1), typesRow(2)));
            commitRows(t, List.of(typesRow(3), typesNullRow(4)));
            result.put("types", 2);
        }
        // 12. history: tags, a branch with its own commit, consumers
        {
            FileStoreTable t = create(c, "history", schema("bucket", "1", "write-only", "true")
                    .column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING()).primaryKey("id"));
            for (int i = 1; i <= 5; i++) commitRows(t, List.of(row(i, "v" + i), row(1, "one@" + i)));
            t.createTag("t1", 1);
            t.createTag("t3", 3, Duration.ofDays(1));
            t.createTag("t5", 5);
            t.createBranch("b1", "t3");
            FileStoreTable b = (FileStoreTable) c.getTable(Identifier.fromString(DB + ".history$branch_b1"));
            commitRows(b, List.of(row(100, "branch-only"), row(1, "one@branch")));
            b.createTag("bt1", b.snapshotManager().latestSnapshotId());
            t.createBranch("b_empty");
            ConsumerManager cm = t.consumerManager();
            cm.resetConsumer("c1", new Consumer(4));
            cm.resetConsumer("c2", new Consumer(2));
            b.consumerManager().resetConsumer("bc1", new Consumer(4));
            result.put("history", 5);
        }
        // 13. long-lived changelog: changelog files outlive their snapshots. (Paimon 1.4.2 crashes in
        // ExpireChangelogImpl when changelog.num-retained.min exceeds the number of snapshots: it reads
        // changelog-<negative id>; keep the minimum small.)
        {
            FileStoreTable t = create(c, "pk_changelog_decoupled", schema("bucket", "1", "changelog-producer", "input",
                    "snapshot.num-retained.min", "2", "snapshot.num-retained.max", "2", "snapshot.time-retained", "1 ms",
                    "changelog.num-retained.min", "3", "changelog.num-retained.max", "100", "changelog.time-retained", "1 d",
                    "num-sorted-run.compaction-trigger", "100")
                    .column("id", DataTypes.INT().notNull()).column("v", DataTypes.STRING()).primaryKey("id"));
            for (int i = 1; i <= 5; i++) {
                commitRows(t, List.of(row(i, "v" + i), row(1, "one@" + i)));
                Thread.sleep(5);
            }
            result.put("pk_changelog_decoupled", 5);
        }
        // 14. nested types, append with fixed bucket
        {
            FileStoreTable t = create(c, "nested", schema("bucket", "-1", "write-only", "true")
                    .column("id", DataTypes.INT())
                    .column("arr", DataTypes.ARRAY(DataTypes.INT()))
                    .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.BIGINT()))
                    .column("r", DataTypes.ROW(DataTypes.FIELD(100, "x", DataTypes.INT()), DataTypes.FIELD(101, "y", DataTypes.STRING()))));
            Map<Object, Object> m = new LinkedHashMap<>();
            m.put(BinaryString.fromString("k"), 1L);
            commitRows(t, List.of(GenericRow.of(1, new GenericArray(new Object[] {1, null, 3}), new GenericMap(m),
                    GenericRow.of(7, BinaryString.fromString("seven"))), GenericRow.of(2, null, null, null)));
            result.put("nested", 1);
        }
        emit(obj("warehouse", wh, "database", DB, "paimonVersion", paimonVersion(), "tables", result,
                "millis", System.currentTimeMillis() - t0));
    }

    static Schema.Builder typesSchema(Schema.Builder b) {
        return b.column("id", DataTypes.INT())
                .column("c_boolean", DataTypes.BOOLEAN())
                .column("c_tinyint", DataTypes.TINYINT())
                .column("c_smallint", DataTypes.SMALLINT())
                .column("c_int", DataTypes.INT())
                .column("c_bigint", DataTypes.BIGINT())
                .column("c_float", DataTypes.FLOAT())
                .column("c_double", DataTypes.DOUBLE())
                .column("c_decimal_5_2", DataTypes.DECIMAL(5, 2))
                .column("c_decimal_18_4", DataTypes.DECIMAL(18, 4))
                .column("c_decimal_38_10", DataTypes.DECIMAL(38, 10))
                .column("c_char", DataTypes.CHAR(5))
                .column("c_varchar", DataTypes.VARCHAR(20))
                .column("c_string", DataTypes.STRING())
                .column("c_binary", DataTypes.BINARY(4))
                .column("c_varbinary", DataTypes.VARBINARY(10))
                .column("c_bytes", DataTypes.BYTES())
                .column("c_date", DataTypes.DATE())
                .column("c_time", DataTypes.TIME())
                .column("c_time3", DataTypes.TIME(3))
                .column("c_ts3", DataTypes.TIMESTAMP(3))
                .column("c_ts6", DataTypes.TIMESTAMP(6))
                .column("c_ts9", DataTypes.TIMESTAMP(9))
                .column("c_ltz3", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3))
                .column("c_ltz6", DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6));
    }

    static GenericRow typesRow(int i) {
        boolean odd = i % 2 == 1;
        return GenericRow.of(i, odd, (byte) (odd ? 127 : -128), (short) (odd ? 32767 : -32768),
                odd ? Integer.MAX_VALUE : Integer.MIN_VALUE, odd ? Long.MAX_VALUE : Long.MIN_VALUE + i,
                odd ? 1.1f : -3.4e38f, odd ? 0.1 : -1.7976931348623157e308,
                Decimal.fromBigDecimal(new BigDecimal(odd ? "123.45" : "-0.01"), 5, 2),
                Decimal.fromBigDecimal(new BigDecimal(odd ? "12345678901234.5678" : "-0.0001"), 18, 4),
                Decimal.fromBigDecimal(new BigDecimal(odd ? "1234567890123456789012345678.0123456789" : "-0.0000000001"), 38, 10),
                BinaryString.fromString(odd ? "ab" : "abcde"), BinaryString.fromString("vc" + i),
                BinaryString.fromString(odd ? "héllo 世界" : ""), new byte[] {1, 2, 3, (byte) i},
                new byte[] {(byte) 0xff, 0, (byte) i}, new byte[0],
                (int) LocalDate.parse(odd ? "2024-02-29" : "1969-12-31").toEpochDay(),
                odd ? 0 : 86_399_999, odd ? 45_296_789 : 1,
                Timestamp.fromLocalDateTime(ts(odd ? "2024-01-02T03:04:05.678" : "1969-12-31T23:59:59.999")),
                Timestamp.fromLocalDateTime(ts(odd ? "2024-01-02T03:04:05.678901" : "1900-01-01T00:00:00.000001")),
                Timestamp.fromLocalDateTime(ts(odd ? "2024-01-02T03:04:05.678901234" : "2262-04-11T23:47:16.854775807")),
                Timestamp.fromEpochMillis(odd ? 1_700_000_000_123L : -1L),
                Timestamp.fromMicros(odd ? 1_700_000_000_123_456L : 0L));
    }

    static GenericRow typesNullRow(int i) {
        GenericRow r = new GenericRow(25);
        r.setField(0, i);
        return r;
    }

    static void createTableFromJson(String wh, String db, String tbl, String json) throws Exception {
        JsonNode n = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(json);
        Schema.Builder b = Schema.newBuilder();
        for (JsonNode f : n.get("fields")) {
            DataType t = DataTypeJsonParser.parseDataType(f.get("type"));
            if (f.has("description")) b.column(f.get("name").asText(), t, f.get("description").asText());
            else b.column(f.get("name").asText(), t);
        }
        List<String> pk = new ArrayList<>();
        if (n.has("primaryKeys")) for (JsonNode k : n.get("primaryKeys")) pk.add(k.asText());
        if (!pk.isEmpty()) b.primaryKey(pk);
        List<String> parts = new ArrayList<>();
        if (n.has("partitionKeys")) for (JsonNode k : n.get("partitionKeys")) parts.add(k.asText());
        if (!parts.isEmpty()) b.partitionKeys(parts);
        if (n.has("options")) {
            Iterator<Map.Entry<String, JsonNode>> it = n.get("options").fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                b.option(e.getKey(), e.getValue().asText());
            }
        }
        Catalog c = catalog(wh);
        c.createDatabase(db, true);
        c.createTable(Identifier.create(db, tbl), b.build(), false);
        emit(obj("created", db + "." + tbl));
    }

    // ------------------------------------------------------------------ dump

    static Map<String, Object> binaryRow(BinaryRow r, List<DataType> types) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (r == null) return null;
        m.put("arity", r.getFieldCount());
        m.put("hex", hex(r.toBytes()));
        m.put("serializedHex", hex(SerializationUtils.serializeBinaryRow(r)));
        if (types != null && types.size() == r.getFieldCount()) m.put("values", rowValues(r, types));
        return m;
    }

    static Map<String, Object> stats(SimpleStats s, List<DataType> types) {
        if (s == null) return null;
        List<Object> nulls = new ArrayList<>();
        if (s.nullCounts() != null) {
            for (int i = 0; i < s.nullCounts().size(); i++)
                nulls.add(s.nullCounts().isNullAt(i) ? null : s.nullCounts().getLong(i));
        }
        return obj("minValues", binaryRow(s.minValues(), types), "maxValues", binaryRow(s.maxValues(), types),
                "nullCounts", nulls);
    }

    static List<DataType> types(List<DataField> fs) {
        List<DataType> l = new ArrayList<>();
        for (DataField f : fs) l.add(f.type());
        return l;
    }

    static Map<String, Object> dataFile(DataFileMeta f, TableSchema fileSchema, List<DataType> keyTypes) {
        List<DataType> valueTypes = null;
        if (fileSchema != null) {
            List<DataField> fs = fileSchema.fields();
            if (f.valueStatsCols() != null) {
                List<DataType> sel = new ArrayList<>();
                for (String col : f.valueStatsCols())
                    for (DataField df : fs) if (df.name().equals(col)) sel.add(df.type());
                valueTypes = sel;
            } else {
                valueTypes = types(fs);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fileName", f.fileName());
        m.put("fileSize", f.fileSize());
        m.put("rowCount", f.rowCount());
        m.put("minKey", binaryRow(f.minKey(), keyTypes));
        m.put("maxKey", binaryRow(f.maxKey(), keyTypes));
        m.put("keyStats", stats(f.keyStats(), keyTypes));
        m.put("valueStats", stats(f.valueStats(), valueTypes));
        m.put("minSequenceNumber", f.minSequenceNumber());
        m.put("maxSequenceNumber", f.maxSequenceNumber());
        m.put("schemaId", f.schemaId());
        m.put("level", f.level());
        m.put("extraFiles", f.extraFiles());
        m.put("creationTime", f.creationTime() == null ? null : formatTimestamp(f.creationTime()));
        m.put("creationTimeEpochMillis", f.creationTimeEpochMillis());
        m.put("deleteRowCount", f.deleteRowCount().orElse(null));
        m.put("embeddedIndex", f.embeddedIndex() == null ? null : hex(f.embeddedIndex()));
        m.put("fileSource", f.fileSource().map(x -> x.name()).orElse(null));
        m.put("fileSourceValue", f.fileSource().map(x -> (Object) (long) x.toByteValue()).orElse(null));
        m.put("valueStatsCols", f.valueStatsCols());
        m.put("externalPath", f.externalPath().orElse(null));
        m.put("firstRowId", f.firstRowId());
        m.put("writeCols", f.writeCols());
        m.put("fileFormat", f.fileFormat());
        return m;
    }

    static Map<String, Object> manifestEntry(ManifestEntry e, RowType partType, Map<Long, TableSchema> schemas,
            List<DataType> keyTypes) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", e.kind().name());
        m.put("kindValue", (long) e.kind().toByteValue());
        m.put("partition", binaryRow(e.partition(), types(partType.getFields())));
        m.put("bucket", e.bucket());
        m.put("totalBuckets", e.totalBuckets());
        m.put("file", dataFile(e.file(), schemas.get(e.file().schemaId()), keyTypes));
        return m;
    }

    static Map<String, Object> manifestFileMeta(ManifestFileMeta mf, RowType partType) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fileName", mf.fileName());
        m.put("fileSize", mf.fileSize());
        m.put("numAddedFiles", mf.numAddedFiles());
        m.put("numDeletedFiles", mf.numDeletedFiles());
        m.put("partitionStats", stats(mf.partitionStats(), types(partType.getFields())));
        m.put("schemaId", mf.schemaId());
        m.put("minBucket", mf.minBucket());
        m.put("maxBucket", mf.maxBucket());
        m.put("minLevel", mf.minLevel());
        m.put("maxLevel", mf.maxLevel());
        m.put("minRowId", mf.minRowId());
        m.put("maxRowId", mf.maxRowId());
        return m;
    }

    /**
     * The latest snapshot's nextRowId, the DataFileMeta of every live file of a row-tracking table
     * (value stats decoded over the columns the file holds: valueStatsCols, else its writeCols in
     * its own schema; none for .blob files), ordered by first row id, data before blob files, then
     * sequence numbers, and the snapshot's deletion-vector index entries ("indexFiles").
     */
    static void rowTrackedFiles(FileStoreTable t) throws Exception {
        Snapshot s = t.snapshotManager().latestSnapshot();
        List<DataFileMeta> live = new ArrayList<>();
        if (s != null) for (ManifestEntry e : t.store().newScan().withSnapshot(s).plan().files()) live.add(e.file());
        live.sort(Comparator.comparing((DataFileMeta f) -> f.firstRowId() == null ? Long.MAX_VALUE : f.firstRowId())
                .thenComparing((DataFileMeta f) -> f.fileName().endsWith(".blob"))
                .thenComparingLong(DataFileMeta::minSequenceNumber)
                .thenComparingLong(DataFileMeta::maxSequenceNumber)
                .thenComparing(DataFileMeta::fileName));
        List<Object> files = new ArrayList<>();
        for (DataFileMeta f : live) {
            TableSchema schema = t.schemaManager().schema(f.schemaId());
            List<DataField> written = new ArrayList<>(SpecialFields.rowTypeWithRowTracking(schema.logicalRowType()).getFields());
            List<String> cols = f.valueStatsCols() != null ? f.valueStatsCols()
                    : f.writeCols() != null ? f.writeCols() : schema.logicalRowType().getFieldNames();
            List<DataType> types = new ArrayList<>();
            for (String c : cols) for (DataField df : written) if (df.name().equals(c)) types.add(df.type());
            Map<String, Object> m = dataFile(f, null, Collections.emptyList());
            // A blob file's statistics are not value statistics of the table's columns.
            m.put("valueStats", f.fileName().endsWith(".blob") ? null : stats(f.valueStats(), types));
            files.add(m);
        }
        // The deletion-vector index entries of the snapshot (none without deletion vectors).
        List<Object> indexFiles = new ArrayList<>();
        if (s != null) {
            for (IndexManifestEntry e : t.store().newIndexFileHandler().scan(s, "DELETION_VECTORS")) indexFiles.add(indexEntry(e, t.schema().logicalPartitionType()));
        }
        emit(obj("snapshotId", s == null ? null : s.id(), "nextRowId", s == null ? null : s.nextRowId(), "files", files, "indexFiles", indexFiles));
    }

    static Map<String, Object> indexEntry(IndexManifestEntry e, RowType partType) {
        IndexFileMeta f = e.indexFile();
        Map<String, Object> file = new LinkedHashMap<>();
        file.put("indexType", f.indexType());
        file.put("fileName", f.fileName());
        file.put("fileSize", f.fileSize());
        file.put("rowCount", f.rowCount());
        if (f.dvRanges() == null) {
            file.put("dvRanges", null);
        } else {
            List<Object> dv = new ArrayList<>();
            for (Map.Entry<String, DeletionVectorMeta> d : f.dvRanges().entrySet()) {
                DeletionVectorMeta v = d.getValue();
                dv.add(obj("dataFileName", v.dataFileName(), "offset", v.offset(), "length", v.length(),
                        "cardinality", optionalCall(v, "cardinality")));
            }
            file.put("dvRanges", dv);
        }
        file.put("externalPath", f.externalPath());
        file.put("globalIndexMeta", f.globalIndexMeta() == null ? null : String.valueOf(f.globalIndexMeta()));
        return obj("kind", e.kind().name(), "partition", binaryRow(e.partition(), types(partType.getFields())),
                "bucket", e.bucket(), "indexFile", file);
    }

    static Object optionalCall(Object o, String method) {
        try {
            Method m = o.getClass().getMethod(method);
            return m.invoke(o);
        } catch (NoSuchMethodException e) {
            return null;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static Map<String, Object> dump(String wh, String db, String tbl, String branch) throws Exception {
        FileStoreTable table = table(wh, db, tbl);
        if (branch != null && !branch.equals("main")) table = table.switchToBranch(branch);
        FileStore<?> store = table.store();
        FileIO fileIO = table.fileIO();
        SnapshotManager sm = table.snapshotManager();
        TableSchema latestSchema = table.schema();
        RowType partType = latestSchema.logicalPartitionType();
        Map<Long, TableSchema> schemas = new TreeMap<>();
        for (TableSchema s : table.schemaManager().listAll()) schemas.put(s.id(), s);
        List<DataType> keyTypes = latestSchema.primaryKeys().isEmpty() ? Collections.emptyList()
                : types(latestSchema.logicalTrimmedPrimaryKeysType().getFields());

        ManifestList manifestList = store.manifestListFactory().create();
        ManifestFile manifestFile = store.manifestFileFactory().create();
        Map<String, Object> manifestLists = new TreeMap<>();
        Map<String, Object> manifests = new TreeMap<>();
        Map<String, Object> indexManifests = new TreeMap<>();

        List<Object> snapshots = new ArrayList<>();
        List<Snapshot> all = new ArrayList<>();
        Iterator<Snapshot> it = sm.snapshots();
        while (it.hasNext()) all.add(it.next());
        all.sort((x, y) -> Long.compare(x.id(), y.id()));
        for (Snapshot s : all) snapshots.add(new Raw(s.toJson()));

        List<Snapshot> withChangelogs = new ArrayList<>(all);
        List<Object> changelogs = new ArrayList<>();
        try {
            Iterator<?> cit = table.changelogManager().changelogs();
            List<Snapshot> cl = new ArrayList<>();
            while (cit.hasNext()) cl.add((Snapshot) cit.next());
            cl.sort((x, y) -> Long.compare(x.id(), y.id()));
            for (Snapshot s : cl) {
                changelogs.add(new Raw(s.toJson()));
                withChangelogs.add(s);
            }
        } catch (java.io.FileNotFoundException ignored) {
        }
        List<Object> tags = new ArrayList<>();
        TagManager tm = table.tagManager();
        for (String name : new TreeSet<>(tm.allTagNames())) {
            Tag tag = tm.getOrThrow(name);
            tags.add(obj("name", name, "snapshotId", tag.id(),
                    "tagCreateTime", tag.getTagCreateTime() == null ? null : tag.getTagCreateTime().toString(),
                    "tagTimeRetainedMillis", tag.getTagTimeRetained() == null ? null : tag.getTagTimeRetained().toMillis(),
                    "json", new Raw(tag.toJson())));
            withChangelogs.add(tag);
        }
        java.util.Set<Snapshot> changelogOnly = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        changelogOnly.addAll(withChangelogs.subList(all.size(), all.size() + changelogs.size()));
        for (Snapshot s : withChangelogs) {
            // A long-lived changelog keeps only its changelog manifest list: the base and delta lists it
            // names were deleted with its snapshot.
            boolean onlyChangelog = changelogOnly.contains(s);
            for (String[] ml : new String[][] {{"base", s.baseManifestList()}, {"delta", s.deltaManifestList()},
                    {"changelog", s.changelogManifestList()}}) {
                if (ml[1] == null || manifestLists.containsKey(ml[1])) continue;
                if (onlyChangelog && !ml[0].equals("changelog")) continue;
                List<ManifestFileMeta> metas;
                if (ml[0].equals("base")) metas = manifestList.readDataManifests(s);
                else if (ml[0].equals("delta")) metas = manifestList.readDeltaManifests(s);
                else metas = manifestList.readChangelogManifests(s);
                // readDataManifests returns base + delta; keep just the base list's own content.
                if (ml[0].equals("base")) {
                    int nDelta = manifestList.readDeltaManifests(s).size();
                    metas = metas.subList(0, metas.size() - nDelta);
                }
                List<Object> lm = new ArrayList<>();
                for (ManifestFileMeta mf : metas) {
                    lm.add(manifestFileMeta(mf, partType));
                    if (!manifests.containsKey(mf.fileName())) {
                        List<Object> entries = new ArrayList<>();
                        for (ManifestEntry e : manifestFile.read(mf.fileName(), mf.fileSize(), null, null, x -> true, x -> true))
                            entries.add(manifestEntry(e, partType, schemas, keyTypes));
                        manifests.put(mf.fileName(), entries);
                    }
                }
                Object size = null;
                if (ml[0].equals("base")) size = s.baseManifestListSize();
                else if (ml[0].equals("delta")) size = s.deltaManifestListSize();
                else size = s.changelogManifestListSize();
                manifestLists.put(ml[1], obj("fileName", ml[1], "fileSize", size, "kind", ml[0], "manifests", lm));
            }
            if (!onlyChangelog && s.indexManifest() != null && !indexManifests.containsKey(s.indexManifest())) {
                List<Object> entries = new ArrayList<>();
                for (IndexManifestEntry e : store.indexManifestFileFactory().create().read(s.indexManifest()))
                    entries.add(indexEntry(e, partType));
                indexManifests.put(s.indexManifest(), entries);
            }
        }
        List<Object> schemaList = new ArrayList<>();
        for (TableSchema s : schemas.values()) schemaList.add(new Raw(JsonSerdeUtil.toJson(s)));
        Map<String, Object> consumers = new TreeMap<>();
        for (Map.Entry<String, Long> e : table.consumerManager().consumers().entrySet())
            consumers.put(e.getKey(), obj("nextSnapshot", e.getValue()));
        List<String> branches = new ArrayList<>(table.branchManager().branches());
        Collections.sort(branches);
        Path root = table.location();
        Map<String, Object> hints = new LinkedHashMap<>();
        for (String h : new String[] {"EARLIEST", "LATEST"}) {
            Path p = new Path(sm.snapshotDirectory(), h);
            hints.put(h, fileIO.exists(p) ? fileIO.readFileUtf8(p) : null);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("paimonVersion", paimonVersion());
        m.put("table", db + "." + tbl);
        m.put("branch", branch == null ? "main" : branch);
        m.put("location", root.toString());
        m.put("latestSnapshotId", sm.latestSnapshotId());
        m.put("earliestSnapshotId", sm.earliestSnapshotId());
        m.put("hints", hints);
        m.put("partitionKeys", latestSchema.partitionKeys());
        m.put("primaryKeys", latestSchema.primaryKeys());
        m.put("snapshots", snapshots);
        m.put("schemas", schemaList);
        m.put("manifestLists", manifestLists);
        m.put("manifests", manifests);
        m.put("indexManifests", indexManifests);
        m.put("tags", tags);
        m.put("branches", branches);
        m.put("consumers", consumers);
        m.put("changelogs", changelogs);
        return m;
    }

    // ------------------------------------------------------------------ read

    /** Resolves the optional time-travel / branch argument of read, rollback and friends. */
    static FileStoreTable travel(FileStoreTable t, String target) {
        if (target == null || target.isEmpty()) return t;
        if (target.matches("\\d+")) return t.copy(Map.of(CoreOptions.SCAN_SNAPSHOT_ID.key(), target));
        if (target.startsWith("tag:")) return t.copy(Map.of(CoreOptions.SCAN_TAG_NAME.key(), target.substring(4)));
        if (target.startsWith("branch:")) return t.switchToBranch(target.substring(7));
        if (t.branchManager().branchExists(target)) return t.switchToBranch(target);
        if (t.tagManager().tagExists(target)) return t.copy(Map.of(CoreOptions.SCAN_TAG_NAME.key(), target));
        throw new IllegalArgumentException("no snapshot, branch or tag named '" + target + "'");
    }

    static List<String> readCanonical(FileStoreTable t) throws Exception {
        RowType rt = t.rowType();
        ReadBuilder rb = t.newReadBuilder();
        List<Split> splits = rb.newScan().plan().splits();
        List<String> lines = new ArrayList<>();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(splits)) {
            r.forEachRemaining(row -> lines.add(toJson(rowObject(row, rt))));
        }
        Collections.sort(lines);
        return lines;
    }

    static void readRows(String wh, String db, String tbl, String target) throws Exception {
        FileStoreTable t = travel(table(wh, db, tbl), target);
        for (String l : readCanonical(t)) out.println(l);
    }

    /** dump + read of many tables in one JVM (one process start instead of two per table). */
    static void dumpAll(String wh, String db, String outdir, String tables) throws Exception {
        java.nio.file.Path dir = Paths.get(outdir);
        Files.createDirectories(dir);
        Catalog c = catalog(wh);
        List<String> names = new ArrayList<>();
        if (tables != null && !tables.isEmpty()) names.addAll(java.util.Arrays.asList(tables.split(",")));
        else names.addAll(c.listTables(db));
        Collections.sort(names);
        Map<String, Object> result = new LinkedHashMap<>();
        for (String t : names) {
            try {
                Files.write(dir.resolve(t + ".dump.json"), toJson(dump(wh, db, t, null)).getBytes(StandardCharsets.UTF_8));
                List<String> rows = readCanonical(table(c, db, t));
                Files.write(dir.resolve(t + ".rows.jsonl"), (String.join("\n", rows) + (rows.isEmpty() ? "" : "\n")).getBytes(StandardCharsets.UTF_8));
                result.put(t, obj("ok", true, "rows", rows.size()));
            } catch (Exception e) {
                java.io.StringWriter sw = new java.io.StringWriter();
                e.printStackTrace(new java.io.PrintWriter(sw));
                Files.write(dir.resolve(t + ".error.txt"), sw.toString().getBytes(StandardCharsets.UTF_8));
                result.put(t, obj("ok", false, "error", String.valueOf(e)));
            }
        }
        emit(obj("outdir", dir.toAbsolutePath().toString(), "tables", result));
    }

    // ------------------------------------------------------------------ writes

    static void writeJsonl(String wh, String db, String tbl, String file, boolean overwrite) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        RowType rt = t.rowType();
        List<GenericRow> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            rows.add(rowFromJson(JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(line), rt));
        }
        long id = commitRows(t, rows, overwrite ? new HashMap<>() : null);
        emit(obj("rows", rows.size(), "snapshotId", id));
    }

    /** A deterministic row for write-loop iteration i: every column derived from i. */
    static GenericRow generated(RowType rt, long i) {
        GenericRow r = new GenericRow(rt.getFieldCount());
        for (int f = 0; f < rt.getFieldCount(); f++) {
            DataType t = rt.getTypeAt(f);
            Object v;
            switch (t.getTypeRoot()) {
                case BOOLEAN: v = i % 2 == 0; break;
                case TINYINT: v = (byte) (i % 100); break;
                case SMALLINT: v = (short) (i % 30000); break;
                case INTEGER: v = (int) i; break;
                case BIGINT: v = i; break;
                case FLOAT: v = (float) i; break;
                case DOUBLE: v = (double) i; break;
                case DECIMAL: {
                    DecimalType d = (DecimalType) t;
                    v = Decimal.fromBigDecimal(BigDecimal.valueOf(i % 1000), d.getPrecision(), d.getScale());
                    break;
                }
                case CHAR:
                case VARCHAR: v = BinaryString.fromString("w" + i); break;
                case BINARY:
                case VARBINARY: v = new byte[] {(byte) i}; break;
                case DATE: v = (int) (19000 + i % 10); break;
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE: v = Timestamp.fromEpochMillis(1_700_000_000_000L + i); break;
                case TIME_WITHOUT_TIME_ZONE: v = (int) (i % 86_400_000); break;
                default: v = null;
            }
            r.setField(f, v);
        }
        return r;
    }

    static void writeLoop(String wh, String db, String tbl, int n, long sleepMs, long start) throws Exception {
        Catalog c = catalog(wh);
        List<Object> ids = new ArrayList<>();
        int retries = 0;
        for (long i = start; i < start + n; i++) {
            long id;
            // A snapshot that vanishes under the writer (a concurrent rollback or fast-forward deletes
            // the files it had just listed) fails Paimon's commit before anything is written; a job
            // restarted from its checkpoint writes the same rows again, and so does this loop.
            for (int attempt = 0; ; attempt++) {
                try {
                    FileStoreTable t = table(c, db, tbl);
                    id = commitRows(t, List.of(generated(t.rowType(), i)));
                    break;
                } catch (Exception e) {
                    if (attempt >= 4 || !causedByMissingFile(e)) throw e;
                    retries++;
                    System.err.println("write-loop retries i=" + i + " after: " + e.getMessage());
                    Thread.sleep(200);
                }
            }
            ids.add(obj("i", i, "snapshotId", id));
            System.err.println("write-loop committed i=" + i + " snapshot=" + id);
            if (sleepMs > 0) Thread.sleep(sleepMs);
        }
        emit(obj("commits", ids, "retries", retries));
    }

    static boolean causedByMissingFile(Throwable e) {
        for (Throwable x = e; x != null; x = x.getCause()) {
            if (x instanceof java.io.FileNotFoundException) return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ maintenance

    static void expire(String wh, String db, String tbl, int retainMin, int retainMax, long olderThanMillis,
            int maxDeletes) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        long now = System.currentTimeMillis();
        ExpireConfig cfg = ExpireConfig.builder().snapshotRetainMin(retainMin).snapshotRetainMax(retainMax)
                .snapshotTimeRetain(Duration.ofMillis(Math.max(0, now - olderThanMillis)))
                .snapshotMaxDeletes(maxDeletes).build();
        long t0 = System.nanoTime();
        int n = t.newExpireSnapshots().config(cfg).expire();
        long millis = (System.nanoTime() - t0) / 1_000_000;
        emit(obj("expired", n, "earliestSnapshotId", t.snapshotManager().earliestSnapshotId(),
                "latestSnapshotId", t.snapshotManager().latestSnapshotId(), "millis", millis));
    }

    static void orphanClean(String wh, String db, String tbl, long olderThanMillis, boolean dryRun) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        long t0 = System.nanoTime();
        Object r = new LocalOrphanFilesClean(t, olderThanMillis, dryRun).clean();
        long millis = (System.nanoTime() - t0) / 1_000_000;
        Object count = optionalCall(r, "getDeletedFileCount");
        Object bytes = optionalCall(r, "getDeletedFileTotalLenInBytes");
        Object paths = optionalCall(r, "getDeletedFilesPath");
        List<String> ps = new ArrayList<>();
        if (paths != null) for (Object p : (Iterable<?>) paths) ps.add(p.toString());
        Collections.sort(ps);
        emit(obj("deletedFileCount", count, "deletedFileTotalLenInBytes", bytes, "deletedFiles", ps, "dryRun", dryRun,
                "millis", millis));
    }

    static void rollback(String wh, String db, String tbl, String target) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        if (target.matches("\\d+")) t.rollbackTo(Long.parseLong(target));
        else t.rollbackTo(target.startsWith("tag:") ? target.substring(4) : target);
        t.snapshotManager().invalidateCache();
        emit(obj("latestSnapshotId", t.snapshotManager().latestSnapshotId(), "tags", new TreeSet<>(t.tagManager().allTagNames())));
    }

    static void rollbackAsLatest(String wh, String db, String tbl, String target) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        Method m;
        try {
            m = TableCommitImpl.class.getMethod("rollbackToAsLatest", Tag.class);
        } catch (NoSuchMethodException e) {
            throw new UnsupportedOperationException("rollbackToAsLatest does not exist in Paimon " + paimonVersion());
        }
        TagManager tm = t.tagManager();
        String tagName;
        String created = null;
        if (target.matches("\\d+")) {
            Snapshot s = t.snapshotManager().snapshot(Long.parseLong(target));
            created = "rollback-to-as-latest-" + s.id();
            if (!tm.tagExists(created)) t.createTag(created, s.id());
            tagName = created;
        } else {
            tagName = target.startsWith("tag:") ? target.substring(4) : target;
        }
        Tag tag = tm.getOrThrow(tagName);
        boolean ok;
        try (TableCommitImpl commit = t.newCommit("rollback-to-as-latest-" + UUID.randomUUID())) {
            ok = (Boolean) m.invoke(commit, tag);
        }
        t.snapshotManager().invalidateCache();
        emit(obj("success", ok, "targetSnapshotId", tag.id(), "createdTag", created,
                "latestSnapshotId", t.snapshotManager().latestSnapshotId()));
    }

    static void compact(String wh, String db, String tbl, boolean full) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        t = t.copy(Map.of("write-only", "false"));
        Long before = t.snapshotManager().latestSnapshotId();
        resetPeaks();
        long t0 = System.nanoTime();
        String mode;
        if (t.bucketMode() == org.apache.paimon.table.BucketMode.BUCKET_UNAWARE) {
            mode = "append-unaware";
            String user = "compact-" + UUID.randomUUID();
            List<AppendCompactTask> tasks = new AppendCompactCoordinator(t, false).run();
            List<CommitMessage> msgs = new ArrayList<>();
            BaseAppendFileStoreWrite w = (BaseAppendFileStoreWrite) t.store().newWrite(user);
            w.withIOManager(ioManager());
            for (AppendCompactTask task : tasks) msgs.add(task.doCompact(t, w));
            try (TableCommitImpl c = t.newCommit(user)) {
                c.commit(msgs);
            }
        } else {
            mode = "bucketed";
            BatchWriteBuilder b = t.newBatchWriteBuilder();
            try (BatchTableWrite w = b.newWrite(); BatchTableCommit c = b.newCommit()) {
                w.withIOManager(ioManager());
                for (org.apache.paimon.manifest.BucketEntry e : t.newSnapshotReader().bucketEntries())
                    w.compact(e.partition(), e.bucket(), full);
                c.commit(w.prepareCommit());
            }
        }
        t.snapshotManager().invalidateCache();
        long millis = (System.nanoTime() - t0) / 1_000_000;
        emit(obj("mode", mode, "full", full, "millis", millis, "peakHeapBytes", peakHeap(), "before", before, "latestSnapshotId", t.snapshotManager().latestSnapshotId()));
    }

    static void resetPeaks() {
        for (java.lang.management.MemoryPoolMXBean p : java.lang.management.ManagementFactory.getMemoryPoolMXBeans())
            if (p.getType() == java.lang.management.MemoryType.HEAP) p.resetPeakUsage();
    }

    /** Sum of the heap pools' peak usage since resetPeaks (an upper bound of the live peak). */
    static long peakHeap() {
        long sum = 0;
        for (java.lang.management.MemoryPoolMXBean p : java.lang.management.ManagementFactory.getMemoryPoolMXBeans())
            if (p.getType() == java.lang.management.MemoryType.HEAP) sum += p.getPeakUsage().getUsed();
        return sum;
    }

    /**
     * Reads the table's whole metadata the way a planner does, timed in-process (no JVM start):
     * every snapshot, its manifest lists and every manifest entry (merged per snapshot when `merged`).
     */
    static void readMetadata(String wh, String db, String tbl) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        long t0 = System.nanoTime();
        FileStore<?> store = t.store();
        ManifestList ml = store.manifestListFactory().create();
        ManifestFile mf = store.manifestFileFactory().create();
        long snapshots = 0, manifestFiles = 0, entries = 0;
        java.util.Set<String> seen = new java.util.HashSet<>();
        Iterator<Snapshot> it = t.snapshotManager().snapshots();
        while (it.hasNext()) {
            Snapshot s = it.next();
            snapshots++;
            List<ManifestFileMeta> metas = new ArrayList<>(ml.readDataManifests(s));
            metas.addAll(ml.readChangelogManifests(s));
            for (ManifestFileMeta m : metas) {
                if (!seen.add(m.fileName())) continue;
                manifestFiles++;
                entries += mf.read(m.fileName(), m.fileSize(), null, null, x -> true, x -> true).size();
            }
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        emit(obj("snapshots", snapshots, "manifestFiles", manifestFiles, "manifestEntries", entries, "millis", millis));
    }

    /**
     * A large history for benchmarks, committed through Paimon's own commit path but without writing
     * data: an append table (dt STRING partition over 10 values, id BIGINT, v STRING; bucket -1,
     * write-only) gets `snapshots` commits of `filesPerSnapshot` synthetic data files each (with
     * realistic stats). With `touch` each data file is created empty on disk (for orphan-file
     * benchmarks: listing and reachability, never reading). Reading rows of this table fails.
     */
    static void synthHistory(String wh, String db, String tbl, int snapshots, int filesPerSnapshot, boolean touch)
            throws Exception {
        long t0 = System.currentTimeMillis();
        Catalog c = catalog(wh);
        c.createDatabase(db, true);
        Identifier id = Identifier.create(db, tbl);
        c.createTable(id, schema("bucket", "-1", "write-only", "true")
                .column("dt", DataTypes.STRING()).column("id", DataTypes.BIGINT()).column("v", DataTypes.STRING())
                .partitionKeys("dt").build(), false);
        FileStoreTable t = (FileStoreTable) c.getTable(id);
        List<DataType> partTypes = List.of(DataTypes.STRING());
        List<DataType> valueTypes = List.of(DataTypes.STRING(), DataTypes.BIGINT(), DataTypes.STRING());
        BinaryRow[] parts = new BinaryRow[10];
        for (int p = 0; p < parts.length; p++)
            parts[p] = toBinary(GenericRow.of(BinaryString.fromString("2024-01-" + (10 + p))), partTypes);
        org.apache.paimon.utils.FileStorePathFactory pf = t.store().pathFactory();
        String user = "synth-" + UUID.randomUUID();
        long seq = 0;
        long files = 0;
        try (TableCommitImpl commit = t.newCommit(user)) {
            for (int i = 0; i < snapshots; i++) {
                Map<Integer, List<DataFileMeta>> byPart = new TreeMap<>();
                for (int k = 0; k < filesPerSnapshot; k++) {
                    int p = (i * filesPerSnapshot + k) % parts.length;
                    long rows = 100 + (k % 7);
                    String dt = "2024-01-" + (10 + p);
                    SimpleStats stats = new SimpleStats(
                            toBinary(GenericRow.of(BinaryString.fromString(dt), seq, BinaryString.fromString("a" + k)), valueTypes),
                            toBinary(GenericRow.of(BinaryString.fromString(dt), seq + rows - 1, BinaryString.fromString("z" + k)), valueTypes),
                            org.apache.paimon.data.BinaryArray.fromLongArray(new Long[] {0L, 0L, (long) (k % 3)}));
                    DataFileMeta f = DataFileMeta.forAppend("data-synth-" + i + "-" + k + "-" + UUID.randomUUID() + "-0.parquet",
                            4096 + k, rows, stats, seq, seq + rows - 1, 0L, Collections.emptyList(), null,
                            org.apache.paimon.manifest.FileSource.APPEND, null, null, null, null);
                    seq += rows;
                    byPart.computeIfAbsent(p, x -> new ArrayList<>()).add(f);
                    files++;
                    if (touch) {
                        Path path = pf.createDataFilePathFactory(parts[p], 0).toPath(f);
                        t.fileIO().newOutputStream(path, false).close();
                    }
                }
                List<CommitMessage> msgs = new ArrayList<>();
                for (Map.Entry<Integer, List<DataFileMeta>> e : byPart.entrySet()) {
                    msgs.add(new org.apache.paimon.table.sink.CommitMessageImpl(parts[e.getKey()], 0, -1,
                            new org.apache.paimon.io.DataIncrement(e.getValue(), Collections.emptyList(), Collections.emptyList()),
                            new org.apache.paimon.io.CompactIncrement(Collections.emptyList(), Collections.emptyList(), Collections.emptyList())));
                }
                commit.commit(i, msgs);
            }
        }
        emit(obj("snapshots", t.snapshotManager().latestSnapshotId(), "dataFiles", files, "touched", touch,
                "millis", System.currentTimeMillis() - t0));
    }

    static void createTag(String wh, String db, String tbl, String tag, Long snapshotId, Long retainMillis) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        Duration ret = retainMillis == null ? null : Duration.ofMillis(retainMillis);
        long id = snapshotId != null ? snapshotId : t.snapshotManager().latestSnapshotId();
        t.createTag(tag, id, ret);
        emit(obj("tag", tag, "snapshotId", id));
    }

    static void createBranch(String wh, String db, String tbl, String branch, String tag) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        if (tag == null) t.createBranch(branch);
        else t.createBranch(branch, tag);
        emit(obj("branch", branch, "fromTag", tag));
    }

    static void createConsumer(String wh, String db, String tbl, String id, long next) throws Exception {
        FileStoreTable t = table(wh, db, tbl);
        t.consumerManager().resetConsumer(id, new Consumer(next));
        emit(obj("consumer", id, "nextSnapshot", next));
    }

    // ------------------------------------------------------------------ list-files / check

    /** Every file that a snapshot, tag, long-lived changelog or branch of the table reaches. */
    static Map<String, Object> listFiles(String wh, String db, String tbl) throws Exception {
        FileStoreTable main = table(wh, db, tbl);
        TreeSet<String> files = new TreeSet<>();
        TreeSet<String> named = new TreeSet<>();
        List<String> branches = new ArrayList<>();
        branches.add("main");
        branches.addAll(main.branchManager().branches());
        String root = main.location().toString();
        for (String br : branches) {
            FileStoreTable t = br.equals("main") ? main : main.switchToBranch(br);
            collectFiles(t, files, named);
        }
        named.removeAll(files);
        return obj("root", root, "files", relative(root, files), "namedOnly", relative(root, named));
    }

    static List<String> relative(String root, java.util.Collection<String> files) {
        List<String> rel = new ArrayList<>();
        for (String f : files) rel.add(f.startsWith(root + "/") ? f.substring(root.length() + 1) : f);
        return rel;
    }

    static String str(Path p) {
        return p.toString();
    }

    /**
     * files: what each snapshot, tag and long-lived changelog needs (metadata, the live data files
     * after merging ADD/DELETE, changelog files, index and statistics files). named: data files that
     * any entry (ADD or DELETE) of a reachable manifest names, a superset of the live ones.
     */
    static void collectFiles(FileStoreTable t, TreeSet<String> files, TreeSet<String> named) throws Exception {
        FileStore<?> store = t.store();
        FileIO io = t.fileIO();
        SnapshotManager sm = t.snapshotManager();
        org.apache.paimon.utils.FileStorePathFactory pf = store.pathFactory();
        ManifestList ml = store.manifestListFactory().create();
        ManifestFile mfile = store.manifestFileFactory().create();
        for (long id : t.schemaManager().listAllIds()) files.add(str(t.schemaManager().toSchemaPath(id)));
        List<Snapshot> all = new ArrayList<>();
        Iterator<Snapshot> it = sm.snapshots();
        while (it.hasNext()) {
            Snapshot s = it.next();
            all.add(s);
            files.add(str(sm.snapshotPath(s.id())));
        }
        for (String h : new String[] {"EARLIEST", "LATEST"}) {
            Path p = new Path(sm.snapshotDirectory(), h);
            if (io.exists(p)) files.add(str(p));
        }
        List<Snapshot> longLived = new ArrayList<>();
        try {
            Iterator<?> cit = t.changelogManager().changelogs();
            while (cit.hasNext()) {
                Snapshot s = (Snapshot) cit.next();
                longLived.add(s);
                files.add(str(t.changelogManager().longLivedChangelogPath(s.id())));
            }
            for (String h : new String[] {"EARLIEST", "LATEST"}) {
                Path p = new Path(t.changelogManager().changelogDirectory(), h);
                if (io.exists(p)) files.add(str(p));
            }
        } catch (java.io.FileNotFoundException ignored) {
        }
        TagManager tm = t.tagManager();
        for (String name : tm.allTagNames()) {
            all.add(tm.getOrThrow(name));
            files.add(str(tm.tagPath(name)));
        }
        for (String cid : t.consumerManager().consumers().keySet())
            files.add(str(new Path(new Path(t.location(), branchDir(t) + "consumer"), "consumer-" + cid)));
        for (Snapshot s : all) {
            for (String l : new String[] {s.baseManifestList(), s.deltaManifestList(), s.changelogManifestList()}) {
                if (l == null) continue;
                files.add(str(pf.toManifestListPath(l)));
            }
            List<ManifestFileMeta> metas = new ArrayList<>(ml.readDataManifests(s));
            metas.addAll(ml.readChangelogManifests(s));
            for (ManifestFileMeta m : metas) {
                String mp = str(pf.toManifestFilePath(m.fileName()));
                if (files.add(mp)) {
                    for (ManifestEntry e : mfile.read(m.fileName(), m.fileSize(), null, null, x -> true, x -> true))
                        addDataFile(pf, e, named);
                }
            }
            // Live data files of the snapshot (ADD and DELETE merged), plus its changelog files.
            for (ManifestEntry e : store.newScan().withSnapshot(s).plan().files())
                addDataFile(pf, e, files);
            for (ManifestFileMeta m : ml.readChangelogManifests(s))
                for (ManifestEntry e : mfile.read(m.fileName(), m.fileSize(), null, null, x -> true, x -> true))
                    addDataFile(pf, e, files);
            if (s.indexManifest() != null) {
                files.add(str(pf.indexManifestFileFactory().toPath(s.indexManifest())));
                for (IndexManifestEntry e : store.indexManifestFileFactory().create().read(s.indexManifest())) {
                    files.add(str(pf.indexFileFactory(e.partition(), e.bucket()).toPath(e.indexFile())));
                }
            }
            if (s.statistics() != null) files.add(str(pf.statsFileFactory().toPath(s.statistics())));
        }
        for (Snapshot s : longLived) {
            if (s.changelogManifestList() == null) continue;
            files.add(str(pf.toManifestListPath(s.changelogManifestList())));
            for (ManifestFileMeta m : ml.readChangelogManifests(s)) {
                files.add(str(pf.toManifestFilePath(m.fileName())));
                for (ManifestEntry e : mfile.read(m.fileName(), m.fileSize(), null, null, x -> true, x -> true))
                    addDataFile(pf, e, files);
            }
        }
    }

    static String branchDir(FileStoreTable t) {
        String b = t.coreOptions().branch();
        return b == null || b.equals("main") ? "" : "branch/branch-" + b + "/";
    }

    static void addDataFile(org.apache.paimon.utils.FileStorePathFactory pf, ManifestEntry e, TreeSet<String> files) {
        org.apache.paimon.io.DataFilePathFactory dpf = pf.createDataFilePathFactory(e.partition(), e.bucket());
        DataFileMeta f = e.file();
        Path p = dpf.toPath(f);
        files.add(str(p));
        for (String extra : f.extraFiles()) files.add(str(new Path(p.getParent(), extra)));
    }

    static void check(String wh, String db, String tbl) throws Exception {
        FileStoreTable main = table(wh, db, tbl);
        Map<String, Object> lf = listFiles(wh, db, tbl);
        String root = (String) lf.get("root");
        List<String> missing = new ArrayList<>();
        for (Object f : (List<?>) lf.get("files")) {
            String s = (String) f;
            Path p = s.contains("://") || s.startsWith("/") ? new Path(s) : new Path(root, s);
            if (!main.fileIO().exists(p)) missing.add(s);
        }
        Map<String, Object> reads = new LinkedHashMap<>();
        Map<String, Object> readErrors = new LinkedHashMap<>();
        List<String> branches = new ArrayList<>();
        branches.add("main");
        branches.addAll(main.branchManager().branches());
        for (String br : branches) {
            FileStoreTable t = br.equals("main") ? main : main.switchToBranch(br);
            Map<String, Map<String, String>> targets = new LinkedHashMap<>();
            Iterator<Snapshot> it = t.snapshotManager().snapshots();
            while (it.hasNext()) {
                long id = it.next().id();
                targets.put(br + "@" + id, Map.of(CoreOptions.SCAN_SNAPSHOT_ID.key(), String.valueOf(id)));
            }
            for (String tag : new TreeSet<>(t.tagManager().allTagNames()))
                targets.put(br + "#" + tag, Map.of(CoreOptions.SCAN_TAG_NAME.key(), tag));
            for (Map.Entry<String, Map<String, String>> e : targets.entrySet()) {
                try {
                    reads.put(e.getKey(), readCanonical(t.copy(e.getValue())).size());
                } catch (Exception ex) {
                    readErrors.put(e.getKey(), String.valueOf(ex));
                }
            }
        }
        boolean ok = missing.isEmpty() && readErrors.isEmpty();
        emit(obj("ok", ok, "missing", missing, "rowCounts", reads, "readErrors", readErrors,
                "files", ((List<?>) lf.get("files")).size()));
        if (!ok) {
            throw new IllegalStateException("table " + db + "." + tbl + " is damaged: references missing files "
                    + missing + "; unreadable snapshots/tags " + readErrors.keySet());
        }
    }

    // ------------------------------------------------------------------ golden

    static void golden(String outdir) throws Exception {
        java.nio.file.Path dir = Paths.get(outdir).toAbsolutePath();
        Files.createDirectories(dir);
        Map<String, Object> index = new LinkedHashMap<>();
        // 1. one BinaryRow per type (plus a null of that type), and one row holding every type.
        Schema.Builder sb = typesSchema(Schema.newBuilder());
        RowType rt = (RowType) DataTypes.ROW(sb.build().fields().toArray(new DataField[0]));
        List<Object> rows = new ArrayList<>();
        for (int which = 1; which <= 4; which++) {
            GenericRow g = which == 4 ? typesNullRow(4) : typesRow(which);
            for (int f = 0; f < rt.getFieldCount(); f++) {
                DataType t = rt.getTypeAt(f);
                BinaryRow one = toBinary(GenericRow.of(g.getField(f)), List.of(t));
                String name = "binary-row-" + rt.getFields().get(f).name() + "-" + which;
                rows.add(goldenRow(dir, name, one, List.of(t), List.of(rt.getFields().get(f).name())));
            }
            BinaryRow whole = toBinary(g, types(rt.getFields()));
            List<String> names = new ArrayList<>();
            for (DataField df : rt.getFields()) names.add(df.name());
            rows.add(goldenRow(dir, "binary-row-all-" + which, whole, types(rt.getFields()), names));
        }
        // Partition-like rows: strings of several lengths (inline <= 7 bytes vs. variable part).
        for (String s : new String[] {"", "a", "1234567", "12345678", "2024-01-01", "ü世界"}) {
            BinaryRow r = toBinary(GenericRow.of(BinaryString.fromString(s), 7), List.of(DataTypes.STRING(), DataTypes.INT()));
            rows.add(goldenRow(dir, "binary-row-str-" + hex(s.getBytes(StandardCharsets.UTF_8)), r,
                    List.of(DataTypes.STRING(), DataTypes.INT()), List.of("s", "i")));
        }
        rows.add(goldenRow(dir, "binary-row-empty", BinaryRow.EMPTY_ROW, List.of(), List.of()));
        index.put("binaryRows", rows);

        // 2. a manifest and a manifest list, written by a real commit into a PK table partitioned on two keys.
        String wh = dir.resolve("warehouse").toString();
        Catalog c = catalog(wh);
        c.createDatabase(DB, true);
        FileStoreTable t = create(c, "golden", schema("bucket", "2", "write-only", "true")
                .column("dt", DataTypes.STRING().notNull()).column("hr", DataTypes.INT().notNull())
                .column("id", DataTypes.BIGINT().notNull()).column("v", DataTypes.STRING())
                .column("d", DataTypes.DECIMAL(20, 4)).primaryKey("dt", "hr", "id").partitionKeys("dt", "hr"));
        commitRows(t, List.of(row("2024-01-01", 1, 1L, "a", Decimal.fromBigDecimal(new BigDecimal("1.5"), 20, 4)),
                row("2024-01-01", 2, 9_007_199_254_740_993L, null, null), row("2024-01-02", 1, -5L, "ccc", null)));
        commitRows(t, List.of(row("2024-01-01", 1, 1L, "a2", null), del("2024-01-02", 1, -5L, "ccc", null)));
        Snapshot s = t.snapshotManager().latestSnapshot();
        Map<String, Object> d = dump(wh, DB, "golden", null);
        ManifestList ml = t.store().manifestListFactory().create();
        List<ManifestFileMeta> base = ml.readDataManifests(s);
        org.apache.paimon.utils.FileStorePathFactory pf = t.store().pathFactory();
        String deltaList = s.deltaManifestList();
        ManifestFileMeta deltaManifest = ml.readDeltaManifests(s).get(0);
        Files.copy(Paths.get(pf.toManifestListPath(deltaList).toUri().getPath()), dir.resolve("manifest-list.avro"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.copy(Paths.get(pf.toManifestFilePath(deltaManifest.fileName()).toUri().getPath()), dir.resolve("manifest.avro"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Map<String, Object> mls = castMap(d.get("manifestLists"));
        Map<String, Object> mans = castMap(d.get("manifests"));
        index.put("manifestList", obj("file", "manifest-list.avro", "originalName", deltaList,
                "fileSize", s.deltaManifestListSize(), "content", mls.get(deltaList)));
        index.put("manifest", obj("file", "manifest.avro", "originalName", deltaManifest.fileName(),
                "fileSize", deltaManifest.fileSize(), "entries", mans.get(deltaManifest.fileName())));
        index.put("snapshot", new Raw(s.toJson()));
        index.put("schema", new Raw(JsonSerdeUtil.toJson(t.schema())));
        index.put("baseManifestCount", base.size());
        index.put("table", "warehouse/" + DB + ".db/golden");
        index.put("paimonVersion", paimonVersion());
        Files.write(dir.resolve("golden.json"), toJson(index).getBytes(StandardCharsets.UTF_8));
        emit(obj("outdir", dir.toString(), "index", "golden.json", "binaryRows", rows.size()));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> castMap(Object o) {
        return (Map<String, Object>) o;
    }

    static BinaryRow toBinary(GenericRow g, List<DataType> types) {
        BinaryRow r = new BinaryRow(types.size());
        BinaryRowWriter w = new BinaryRowWriter(r);
        for (int i = 0; i < types.size(); i++) {
            Object v = g.getField(i);
            if (v == null) {
                w.setNullAt(i);
                // Nullable decimals/timestamps that are not compact still reserve their variable part.
                DataType t = types.get(i);
                if (t instanceof DecimalType && !Decimal.isCompact(((DecimalType) t).getPrecision())) {
                    w.writeDecimal(i, null, ((DecimalType) t).getPrecision());
                } else if (t instanceof TimestampType && !Timestamp.isCompact(((TimestampType) t).getPrecision())) {
                    w.writeTimestamp(i, null, ((TimestampType) t).getPrecision());
                } else if (t instanceof LocalZonedTimestampType && !Timestamp.isCompact(((LocalZonedTimestampType) t).getPrecision())) {
                    w.writeTimestamp(i, null, ((LocalZonedTimestampType) t).getPrecision());
                }
                continue;
            }
            BinaryWriterHelper.write(w, i, v, types.get(i));
        }
        w.complete();
        return r;
    }

    /** Writes with Paimon's own generic writer dispatch (BinaryWriter.write). */
    static final class BinaryWriterHelper {
        static void write(BinaryRowWriter w, int pos, Object v, DataType t) {
            org.apache.paimon.data.BinaryWriter.write(w, pos, v, t, org.apache.paimon.data.serializer.InternalSerializers.create(t));
        }
    }

    static Map<String, Object> goldenRow(java.nio.file.Path dir, String name, BinaryRow r, List<DataType> types,
            List<String> names) throws Exception {
        Files.write(dir.resolve(name + ".bin"), r.toBytes());
        Files.write(dir.resolve(name + ".ser.bin"), SerializationUtils.serializeBinaryRow(r));
        List<Object> ts = new ArrayList<>();
        for (DataType t : types) ts.add(new Raw(JsonSerdeUtil.toJson(t)));
        return obj("name", name, "file", name + ".bin", "serializedFile", name + ".ser.bin", "fields", names,
                "types", ts, "values", rowValues(r, types), "hex", hex(r.toBytes()));
    }
}
