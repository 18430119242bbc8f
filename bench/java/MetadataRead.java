import org.apache.paimon.Snapshot;
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.options.Options;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFile;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.manifest.ManifestList;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Reads the full metadata of one table the way our bench does in TypeScript: every snapshot, its
 * base and delta manifest lists, and every distinct manifest's entries. Prints one JSON line.
 * Then plans the latest snapshot (live files) as a check that the table is valid for Paimon.
 * Usage: MetadataRead <warehouse> <db> <table> <rounds>
 */
public class MetadataRead {
    public static void main(String[] a) throws Exception {
        // No catalog cache: a CachingCatalog gives the table a manifest cache (SegmentsCache) that
        // copies every manifest it reads into memory pages and would serve later rounds from there.
        Options options = new Options();
        options.set("warehouse", a[0]);
        options.set("cache-enabled", "false");
        Catalog c = CatalogFactory.createCatalog(CatalogContext.create(options));
        FileStoreTable t = (FileStoreTable) c.getTable(Identifier.create(a[1], a[2]));
        int rounds = Integer.parseInt(a[3]);
        StringBuilder times = new StringBuilder();
        StringBuilder cpuTimes = new StringBuilder();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long snapshots = 0, lists = 0, manifests = 0, entries = 0;
        for (int r = 0; r < rounds; r++) {
            long t0 = System.nanoTime();
            long cpu0 = os.getProcessCpuTime();
            snapshots = 0; lists = 0; manifests = 0; entries = 0;
            SnapshotManager sm = t.snapshotManager();
            // Fresh readers each round: no manifest cache carried between rounds.
            ManifestList ml = t.store().manifestListFactory().create();
            ManifestFile mf = t.store().manifestFileFactory().create();
            Set<String> seenLists = new HashSet<>();
            Set<String> seenManifests = new HashSet<>();
            Iterator<Snapshot> it = sm.snapshots();
            while (it.hasNext()) {
                Snapshot s = it.next();
                snapshots++;
                for (String name : new String[] {s.baseManifestList(), s.deltaManifestList()}) {
                    if (!seenLists.add(name)) continue;
                    lists++;
                    List<ManifestFileMeta> metas = ml.read(name);
                    for (ManifestFileMeta m : metas) {
                        if (!seenManifests.add(m.fileName())) continue;
                        manifests++;
                        List<ManifestEntry> es = mf.read(m.fileName(), m.fileSize());
                        entries += es.size();
                    }
                }
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            times.append(r == 0 ? "" : ",").append(ms);
            cpuTimes.append(r == 0 ? "" : ",").append((os.getProcessCpuTime() - cpu0) / 1_000_000);
        }
        // The live files of the latest snapshot (ADD/DELETE merged), as Paimon plans a batch scan.
        List<ManifestEntry> live = t.store().newScan().plan().files();
        long liveSize = 0;
        for (ManifestEntry e : live) liveSize += e.file().fileSize();
        System.out.println("{\"snapshots\":" + snapshots + ",\"lists\":" + lists + ",\"manifests\":" + manifests
                + ",\"entries\":" + entries + ",\"millis\":[" + times + "],\"cpuMillis\":[" + cpuTimes + "],\"liveFiles\":" + live.size()
                + ",\"liveFileSize\":\"" + liveSize + "\"}");
    }
}
