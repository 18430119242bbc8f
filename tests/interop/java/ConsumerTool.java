import org.apache.paimon.consumer.Consumer;
import org.apache.paimon.consumer.ConsumerManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.utils.StringUtils;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Consumer peer program of the interop tests (compiled with PaimonTool against Paimon 1.4.2 and
 * 2.0.0): Paimon's own consumer handling, run in the long-lived JVM.
 *
 * Commands (each prints one JSON document):
 *   stream-consume wh db t id fromSnapshot|-   a streaming read with consumer-id=id (from that
 *                                        snapshot, or from where the consumer stands): plans until a
 *                                        plan has splits (at most 3), then checkpoints, so Paimon writes the consumer file
 *                                        -> {"plannedSnapshots": [...], "nextSnapshot": n}
 *   reset-consumer wh db t id next|-     what ResetConsumerProcedure runs (the snapshot must exist;
 *                                        without next the consumer is deleted)
 *   clear-consumers wh db t inc|- exc|-  what ClearConsumersProcedure runs (Pattern.compile, blank = default)
 *   consumers wh db t                    -> {"consumers": {id: nextSnapshot}}
 */
public class ConsumerTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        run(a);
        PaimonTool.out.flush();
    }

    static String arg(String s) {
        return s.equals("-") ? null : s;
    }

    static ConsumerManager manager(FileStoreTable t) {
        return new ConsumerManager(t.fileIO(), t.location(), t.snapshotManager().branch());
    }

    static void run(String[] a) throws Exception {
        if (a.length == 0) throw new IllegalArgumentException("usage: ConsumerTool stream-consume|reset-consumer|clear-consumers|consumers ...");
        switch (a[0]) {
            case "stream-consume": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                Map<String, String> dyn = new HashMap<>();
                dyn.put("consumer-id", a[4]);
                if (arg(a[5]) != null) {
                    dyn.put("scan.mode", "from-snapshot");
                    dyn.put("scan.snapshot-id", a[5]);
                }
                StreamTableScan scan = t.copy(dyn).newReadBuilder().newStreamScan();
                TreeSet<Long> planned = new TreeSet<>();
                // The first plan of a restored or from-snapshot scan may only position it: plan until one has splits.
                for (int i = 0; i < 3 && planned.isEmpty(); i++) {
                    TableScan.Plan plan = scan.plan();
                    for (Split s : plan.splits()) if (s instanceof DataSplit) planned.add(((DataSplit) s).snapshotId());
                }
                Long next = scan.checkpoint();
                scan.notifyCheckpointComplete(next);
                PaimonTool.emit(PaimonTool.obj("plannedSnapshots", new ArrayList<>(planned), "nextSnapshot", next));
                return;
            }
            case "reset-consumer": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                String next = arg(a[5]);
                if (next == null) manager(t).deleteConsumer(a[4]);
                else {
                    t.snapshotManager().snapshot(Long.parseLong(next));
                    manager(t).resetConsumer(a[4], new Consumer(Long.parseLong(next)));
                }
                PaimonTool.emit(PaimonTool.obj("consumers", new TreeMap<>(manager(t).consumers())));
                return;
            }
            case "clear-consumers": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                String inc = arg(a[4]);
                String exc = arg(a[5]);
                Pattern including = StringUtils.isNullOrWhitespaceOnly(inc) ? Pattern.compile(".*") : Pattern.compile(inc);
                Pattern excluding = StringUtils.isNullOrWhitespaceOnly(exc) ? null : Pattern.compile(exc);
                manager(t).clearConsumers(including, excluding);
                PaimonTool.emit(PaimonTool.obj("consumers", new TreeMap<>(manager(t).consumers())));
                return;
            }
            case "consumers": {
                FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
                PaimonTool.emit(PaimonTool.obj("consumers", new TreeMap<>(manager(t).consumers())));
                return;
            }
            default:
                throw new IllegalArgumentException("unknown ConsumerTool command " + a[0]);
        }
    }
}
