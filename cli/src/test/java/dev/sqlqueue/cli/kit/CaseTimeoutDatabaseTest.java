package dev.sqlqueue.cli.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.conformance.kit.KitOptions;
import dev.sqlqueue.conformance.kit.KitRunner;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The kit's time limit per case, on H2 (file database), PostgreSQL and MariaDB: while C10 runs, a second
 * connection of this test locks C10's message table (PostgreSQL {@code LOCK TABLE ... ACCESS EXCLUSIVE},
 * MariaDB {@code LOCK TABLES ... WRITE}; H2 has no table lock, so {@code SELECT ... FOR UPDATE} of every
 * row once consumers hold leases, taken again until an ack waits on it), so C10 blocks. C10 must be reported failed "timed out after 15 s" with the statement in flight
 * and what the database says about the wait; the run must go on to C11 and finish; no object of the run
 * may be left. The lock is released when the kit prints that it has stopped the case, so that the kit's
 * clean-up (which drops the locked table) can proceed, as a DBA would once told.
 */
class CaseTimeoutDatabaseTest {
    private static final int LIMIT_S = 15;

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void aBlockedCaseFailsByTimeOutWithItsWaitAndTheRunGoesOn(String backend, @TempDir Path dir) throws Exception {
        String url = backend.equals("h2")
                ? "jdbc:h2:file:" + dir.resolve("db").toAbsolutePath() + ";LOCK_TIMEOUT=600000"
                : KitDatabases.url(backend);
        String user = backend.equals("h2") ? "sa" : KitDatabases.user(backend);
        Path report = dir.resolve("report");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream console = new PrintStream(buf, true, StandardCharsets.UTF_8);
        KitOptions options = KitOptions.builder().url(url).user(user).password("").modes("lease").cases("C10,C11")
                .caseTimeout(Duration.ofSeconds(LIMIT_S)).reportDir(report).console(console).build();

        ExecutorService exec = Executors.newSingleThreadExecutor();
        int rc;
        try {
            Future<Integer> run = exec.submit(() -> KitRunner.run(options));
            try (Connection locker = lockC10(backend, url, user, report, run)) {
                // hold the lock until the kit says it has stopped the timed-out case (statements cancelled,
                // connections aborted), then let its clean-up drop the table
                long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
                while (!buf.toString(StandardCharsets.UTF_8).contains("; dropping its objects") && System.nanoTime() < until
                        && !run.isDone()) {
                    Thread.sleep(100);
                }
                release(backend, locker);
            }
            rc = run.get(5, TimeUnit.MINUTES);
        } finally {
            exec.shutdownNow();
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        assertEquals(KitRunner.FAILURES, rc, out);

        String md = Files.readString(report.resolve("conformance.md"));
        System.out.println(md);
        String row = md.lines().filter(l -> l.startsWith("| C10 concurrency | lease |")).findFirst().orElse("");
        assertTrue(row.contains("| **failed** |") && row.contains("timed out after " + LIMIT_S + " s"), md);
        assertTrue(row.contains("statement in flight") || row.contains("statements in flight"), row);
        assertTrue(row.contains(expectedWait(backend)), "the database's account of the wait: " + row);
        assertTrue(row.contains("statements cancelled") || row.contains("statement cancelled"), row);
        assertTrue(md.contains("| case time limit | " + LIMIT_S + " s (--case-timeout) |"), md);
        // the run went on with the next case, which passed
        assertTrue(md.contains("| C11 batch claim | lease | passed |"), md);
        List<String> prefixes = KitDatabases.ledger(report);
        assertEquals(3, prefixes.size(), "probe, C10, C11: " + prefixes);
        assertEquals(List.of(), KitDatabases.objectsOf(prefixes, url, user, ""),
                "objects of the run left in the catalog");
        assertTrue(md.contains("| objects left behind | none (3 table prefixes used, all dropped) |"), md);
    }

    /** What each database says about a session waiting on this test's lock. */
    private static String expectedWait(String backend) {
        return switch (backend) {
            case "postgresql" -> "wait_event_type=Lock";
            case "mariadb" -> "state=Waiting for table metadata lock";
            default -> "blocker_id=";
        };
    }

    /**
     * Waits for C10's prefix (the second in the ledger, after the kit's probe) and its message table with
     * rows in it, then locks that table from a connection of its own and returns the connection.
     */
    private static Connection lockC10(String backend, String url, String user, Path report, Future<Integer> run)
            throws Exception {
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        String table = null;
        while (System.nanoTime() < until && !run.isDone()) {
            List<String> prefixes = KitDatabases.ledger(report);
            // H2: once consumers hold leases, so that their acks wait on the rows this test locks
            if (prefixes.size() >= 2 && hasRows(url, user, prefixes.get(1) + "message",
                    backend.equals("h2") ? "lease_token IS NOT NULL" : "id > 0")) {
                table = prefixes.get(1) + "message";
                break;
            }
            Thread.sleep(20);
        }
        assertTrue(table != null, "C10 never filled its message table");
        Connection c = DriverManager.getConnection(url, user, "");
        try (Statement st = c.createStatement()) {
            switch (backend) {
                case "postgresql" -> {
                    c.setAutoCommit(false);
                    st.execute("LOCK TABLE \"" + table + "\" IN ACCESS EXCLUSIVE MODE");
                }
                case "mariadb" -> st.execute("LOCK TABLES `" + table + "` WRITE");
                default -> lockH2(c, st, table, run);
            }
        }
        return c;
    }

    /**
     * H2: locks every row of the table until a consumer's ack waits on one of them. The rows locked are those
     * present when the select reads them; when every lease among them was acked first, only ready rows are locked,
     * which consumers skip (SKIP LOCKED), so nothing waits: then the lock is let go and taken again.
     */
    private static void lockH2(Connection c, Statement st, String table, Future<Integer> run) throws Exception {
        c.setAutoCommit(false);
        long session;
        try (ResultSet rs = st.executeQuery("SELECT SESSION_ID()")) {
            rs.next();
            session = rs.getLong(1);
        }
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (System.nanoTime() < until && !run.isDone()) {
            st.executeQuery("SELECT id FROM \"" + table + "\" FOR UPDATE").close();
            long check = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() < check) {
                try (ResultSet rs = st.executeQuery(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID = " + session)) {
                    rs.next();
                    if (rs.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(20);
            }
            c.rollback();
            System.out.println("H2: no ack waited on the rows locked within 2 s; locking again");
        }
        throw new AssertionError("no consumer of C10 ever waited on the rows this test locked");
    }

    private static boolean hasRows(String url, String user, String table, String condition) {
        String quoted = url.startsWith("jdbc:mariadb:") ? "`" + table + "`" : "\"" + table + "\"";
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT 1 FROM " + quoted + " WHERE " + condition + " LIMIT 1")) {
            return rs.next();
        } catch (SQLException notYet) {
            return false;
        }
    }

    private static void release(String backend, Connection c) throws SQLException {
        if (backend.equals("mariadb")) {
            try (Statement st = c.createStatement()) {
                st.execute("UNLOCK TABLES");
            }
        } else {
            c.rollback();
        }
    }
}
