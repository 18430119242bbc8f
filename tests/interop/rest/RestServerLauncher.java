// Starts Paimon's REST catalog test server (org.apache.paimon.rest.RESTCatalogServer, paimon-core's
// tests jar) over a warehouse directory, with bearer-token auth, as MockRESTCatalogTest sets it
// up: config defaults carry the prefix and the warehouse name. The server is an OkHttp MockWebServer
// bound to localhost on a free port; the launcher prints `REST_URL <url>` once it listens, then runs
// until stdin closes (the test's handle on it) or it is killed.
//
//   java -cp '<paimon lib>/*:<rest lib>/*:<classes>' RestServerLauncher <dataPath> <warehouse> <token> [<storageOptionsFile>]
//
// With a storage options file (Java properties: the server's own s3.* options), data tokens are on,
// as a real REST catalog with temporary credentials would run:
//   * `data-token.enabled=true` is a config *override*, so every client's merged options carry it
//     (RESTCatalog decides on those). Not a default: with it among the defaults the test server
//     rewrites table paths to its local test scheme (RESTCatalogServer.createTableMetadata).
//   * dataPath may be an object store URI: the server's file-system catalog (schemas, commits) then
//     runs on a FileIO for that URI built from the storage options, in place of the LocalFileIO the
//     server's constructor hard-codes (both fields are replaced by reflection before it starts).
//   * stdin takes commands for the server's DataTokenStore, one per line, each answered on stdout
//     with `ACK <n>` (n counts commands) so the test can wait for it:
//       TOKEN <db.table> <expiresAtMillis> <key=value>...   the token GET .../token hands out
//       REVOKE <db.table>                                   forget it (the server then invents one)
//     Keys and values are URL-encoded (UTF-8).
//
// With REST_DLF=<accessKeyId>:<accessKeySecret>:<region> in the environment the server also takes
// DLF-signed requests (Paimon's DLFDefaultSigner, what DLF's VPC endpoints check): a request with
// an x-dlf-date header must carry the Authorization that Paimon's signer computes from that
// request's own signed headers, path, query and body with that key; others need the bearer token.
// The date is the request's, not the server's clock, so a signature is checked exactly as it was
// made (the test server's DLFAuthProvider would re-sign with its own "now" and refuse a request
// whose second turned in flight).
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.options.Options;
import org.apache.paimon.rest.DataTokenStore;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.RESTFileSystemCatalog;
import org.apache.paimon.rest.RESTToken;
import org.apache.paimon.rest.auth.AuthProvider;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.auth.DLFDefaultSigner;
import org.apache.paimon.rest.auth.DLFToken;
import org.apache.paimon.rest.auth.RESTAuthParameter;
import org.apache.paimon.rest.responses.ConfigResponse;

public class RestServerLauncher {
  public static void main(String[] args) throws Exception {
    if (args.length != 3 && args.length != 4) {
      System.err.println("usage: RestServerLauncher <dataPath> <warehouse> <token> [<storageOptionsFile>]");
      System.exit(2);
    }
    String dataPath = args[0];
    String warehouse = args[1];
    boolean dataTokens = args.length == 4;
    Map<String, String> storage = new HashMap<>();
    if (dataTokens) {
      Properties p = new Properties();
      try (FileInputStream in = new FileInputStream(args[3])) {
        p.load(in);
      }
      for (String k : p.stringPropertyNames()) storage.put(k, p.getProperty(k));
    }
    Map<String, String> defaults = new HashMap<>();
    defaults.put("prefix", "paimon");
    defaults.put("warehouse", warehouse);
    Map<String, String> overrides = new HashMap<>();
    if (dataTokens) overrides.put("data-token.enabled", "true");
    ConfigResponse config = new ConfigResponse(defaults, overrides);
    boolean remote = dataPath.contains("://") && !dataPath.startsWith("file:");
    // The constructor makes the local warehouse directory; for an object store give it a scratch one.
    String ctorPath = remote ? java.nio.file.Files.createTempDirectory("rest-wh").toString() : dataPath;
    RESTCatalogServer server = new RESTCatalogServer(ctorPath, authProvider(args[2], System.getenv("REST_DLF")), config, warehouse);
    if (remote) {
      Options conf = new Options();
      defaults.forEach(conf::setString);
      storage.forEach(conf::setString);
      conf.setString("warehouse", dataPath);
      CatalogContext context = CatalogContext.create(conf);
      Path warehousePath = new Path(dataPath);
      FileIO fileIO = FileIO.get(warehousePath, context);
      set(server, "catalogContext", context);
      set(server, "catalog", new RESTFileSystemCatalog(fileIO, warehousePath, context));
    }
    server.start();
    System.out.println("REST_URL " + server.getUrl());
    System.out.flush();
    // Stop with the parent: a closed stdin (the test ended, or died) shuts the server down.
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    int n = 0;
    while ((line = in.readLine()) != null) {
      String[] w = line.trim().split("\\s+");
      if (w.length >= 3 && w[0].equals("TOKEN")) {
        Map<String, String> token = new LinkedHashMap<>();
        for (int i = 3; i < w.length; i++) {
          int eq = w[i].indexOf('=');
          token.put(dec(w[i].substring(0, eq)), dec(w[i].substring(eq + 1)));
        }
        DataTokenStore.putDataToken(warehouse, dec(w[1]), new RESTToken(token, Long.parseLong(w[2])));
      } else if (w.length == 2 && w[0].equals("REVOKE")) {
        DataTokenStore.removeDataToken(warehouse, dec(w[1]));
      } else if (!line.trim().isEmpty()) {
        System.err.println("RestServerLauncher: unknown command");
      }
      System.out.println("ACK " + (++n));
      System.out.flush();
    }
    server.shutdown();
    System.exit(0);
  }

  /** The bearer token's provider, or with a DLF key one that checks DLF signatures as well. */
  private static AuthProvider authProvider(String bearer, String dlf) {
    BearTokenAuthProvider bear = new BearTokenAuthProvider(bearer);
    if (dlf == null || dlf.isEmpty()) return bear;
    String[] k = dlf.split(":", 3);
    DLFToken token = new DLFToken(k[0], k[1], null, null);
    DLFDefaultSigner signer = new DLFDefaultSigner(k[2]);
    String[] signed = {"x-dlf-date", "x-dlf-content-sha256", "x-dlf-version", "x-dlf-security-token", "content-md5", "content-type"};
    return (Map<String, String> headers, RESTAuthParameter request) -> {
      if (!headers.containsKey("x-dlf-date")) return bear.mergeAuthHeader(headers, request);
      Map<String, String> signHeaders = new HashMap<>();
      for (String h : signed) if (headers.containsKey(h)) signHeaders.put(h, headers.get(h));
      try {
        Map<String, String> out = new HashMap<>(headers);
        out.put("Authorization", signer.authorization(request, token, "127.0.0.1", signHeaders));
        return out;
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    };
  }

  private static String dec(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static void set(Object target, String field, Object value) throws Exception {
    Field f = RESTCatalogServer.class.getDeclaredField(field);
    f.setAccessible(true);
    f.set(target, value);
  }
}
