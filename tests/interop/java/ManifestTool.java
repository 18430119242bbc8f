import org.apache.paimon.Snapshot;
import org.apache.paimon.manifest.ManifestEntry;
import org.apache.paimon.manifest.ManifestFileMeta;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Manifest peer program of the interop tests (compiled with PaimonTool against Paimon 1.4.2 and
 * 2.0.0), run in the long-lived JVM.
 *
 * Commands (each prints one JSON document):
 *   compact-manifest wh db t      what CompactManifestProcedure runs: BatchTableCommit.compactManifests()
 *                                 -> {"latestSnapshotId": n}
 *   manifests wh db t             the latest snapshot's fields, its data manifests (base then delta) and
 *                                 every entry in them (kind bucket level file, sorted)
 */
public class ManifestTool {

    public static void main(String[] a) throws Exception {
        PaimonTool.out = PaimonTool.stdoutForMain();
        run(a);
        PaimonTool.out.flush();
    }

    static void run(String[] a) throws Exception {
        if (a.length == 0) throw new IllegalArgumentException("usage: ManifestTool compact-manifest|manifests ...");
        FileStoreTable t = PaimonTool.table(a[1], a[2], a[3]);
        switch (a[0]) {
            case "compact-manifest": {
                try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
                    c.compactManifests();
                }
                PaimonTool.emit(PaimonTool.obj("latestSnapshotId", t.snapshotManager().latestSnapshotId()));
                return;
            }
            case "manifests": {
                Snapshot s = t.snapshotManager().latestSnapshot();
                List<ManifestFileMeta> metas = t.store().manifestListFactory().create().readDataManifests(s);
                List<Object> ms = new ArrayList<>();
                List<String> entries = new ArrayList<>();
                for (ManifestFileMeta m : metas) {
                    ms.add(PaimonTool.obj("added", m.numAddedFiles(), "deleted", m.numDeletedFiles(), "schemaId", m.schemaId()));
                    for (ManifestEntry e : t.store().manifestFileFactory().create().read(m.fileName(), m.fileSize())) {
                        entries.add(e.kind() + " " + e.bucket() + " " + e.level() + " " + e.fileName());
                    }
                }
                Collections.sort(entries);
                PaimonTool.emit(PaimonTool.obj(
                        "snapshot", PaimonTool.obj(
                                "id", s.id(), "schemaId", s.schemaId(), "commitKind", s.commitKind().name(),
                                "commitIdentifier", s.commitIdentifier(), "totalRecordCount", s.totalRecordCount(),
                                "deltaRecordCount", s.deltaRecordCount(), "changelogManifestList", s.changelogManifestList(),
                                "changelogRecordCount", s.changelogRecordCount(), "indexManifest", s.indexManifest(),
                                "watermark", s.watermark(), "statistics", s.statistics(), "properties", s.properties(),
                                "nextRowId", s.nextRowId()),
                        "manifests", ms, "entries", entries));
                return;
            }
            default:
                throw new IllegalArgumentException("unknown ManifestTool command " + a[0]);
        }
    }
}
