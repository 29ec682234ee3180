package dev.sqlqueue.bench;

import dev.sqlqueue.skiplocked.SkipLockedDialect;
import java.nio.file.Path;

/**
 * A database the benchmarks run on. URLs default to the project's machines (docs/benchmarks.md) and can
 * be overridden with system properties {@code bench.<name>.url}, {@code .user}, {@code .password}.
 */
record Database(String name, SkipLockedDialect dialect, String url, String user, String password) {

    static Database of(String name, Path tempDir) {
        return switch (name) {
            case "h2" -> override(new Database("h2", SkipLockedDialect.H2,
                    "jdbc:h2:file:" + tempDir.resolve("bench-h2").toAbsolutePath(), "sa", ""));
            case "postgresql" -> override(new Database("postgresql", SkipLockedDialect.POSTGRES,
                    "jdbc:postgresql://127.0.0.1:5432/test", "postgres", ""));
            case "mariadb" -> override(new Database("mariadb", SkipLockedDialect.MARIADB,
                    "jdbc:mariadb://127.0.0.1:3306/test", "root", ""));
            default -> throw new IllegalArgumentException("unknown database '" + name + "' (h2, postgresql, mariadb)");
        };
    }

    private static Database override(Database d) {
        return new Database(d.name, d.dialect,
                System.getProperty("bench." + d.name + ".url", d.url),
                System.getProperty("bench." + d.name + ".user", d.user),
                System.getProperty("bench." + d.name + ".password", d.password));
    }
}
