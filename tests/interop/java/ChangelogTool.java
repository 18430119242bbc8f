import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.ExpireChangelogImpl;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.ChangelogManager;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Changelog peer program of the interop tests (compiled with PaimonTool against Paimon 1.4.2 and
 * 2.0.0), run in the long-lived JVM.
 *
 * Commands (each prints one JSON document):
 *   expire-changelogs wh db t retainMax|- retainMin|- olderThanMillis|- maxDeletes|- deleteAll
 *       what Flink's ExpireChangelogsProcedure runs: ExpireConfig.Builder with only the given
 *       changelog values (older_than as now - olderThanMillis), then expireAll() or
 *       config(..).expire() -> {"result": "<count>" | "Delete all separated changelogs success.", "changelogs": [...]}
 *   changelogs wh db t    -> {"changelogs": [ids], "earliest": id, "latest": id}
 */
public class ChangelogTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        run(a);
        PaimonTool.out.flush();
    }

    static String arg(String s) {
        return s.equals("-") ? null : s;
    }

    static List<Long> ids(FileStoreTable t) throws Exception {
        ChangelogManager m = new ChangelogManager(t.fileIO(), t.location(), t.snapshotManager().branch());
        List<Long> out = new ArrayList<>();
        for (Iterator<org.apache.paimon.Changelog> it = m.changelogs(); it.hasNext(); ) out.add(it.next().id());
        return out;
    }

    static void run(String[] a) throws Exception {
        if (a.length == 0) throw new IllegalArgumentException("usage: ChangelogTool expire-changelogs|changelogs ...");
        switch (a[0]) {
            case "expire-changelogs": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                ExpireChangelogImpl expire = (ExpireChangelogImpl) t.newExpireChangelog();
                ExpireConfig.Builder b = ExpireConfig.builder();
                if (arg(a[4]) != null) b.changelogRetainMax(Integer.parseInt(a[4]));
                if (arg(a[5]) != null) b.changelogRetainMin(Integer.parseInt(a[5]));
                if (arg(a[6]) != null) b.changelogTimeRetain(Duration.ofMillis(System.currentTimeMillis() - Long.parseLong(a[6])));
                if (arg(a[7]) != null) b.changelogMaxDeletes(Integer.parseInt(a[7]));
                String result;
                if (Boolean.parseBoolean(a[8])) {
                    expire.expireAll();
                    result = "Delete all separated changelogs success.";
                } else {
                    result = String.valueOf(expire.config(b.build()).expire());
                }
                PaimonTool.emit(PaimonTool.obj("result", result, "changelogs", ids(t)));
                return;
            }
            case "changelogs": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                ChangelogManager m = new ChangelogManager(t.fileIO(), t.location(), t.snapshotManager().branch());
                PaimonTool.emit(PaimonTool.obj("changelogs", ids(t), "earliest", m.earliestLongLivedChangelogId(), "latest", m.latestLongLivedChangelogId(),
                        "earliestSnapshot", t.snapshotManager().earliestSnapshotId(), "latestSnapshot", t.snapshotManager().latestSnapshotId()));
                return;
            }
            default:
                throw new IllegalArgumentException("unknown ChangelogTool command " + a[0]);
        }
    }
}
