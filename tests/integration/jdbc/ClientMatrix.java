// One JDBC driver (MySQL Connector/J or MariaDB Connector/J, whichever jar is on the class path)
// against the proxy, for the client matrix test. Run as a single-file source program:
//   java -cp <driver.jar> ClientMatrix.java <jdbc-url> <user> <password> <statements.json>
// statements.json is a JSON array of objects {"id": "...", "mode": "plain" | "prepared" |
// "callable", "sql": "...", "params": ["...", ...]}: "plain" runs Statement.execute, "prepared"
// a PreparedStatement (the URL decides whether it is server-side), "callable" a
// CallableStatement (the sql is a JDBC escape such as {call paimon.sys.compact(?)}); params are
// bound with setString. After each statement the program reads every result (getMoreResults
// until the end), the statement's getWarnings(), then runs SHOW WARNINGS on the same connection.
// It prints one JSON object per statement on its own line:
//   {"id":..,"results":[{"columns":[[label,type],..],"rows":[[v,..],..]} | {"updateCount":n}],
//    "warnings":[[code,message],..],"showWarnings":[[level,code,message],..],"error":[code,state,message]|null}
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.*;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class ClientMatrix {
  public static void main(String[] args) throws Exception {
    Object parsed = new Json(Files.readString(Path.of(args[3]), StandardCharsets.UTF_8)).value();
    @SuppressWarnings("unchecked")
    List<Object> statements = (List<Object>) parsed;
    try (Connection c = DriverManager.getConnection(args[0], args[1], args[2])) {
      System.out.println("{\"id\":\"@connected\",\"driver\":" + str(c.getMetaData().getDriverName() + " " + c.getMetaData().getDriverVersion()) + "}");
      for (Object o : statements) {
        @SuppressWarnings("unchecked")
        Map<String, Object> st = (Map<String, Object>) o;
        System.out.println(run(c, st));
      }
    }
  }

  static String run(Connection c, Map<String, Object> st) {
    String mode = (String) st.get("mode");
    String sql = (String) st.get("sql");
    @SuppressWarnings("unchecked")
    List<Object> params = (List<Object>) st.getOrDefault("params", List.of());
    StringBuilder out = new StringBuilder("{\"id\":").append(str((String) st.get("id"))).append(",\"results\":[");
    String error = "null";
    String warnings = "[]";
    try (Statement s = open(c, mode, sql)) {
      if (s instanceof PreparedStatement ps) for (int k = 0; k < params.size(); k++) ps.setString(k + 1, (String) params.get(k));
      boolean isResult = s instanceof PreparedStatement ps ? ps.execute() : s.execute(sql);
      boolean first = true;
      while (true) {
        if (isResult) {
          out.append(first ? "" : ",").append(resultSet(s.getResultSet()));
        } else {
          int n = s.getUpdateCount();
          if (n == -1) break;
          out.append(first ? "" : ",").append("{\"updateCount\":").append(n).append('}');
        }
        first = false;
        isResult = s.getMoreResults();
      }
      warnings = warnings(s.getWarnings());
    } catch (SQLException e) {
      error = "[" + e.getErrorCode() + "," + str(e.getSQLState()) + "," + str(e.getMessage()) + "]";
    }
    out.append("],\"warnings\":").append(warnings).append(",\"error\":").append(error);
    out.append(",\"showWarnings\":").append(showWarnings(c)).append('}');
    return out.toString();
  }

  static Statement open(Connection c, String mode, String sql) throws SQLException {
    return switch (mode) {
      case "plain" -> c.createStatement();
      case "prepared" -> c.prepareStatement(sql);
      case "callable" -> c.prepareCall(sql);
      default -> throw new IllegalArgumentException("unknown mode " + mode);
    };
  }

  static String resultSet(ResultSet rs) throws SQLException {
    try (rs) {
      ResultSetMetaData md = rs.getMetaData();
      StringBuilder b = new StringBuilder("{\"columns\":[");
      for (int k = 1; k <= md.getColumnCount(); k++) b.append(k > 1 ? "," : "").append('[').append(str(md.getColumnLabel(k))).append(',').append(str(md.getColumnTypeName(k))).append(']');
      b.append("],\"rows\":[");
      boolean firstRow = true;
      while (rs.next()) {
        b.append(firstRow ? "[" : ",[");
        for (int k = 1; k <= md.getColumnCount(); k++) b.append(k > 1 ? "," : "").append(str(rs.getString(k)));
        b.append(']');
        firstRow = false;
      }
      return b.append("]}").toString();
    }
  }

  static String warnings(SQLWarning w) {
    StringBuilder b = new StringBuilder("[");
    for (boolean first = true; w != null; w = w.getNextWarning(), first = false) b.append(first ? "" : ",").append('[').append(w.getErrorCode()).append(',').append(str(w.getMessage())).append(']');
    return b.append(']').toString();
  }

  static String showWarnings(Connection c) {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW WARNINGS")) {
      StringBuilder b = new StringBuilder("[");
      for (boolean first = true; rs.next(); first = false) b.append(first ? "" : ",").append('[').append(str(rs.getString(1))).append(',').append(rs.getInt(2)).append(',').append(str(rs.getString(3))).append(']');
      return b.append(']').toString();
    } catch (SQLException e) {
      return str("ERR " + e.getErrorCode() + " " + e.getMessage());
    }
  }

  static String str(String s) {
    if (s == null) return "null";
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      switch (ch) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
          else b.append(ch);
        }
      }
    }
    return b.append('"').toString();
  }

  /** The little JSON this program reads: objects, arrays, strings, numbers, true/false/null. */
  static final class Json {
    private final String s;
    private int i;

    Json(String s) {
      this.s = s;
    }

    Object value() {
      skip();
      char ch = s.charAt(i);
      if (ch == '{') {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        skip();
        if (s.charAt(i) == '}') { i++; return m; }
        while (true) {
          skip();
          String k = string();
          skip();
          expect(':');
          m.put(k, value());
          skip();
          if (s.charAt(i++) == '}') return m;
        }
      }
      if (ch == '[') {
        List<Object> l = new ArrayList<>();
        i++;
        skip();
        if (s.charAt(i) == ']') { i++; return l; }
        while (true) {
          l.add(value());
          skip();
          if (s.charAt(i++) == ']') return l;
        }
      }
      if (ch == '"') return string();
      int start = i;
      while (i < s.length() && ",]} \n\r\t".indexOf(s.charAt(i)) < 0) i++;
      String lit = s.substring(start, i);
      return switch (lit) {
        case "true" -> Boolean.TRUE;
        case "false" -> Boolean.FALSE;
        case "null" -> null;
        default -> Double.valueOf(lit);
      };
    }

    private String string() {
      expect('"');
      StringBuilder b = new StringBuilder();
      while (true) {
        char ch = s.charAt(i++);
        if (ch == '"') return b.toString();
        if (ch != '\\') { b.append(ch); continue; }
        char e = s.charAt(i++);
        switch (e) {
          case 'n' -> b.append('\n');
          case 'r' -> b.append('\r');
          case 't' -> b.append('\t');
          case 'b' -> b.append('\b');
          case 'f' -> b.append('\f');
          case 'u' -> { b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; }
          default -> b.append(e);
        }
      }
    }

    private void expect(char ch) {
      if (s.charAt(i) != ch) throw new IllegalArgumentException("expected '" + ch + "' at " + i);
      i++;
    }

    private void skip() {
      while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }
  }
}
