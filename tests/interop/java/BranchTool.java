import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.Table;
import org.apache.paimon.types.DataTypes;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.apache.paimon.utils.JsonSerdeUtil;

/**
 * Branch peer program of the interop tests: Paimon's own branch operations (Table.createBranch,
 * deleteBranches, renameBranch, fastForward, and 2.0's mergeBranch), compiled with PaimonTool
 * against Paimon 1.4.2 and 2.0.0. One JVM runs a whole batch.
 *
 *   batch <steps.json>   a JSON array of steps, each an argument list: a command below or any
 *                        PaimonTool command (write-loop, create-tag, read, check, ...). Unlike
 *                        PaimonTool's batch, a failing step does not stop the batch: every step
 *                        reports {ok, stdout, error}, so a test can see Paimon refuse something.
 *
 * Commands (table may be `t$branch_x`, resolved by Identifier.fromString as Paimon does):
 *   create-branch wh db table branch [tag|-] [ignoreIfExists]
 *   delete-branch wh db table branches        (comma-separated, Table.deleteBranches)
 *   rename-branch wh db table from to
 *   fast-forward  wh db table branch
 *   merge-branch  wh db table source target   (2.0; on 1.4 an error saying it does not exist)
 *   add-column    wh db table column          (an INT column, through Catalog.alterTable)
 */
public class BranchTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        if (a.length == 2 && a[0].equals("batch")) {
            batch(new String(Files.readAllBytes(Paths.get(a[1])), StandardCharsets.UTF_8));
        } else {
            run(a);
        }
        PaimonTool.out.flush();
    }

    static void batch(String json) throws Exception {
        JsonNode steps = JsonSerdeUtil.OBJECT_MAPPER_INSTANCE.readTree(json);
        PrintStream real = PaimonTool.out;
        List<Object> results = new ArrayList<>();
        try {
            for (JsonNode step : steps) {
                String[] args = new String[step.size()];
                for (int i = 0; i < args.length; i++) args[i] = step.get(i).asText();
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                PaimonTool.out = new PrintStream(buf, true, StandardCharsets.UTF_8);
                try {
                    run(args);
                    PaimonTool.out.flush();
                    results.add(PaimonTool.obj("ok", true, "stdout", buf.toString(StandardCharsets.UTF_8)));
                } catch (Throwable t) {
                    Throwable c = t instanceof InvocationTargetException ? t.getCause() : t;
                    PaimonTool.out.flush();
                    results.add(PaimonTool.obj("ok", false, "stdout", buf.toString(StandardCharsets.UTF_8), "error", String.valueOf(c)));
                }
            }
        } finally {
            PaimonTool.out = real;
        }
        PaimonTool.emit(PaimonTool.obj("results", results));
    }

    static Table table(String wh, String db, String tbl) throws Exception {
        return PaimonTool.catalog(wh).getTable(Identifier.fromString(db + "." + tbl));
    }

    static void run(String[] a) throws Exception {
        switch (a[0]) {
            case "create-branch": {
                Table t = table(a[1], a[2], a[3]);
                String tag = a.length > 5 && !a[5].equals("-") ? a[5] : null;
                boolean ignore = a.length > 6 && Boolean.parseBoolean(a[6]);
                if (tag == null) t.createBranch(a[4], ignore);
                else t.createBranch(a[4], tag, ignore);
                PaimonTool.emit(PaimonTool.obj("branch", a[4], "fromTag", tag));
                return;
            }
            case "delete-branch":
                table(a[1], a[2], a[3]).deleteBranches(a[4]);
                PaimonTool.emit(PaimonTool.obj("deleted", a[4]));
                return;
            case "rename-branch":
                table(a[1], a[2], a[3]).renameBranch(a[4], a[5]);
                PaimonTool.emit(PaimonTool.obj("from", a[4], "to", a[5]));
                return;
            case "fast-forward":
                table(a[1], a[2], a[3]).fastForward(a[4]);
                PaimonTool.emit(PaimonTool.obj("fastForward", a[4]));
                return;
            case "merge-branch": {
                Table t = table(a[1], a[2], a[3]);
                Method m;
                try {
                    m = t.getClass().getMethod("mergeBranch", String.class, String.class);
                } catch (NoSuchMethodException e) {
                    throw new UnsupportedOperationException("Table.mergeBranch does not exist in Paimon " + PaimonTool.paimonVersion());
                }
                m.invoke(t, a[4], a[5]);
                PaimonTool.emit(PaimonTool.obj("merged", a[4], "into", a[5]));
                return;
            }
            case "add-column": {
                Catalog c = PaimonTool.catalog(a[1]);
                c.alterTable(Identifier.fromString(a[2] + "." + a[3]), SchemaChange.addColumn(a[4], DataTypes.INT()), false);
                PaimonTool.emit(PaimonTool.obj("added", a[4]));
                return;
            }
            default:
                PaimonTool.run(a);
        }
    }
}
