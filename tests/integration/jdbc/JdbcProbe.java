// A small Connector/J client for the integration tests, run as a single-file source program:
//   java -cp mysql-connector-j-8.4.0.jar JdbcProbe.java <jdbc-url> <user> <password> <statement>...
// Prints every result of every statement in a stable text form, so a test can compare the output
// through the proxy with the output of a direct connection. A statement prefixed with
// "@timeout " runs with Statement.setQueryTimeout(1): Connector/J then cancels it with
// KILL QUERY over a second connection, using the connection id from the greeting. A statement
// "@prepared <sql>|<p1>|<p2>..." runs as a PreparedStatement (integers via setLong, else setString).
// "@metadata" prints the driver's view of the server: product and version, autocommit, isolation,
// and the databases (DatabaseMetaData.getCatalogs, which sends SHOW DATABASES). Warnings of each
// statement follow its results.
import java.sql.*;

public class JdbcProbe {
  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0], args[1], args[2])) {
      for (int i = 3; i < args.length; i++) {
        String sql = args[i];
        if (sql.equals("@metadata")) {
          metadata(c);
          continue;
        }
        if (sql.startsWith("@prepared ")) {
          // "@prepared <sql>|<param>|<param>...": a PreparedStatement; integers bound with setLong, the rest with setString
          String[] parts = sql.substring("@prepared ".length()).split("\\|", -1);
          System.out.println("> prepared " + parts[0]);
          try (PreparedStatement ps = c.prepareStatement(parts[0])) {
            for (int k = 1; k < parts.length; k++) {
              if (parts[k].matches("-?[0-9]{1,18}")) ps.setLong(k, Long.parseLong(parts[k]));
              else ps.setString(k, parts[k]);
            }
            print(ps, ps.execute());
          } catch (SQLException e) {
            System.out.println("ERR " + e.getErrorCode() + " " + e.getSQLState() + " " + e.getClass().getSimpleName() + ": " + e.getMessage());
          }
          continue;
        }
        boolean timeout = sql.startsWith("@timeout ");
        if (timeout) sql = sql.substring("@timeout ".length());
        System.out.println("> " + sql);
        try (Statement s = c.createStatement()) {
          if (timeout) s.setQueryTimeout(1);
          long started = System.nanoTime();
          boolean isResult = s.execute(sql);
          print(s, isResult);
          if (timeout) System.out.println("ELAPSED_MS " + (System.nanoTime() - started) / 1_000_000);
        } catch (SQLException e) {
          System.out.println("ERR " + e.getErrorCode() + " " + e.getSQLState() + " " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
      }
      System.out.println("> prepared");
      try (PreparedStatement ps = c.prepareStatement("SELECT ? + 1 AS n, CONCAT(?, '!') AS s")) {
        ps.setInt(1, 41);
        ps.setString(2, "hi");
        print(ps, ps.execute());
      } catch (SQLException e) {
        System.out.println("ERR " + e.getErrorCode() + " " + e.getSQLState() + " " + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
  }

  static void metadata(Connection c) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    System.out.println("PRODUCT " + md.getDatabaseProductName() + " " + md.getDatabaseProductVersion());
    System.out.println("AUTOCOMMIT " + c.getAutoCommit());
    System.out.println("ISOLATION " + c.getTransactionIsolation());
    try (ResultSet rs = md.getCatalogs()) {
      StringBuilder b = new StringBuilder("CATALOGS");
      while (rs.next()) b.append('\t').append(rs.getString(1));
      System.out.println(b);
    }
  }

  static void print(Statement s, boolean isResult) throws SQLException {
    while (true) {
      if (isResult) {
        try (ResultSet rs = s.getResultSet()) {
          ResultSetMetaData md = rs.getMetaData();
          StringBuilder h = new StringBuilder("COLUMNS");
          for (int k = 1; k <= md.getColumnCount(); k++) h.append('\t').append(md.getColumnLabel(k)).append(':').append(md.getColumnTypeName(k));
          System.out.println(h);
          while (rs.next()) {
            StringBuilder r = new StringBuilder("ROW");
            for (int k = 1; k <= md.getColumnCount(); k++) r.append('\t').append(rs.getString(k));
            System.out.println(r);
          }
        }
      } else {
        int n = s.getUpdateCount();
        if (n == -1) break;
        System.out.println("COUNT " + n);
      }
      isResult = s.getMoreResults();
    }
    for (SQLWarning w = s.getWarnings(); w != null; w = w.getNextWarning()) {
      System.out.println("WARNING " + w.getErrorCode() + " " + w.getMessage());
    }
  }
}
