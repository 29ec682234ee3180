package dev.sqlqueue.cli.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.conformance.kit.UrlTarget;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit's clean-up of a prefix on H2 while another session holds rows of a leftover table with
 * {@code SELECT ... FOR UPDATE}: H2 2.3.232 takes no table lock for that, so a plain {@code DROP TABLE}
 * would not wait, and the session's rollback afterwards breaks the database file ("Unable to read the
 * page"). The clean-up must wait for the session and leave the database readable.
 */
class H2KitCleanUpTest {
    @TempDir
    Path dir;

    @Test
    void theCleanUpWaitsForRowLocksOnALeftoverTableAndTheDatabaseStaysReadable() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath() + ";LOCK_TIMEOUT=20000";
        String prefix = "ktleft_";
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement st = c.createStatement()) {
            st.execute("create table \"" + prefix + "extra\" (id bigint primary key, v varchar(100))");
            st.execute("insert into \"" + prefix + "extra\" select x, repeat('x', 90) from system_range(1, 100000)");
            st.execute("create table kept (id bigint primary key, v varchar(100))");
        }
        UrlTarget target = new UrlTarget("h2", url, "sa", "", null, dir.resolve("ledger"));
        try (Connection locker = DriverManager.getConnection(url, "sa", "")) {
            locker.setAutoCommit(false);
            try (Statement st = locker.createStatement()) {
                st.executeQuery("select id from \"" + prefix + "extra\" where mod(id, 7) = 0 for update").close();
            }
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread cleanUp = new Thread(() -> {
                try {
                    target.cleanUp(prefix);
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "clean-up");
            cleanUp.start();
            cleanUp.join(1500);
            boolean droppedUnderTheLocks = !cleanUp.isAlive();
            // other work on the file, then the locking session ends
            try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement st = c.createStatement()) {
                st.execute("insert into kept select x, repeat('y', 90) from system_range(1, 50000)");
            }
            locker.rollback();
            cleanUp.join(30_000);
            assertEquals(50_000, kept(url), "the database stays readable");
            assertNull(failure.get(), "clean-up failed: " + failure.get());
            assertTrue(!droppedUnderTheLocks, "the clean-up waits for the rows locked by another session");
        }
        assertEquals(50_000, kept(url), "and after a reopen");
    }

    private static int kept(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("select count(*) from information_schema.tables where table_name like 'ktleft%'")) {
                rs.next();
                assertEquals(0, rs.getInt(1), "the leftover table is dropped");
            }
            try (ResultSet rs = st.executeQuery("select count(*) from kept")) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
