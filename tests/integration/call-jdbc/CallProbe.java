// Connector/J against the proxy in standalone mode, run as a single-file source program:
//   java -cp mysql-connector-j-8.4.0.jar CallProbe.java <jdbc-url> <user> <password> <statement>...
// Connecting runs Connector/J's own bootstrap (its server-variables query, SET statements);
// then the probe prints driver metadata, the databases (DatabaseMetaData.getCatalogs, which
// sends SHOW DATABASES) and every result of every statement in a stable text form.
import java.sql.*;

public class CallProbe {
  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0], args[1], args[2])) {
      DatabaseMetaData md = c.getMetaData();
      System.out.println("PRODUCT " + md.getDatabaseProductName() + " " + md.getDatabaseProductVersion());
      System.out.println("AUTOCOMMIT " + c.getAutoCommit());
      System.out.println("ISOLATION " + c.getTransactionIsolation());
      try (ResultSet rs = md.getCatalogs()) {
        StringBuilder b = new StringBuilder("CATALOGS");
        while (rs.next()) b.append('\t').append(rs.getString(1));
        System.out.println(b);
      }
      for (int i = 3; i < args.length; i++) {
        String sql = args[i];
        System.out.println("> " + sql);
        try (Statement s = c.createStatement()) {
          print(s, s.execute(sql));
        } catch (SQLException e) {
          System.out.println("ERR " + e.getErrorCode() + " " + e.getSQLState() + " " + e.getMessage());
        }
      }
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
    SQLWarning w = s.getWarnings();
    while (w != null) {
      System.out.println("WARNING " + w.getErrorCode() + " " + w.getMessage());
      w = w.getNextWarning();
    }
  }
}
