package dev.sqlqueue.cli.kit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The project's databases and what a kit run left in them, read from the catalogs directly. */
final class KitDatabases {
    static final String PG_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    static final String MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test";

    private KitDatabases() {
    }

    static String url(String backend) {
        return backend.equals("postgresql") ? PG_URL : MARIADB_URL;
    }

    static String user(String backend) {
        return backend.equals("postgresql") ? "postgres" : "root";
    }

    static String password(String backend) {
        return "";
    }

    /**
     * Every relation whose name starts with {@code kt}: information_schema.tables on both, plus
     * pg_class (indexes, sequences) on PostgreSQL.
     */
    static List<String> ktObjects(String url, String user, String password) throws SQLException {
        String sql;
        if (url.startsWith("jdbc:postgresql:")) {
            sql = "SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_name LIKE 'kt%'"
                    + " UNION ALL SELECT 'pg_class:' || relname FROM pg_class WHERE relname LIKE 'kt%'";
        } else if (url.startsWith("jdbc:h2:")) {
            sql = "SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME LIKE 'kt%'";
        } else {
            sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'kt%'";
        }
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url, user, password); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** The objects of {@code ktObjects} that belong to one of {@code prefixes} (other runs may share the server). */
    static List<String> objectsOf(List<String> prefixes, String url, String user, String password) throws SQLException {
        List<String> mine = new ArrayList<>();
        for (String o : ktObjects(url, user, password)) {
            String name = o.substring(o.lastIndexOf(o.contains(":") ? ':' : '.') + 1);
            if (prefixes.stream().anyMatch(name::startsWith)) {
                mine.add(o);
            }
        }
        return mine;
    }

    /** The prefixes a run recorded in its ledger. */
    static List<String> ledger(Path reportDir) throws IOException {
        Path f = reportDir.resolve("prefixes.log");
        if (!Files.exists(f)) {
            return List.of();
        }
        return Files.readAllLines(f).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    }
}
