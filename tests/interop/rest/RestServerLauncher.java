// Starts Paimon's REST catalog test server (org.apache.paimon.rest.RESTCatalogServer, paimon-core's
// tests jar) over a local warehouse directory, with bearer-token auth, as MockRESTCatalogTest sets it
// up: config defaults carry the prefix and the warehouse name. The server is an OkHttp MockWebServer
// bound to localhost on a free port; the launcher prints `REST_URL <url>` once it listens, then runs
// until stdin closes (the test's handle on it) or it is killed.
//
//   java -cp '<paimon lib>/*:<rest lib>/*:<classes>' RestServerLauncher <dataPath> <warehouse> <token>
import java.util.HashMap;
import java.util.Map;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.responses.ConfigResponse;

public class RestServerLauncher {
  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: RestServerLauncher <dataPath> <warehouse> <token>");
      System.exit(2);
    }
    Map<String, String> defaults = new HashMap<>();
    defaults.put("prefix", "paimon");
    defaults.put("warehouse", args[1]);
    ConfigResponse config = new ConfigResponse(defaults, new HashMap<>());
    RESTCatalogServer server = new RESTCatalogServer(args[0], new BearTokenAuthProvider(args[2]), config, args[1]);
    server.start();
    System.out.println("REST_URL " + server.getUrl());
    System.out.flush();
    // Stop with the parent: a closed stdin (the test ended, or died) shuts the server down.
    while (System.in.read() != -1) {
      // ignore input
    }
    server.shutdown();
    System.exit(0);
  }
}
