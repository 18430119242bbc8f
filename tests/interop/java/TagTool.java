import org.apache.paimon.CoreOptions;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.tag.TagTimeExpire;
import org.apache.paimon.utils.JsonSerdeUtil;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Tag peer program of the interop tests (compiled with PaimonTool against Paimon 1.4.2 and
 * 2.0.0): Paimon's own tag lifecycle, many steps in one JVM.
 *
 * Commands (each prints one JSON document):
 *   batch <json-file>        a JSON array of argument arrays run in this JVM, stopping at the first
 *                            failure: the commands below, or any PaimonTool command (read, check,
 *                            create-tag, expire, ...) -> {"results": [{ok, stdout, millis, error?}]}
 *                            (millis: the step's own time in this JVM)
 *   delete-tags wh db t names            Table.deleteTags (comma list; a missing tag only warns)
 *   rename-tag wh db t from to           Table.renameTag
 *   replace-tag wh db t tag snapshotId|- retainMillis|-   FileStoreTable.replaceTag
 *   expire-tags wh db t olderThanMillis|-   TagTimeExpire as ExpireTagsProcedure runs it (with
 *                                        tag.time-expire-enabled forced on) -> {"expired": [...]}
 *   auto-tag wh db t                     FileStoreTable.newTagAutoManager().run(), as
 *                                        TriggerTagAutomaticCreationProcedure -> {"tags": [...]}
 */
public class TagTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        if (a.length > 0 && a[0].equals("batch")) batch(new String(Files.readAllBytes(Paths.get(a[1])), StandardCharsets.UTF_8));
        else run(a);
        PaimonTool.out.flush();
    }

    static void run(String[] a) throws Exception {
        if (a.length == 0) throw new IllegalArgumentException("usage: TagTool batch|delete-tags|rename-tag|replace-tag|expire-tags ...");
        switch (a[0]) {
            case "delete-tags": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                t.deleteTags(a[4]);
                PaimonTool.emit(PaimonTool.obj("deleted", a[4]));
                return;
            }
            case "rename-tag": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                t.renameTag(a[4], a[5]);
                PaimonTool.emit(PaimonTool.obj("renamed", a[4], "to", a[5]));
                return;
            }
            case "replace-tag": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                Long id = a[5].equals("-") ? null : Long.valueOf(a[5]);
                Duration ret = a[6].equals("-") ? null : Duration.ofMillis(Long.parseLong(a[6]));
                t.replaceTag(a[4], id, ret);
                PaimonTool.emit(PaimonTool.obj("replaced", a[4]));
                return;
            }
            case "expire-tags": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                t = t.copy(Collections.singletonMap(CoreOptions.TAG_TIME_EXPIRE_ENABLED.key(), "true"));
                TagTimeExpire expire = t.store().newTagAutoManager(t).getTagTimeExpire();
                // ExpireTagsProcedure parses older_than in the JVM's default zone.
                if (!a[4].equals("-")) expire.withOlderThanTime(LocalDateTime.ofInstant(Instant.ofEpochMilli(Long.parseLong(a[4])), ZoneId.systemDefault()));
                List<String> expired = expire.expire();
                PaimonTool.emit(PaimonTool.obj("expired", expired));
                return;
            }
            case "auto-tag": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                t.newTagAutoManager().run();
                PaimonTool.emit(PaimonTool.obj("tags", t.tagManager().allTagNames()));
                return;
            }
            default:
                PaimonTool.run(a);
        }
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
                long t0 = System.nanoTime();
                try {
                    if (args.length > 0 && args[0].equals("batch")) throw new IllegalArgumentException("batch cannot nest");
                    run(args);
                    PaimonTool.out.flush();
                    results.add(PaimonTool.obj("ok", true, "stdout", buf.toString(StandardCharsets.UTF_8), "millis", (System.nanoTime() - t0) / 1_000_000));
                } catch (Throwable t) {
                    PaimonTool.out.flush();
                    t.printStackTrace(System.err);
                    results.add(PaimonTool.obj("ok", false, "stdout", buf.toString(StandardCharsets.UTF_8), "error", String.valueOf(t)));
                    break;
                }
            }
        } finally {
            PaimonTool.out = real;
        }
        PaimonTool.emit(PaimonTool.obj("results", results));
    }
}
