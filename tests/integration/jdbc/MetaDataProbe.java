// Connector/J's view of a database's tables, for the standalone browsing tests, run as a
// single-file source program:
//   java -cp mysql-connector-j-8.4.0.jar MetaDataProbe.java <jdbc-url> <user> <password> <db> <table>...
// Prints one JSON document: DatabaseMetaData.getCatalogs(), getSchemas(), getTables(db, null, "%",
// null), and for each table getColumns(db, null, table, "%") and getPrimaryKeys(db, null, table);
// then "prepared": the column names of the first table read with a PreparedStatement
// (SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?
// ORDER BY ORDINAL_POSITION), which useServerPrepStmts=true in the URL sends as COM_STMT_PREPARE.
// An error of any call is printed as {"error": "<errno> <message>"} in its place.
import java.sql.*;
import java.util.*;

public class MetaDataProbe {
  public static void main(String[] args) throws Exception {
    try (Connection c = DriverManager.getConnection(args[0], args[1], args[2])) {
      DatabaseMetaData md = c.getMetaData();
      String db = args[3];
      StringBuilder out = new StringBuilder("{");
      out.append("\"catalogs\":").append(attempt(() -> column(md.getCatalogs(), "TABLE_CAT")));
      out.append(",\"schemas\":").append(attempt(() -> column(md.getSchemas(), "TABLE_SCHEM")));
      out.append(",\"tables\":").append(attempt(() -> rows(md.getTables(db, null, "%", null), "TABLE_CAT", "TABLE_NAME", "TABLE_TYPE", "REMARKS")));
      out.append(",\"columns\":{");
      for (int i = 4; i < args.length; i++) {
        String t = args[i];
        if (i > 4) out.append(',');
        out.append(quote(t)).append(':').append(attempt(() -> rows(md.getColumns(db, null, t, "%"),
            "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "IS_NULLABLE", "ORDINAL_POSITION", "REMARKS")));
      }
      out.append("},\"primaryKeys\":{");
      for (int i = 4; i < args.length; i++) {
        String t = args[i];
        if (i > 4) out.append(',');
        out.append(quote(t)).append(':').append(attempt(() -> rows(md.getPrimaryKeys(db, null, t), "COLUMN_NAME", "KEY_SEQ", "PK_NAME")));
      }
      out.append("},\"prepared\":").append(attempt(() -> {
        try (PreparedStatement ps = c.prepareStatement(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION")) {
          ps.setString(1, db);
          ps.setString(2, args[4]);
          return column(ps.executeQuery(), "COLUMN_NAME");
        }
      }));
      out.append('}');
      System.out.println(out);
    }
  }

  interface Call {
    String run() throws SQLException;
  }

  static String attempt(Call call) {
    try {
      return call.run();
    } catch (SQLException e) {
      return "{\"error\":" + quote(e.getErrorCode() + " " + e.getMessage()) + "}";
    }
  }

  static String column(ResultSet rs, String name) throws SQLException {
    List<String> out = new ArrayList<>();
    try (rs) {
      while (rs.next()) out.add(quote(rs.getString(name)));
    }
    return "[" + String.join(",", out) + "]";
  }

  static String rows(ResultSet rs, String... names) throws SQLException {
    List<String> out = new ArrayList<>();
    try (rs) {
      while (rs.next()) {
        List<String> fields = new ArrayList<>();
        for (String n : names) fields.add(quote(n) + ":" + quote(rs.getString(n)));
        out.add("{" + String.join(",", fields) + "}");
      }
    }
    return "[" + String.join(",", out) + "]";
  }

  static String quote(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      if (ch == '"' || ch == '\\') b.append('\\').append(ch);
      else if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
      else b.append(ch);
    }
    return b.append('"').toString();
  }
}
