import org.apache.paimon.CoreOptions;
import org.apache.paimon.operation.PartitionExpire;
import org.apache.paimon.partition.actions.PartitionMarkDoneAction;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.IOUtils;
import org.apache.paimon.utils.ParameterUtils;
import org.apache.paimon.utils.PartitionPathUtils;
import org.apache.paimon.utils.ProcedureUtils;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Partition peer program of the interop tests (compiled with PaimonTool against Paimon 1.4.2 and
 * 2.0.0): Paimon's own partition maintenance, in the long-lived JVM.
 *
 * Commands (each prints one JSON document; '-' is an absent argument):
 *   expire-partitions wh db t expirationTime formatter pattern strategy maxExpires options
 *       what ExpirePartitionsProcedure runs: ProcedureUtils.fillInPartitionOptions, table.copy,
 *       store().newPartitionExpire("", table).expire(Long.MAX_VALUE)
 *       -> {"expired": ["k=v, k2=v2", ...], "millis": n}
 *   mark-done wh db t partitions
 *       what MarkPartitionDoneProcedure runs: PartitionMarkDoneAction.createActions over the
 *       table's partition.mark-done-action, one markDone per generated partition path
 *       -> {"paths": [...]}
 *   (anything else is passed to PaimonTool)
 */
public class PartitionTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        run(a);
        PaimonTool.out.flush();
    }

    static String opt(String s) {
        return s.equals("-") ? null : s;
    }

    static void run(String[] a) throws Exception {
        if (a.length == 0) throw new IllegalArgumentException("usage: PartitionTool expire-partitions|mark-done ...");
        switch (a[0]) {
            case "expire-partitions": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                Map<String, String> dynamic = ProcedureUtils.fillInPartitionOptions(
                        opt(a[7]), opt(a[5]), opt(a[6]), opt(a[4]), opt(a[8]) == null ? null : Integer.valueOf(a[8]), opt(a[9]));
                FileStoreTable copy = t.copy(dynamic);
                long t0 = System.nanoTime();
                PartitionExpire expire = copy.store().newPartitionExpire("", copy);
                if (expire == null) throw new IllegalArgumentException("Both the partition expiration time and partition field can not be null.");
                List<Map<String, String>> expired = expire.expire(Long.MAX_VALUE);
                long millis = (System.nanoTime() - t0) / 1_000_000;
                List<String> out = new ArrayList<>();
                if (expired != null) {
                    for (Map<String, String> m : expired) {
                        String s = m.toString();
                        out.add(s.substring(1, s.length() - 1));
                    }
                }
                PaimonTool.emit(PaimonTool.obj("expired", out, "millis", millis));
                return;
            }
            case "mark-done": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                CoreOptions options = t.coreOptions();
                List<PartitionMarkDoneAction> actions = PartitionMarkDoneAction.createActions(PartitionTool.class.getClassLoader(), t, options);
                List<String> paths = PartitionPathUtils.generatePartitionPaths(ParameterUtils.getPartitions(a[4].split(";")), t.store().partitionType());
                for (String p : paths) {
                    for (PartitionMarkDoneAction action : actions) action.markDone(p);
                }
                IOUtils.closeAllQuietly(actions);
                PaimonTool.emit(PaimonTool.obj("paths", paths));
                return;
            }
            default:
                PaimonTool.run(a);
        }
    }
}
