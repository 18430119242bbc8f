import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * A single-node HDFS (one NameNode, one DataNode: Hadoop's MiniDFSCluster) on loopback, for the
 * WebHDFS FileIO tests: java HdfsLauncher <data dir> <ready file> [<owner pid>].
 *
 * Every port is 0 (the kernel picks a free one); once the cluster is up the NameNode's RPC and
 * HTTP (WebHDFS) ports are written as JSON to the ready file (written aside, then renamed, so a
 * reader never sees half of it). The DataNode registers as 127.0.0.1, so WebHDFS redirects for
 * CREATE and OPEN point at loopback. Runs until killed, or until the owner process (the test run
 * that started it) is gone, so a run killed without its cleanup leaves no cluster behind.
 */
public class HdfsLauncher {
  public static void main(String[] args) throws Exception {
    File base = new File(args[0]);
    File ready = new File(args[1]);
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getAbsolutePath());
    conf.setBoolean("dfs.webhdfs.enabled", true);
    conf.setInt("dfs.replication", 1);
    conf.set("dfs.datanode.hostname", "127.0.0.1");
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.namenode.http-bind-host", "127.0.0.1");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    // Listings page every 100 entries (default 1000), so a few hundred files exercise paging.
    conf.setInt("dfs.ls.limit", 100);
    // Data node heartbeats every second, so the name node knows it soon after start.
    conf.setInt("dfs.heartbeat.interval", 1);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf)
        .numDataNodes(1)
        .nameNodePort(0)
        .nameNodeHttpPort(0)
        .format(true)
        .build();
    cluster.waitActive();
    int rpc = cluster.getNameNodePort();
    int http = cluster.getNameNode().getHttpAddress().getPort();
    String json = "{\"rpcPort\":" + rpc + ",\"httpPort\":" + http + ",\"user\":\""
        + System.getProperty("user.name") + "\"}\n";
    File tmp = new File(ready.getPath() + ".tmp");
    Files.write(tmp.toPath(), json.getBytes(StandardCharsets.UTF_8));
    Files.move(tmp.toPath(), ready.toPath(), StandardCopyOption.ATOMIC_MOVE);
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown));
    if (args.length > 2) {
      long owner = Long.parseLong(args[2]);
      while (ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) Thread.sleep(2000);
      System.exit(0);
    }
    Thread.currentThread().join();
  }
}
