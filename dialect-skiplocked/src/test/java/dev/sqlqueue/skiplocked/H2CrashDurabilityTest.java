package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plain {@code jdbc:h2:file:<path>} URL is durable: a JVM killed with SIGKILL in the middle of a load
 * loses no enqueue whose id was returned, and no message whose ack returned comes back.
 */
class H2CrashDurabilityTest {
    @TempDir
    Path dir;

    @Test
    void sigkillDuringLoadLosesNothingThatWasAcknowledged() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("queue");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                H2CrashChild.class.getName(), url).redirectError(dir.resolve("child.err").toFile()).start();
        Set<Long> enqueued = new HashSet<>();
        Set<Long> consumed = new HashSet<>();
        Set<Long> acked = new HashSet<>();
        boolean killed = false;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("E ")) {
                    enqueued.add(Long.parseLong(line.substring(2)));
                } else if (line.startsWith("C ")) {
                    consumed.add(Long.parseLong(line.substring(2)));
                } else if (line.startsWith("A ")) {
                    acked.add(Long.parseLong(line.substring(2)));
                }
                if (enqueued.size() == 10_000 && !killed) {
                    // SIGKILL of the child this test started, by its process id (Process.destroyForcibly would
                    // also close the pipe, losing lines the child wrote before it died); once: the lines it wrote
                    // before it died are still read after, and a second kill could find it reaped (CI run of
                    // 2026-12-01: "kill: No such process")
                    LocalServer.signal(child, "KILL");
                    killed = true;
                }
            }
        } finally {
            child.destroyForcibly();
            child.waitFor(60, TimeUnit.SECONDS);
        }
        assertEquals(10_000, Math.min(enqueued.size(), 10_000),
                "the child must have been killed under load; its stderr: " + Files.readString(dir.resolve("child.err")));
        assertTrue(acked.size() > 500, "the child acked messages before it was killed: " + acked.size());

        Set<Long> present = new HashSet<>();
        QueueName q = QueueName.of("crash");
        try (SqlQueue queue = SqlQueue.open(QueueConfig.ofUrl(url))) {
            Thread.sleep(1500); // the child's 1 s leases end
            List<Delivery> got;
            while (!(got = queue.consume(q, ConsumeRequest.of(500).withLease(Duration.ofMinutes(5)))).isEmpty()) {
                for (Delivery d : got) {
                    present.add(d.id());
                }
            }
        }
        List<Long> lost = new ArrayList<>();
        for (long id : enqueued) {
            if (!present.contains(id) && !acked.contains(id) && !consumed.contains(id)) {
                lost.add(id);
            }
        }
        List<Long> back = new ArrayList<>();
        for (long id : acked) {
            if (present.contains(id)) {
                back.add(id);
            }
        }
        assertEquals(List.of(), lost.subList(0, Math.min(20, lost.size())),
                lost.size() + " of " + enqueued.size() + " enqueues whose id was returned are gone after the crash");
        assertEquals(List.of(), back.subList(0, Math.min(20, back.size())),
                back.size() + " of " + acked.size() + " acked messages came back after the crash");
    }

    @Test
    void aUrlThatDelaysCommitsIsRefusedBeforeAnythingIsWritten() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("delayed") + ";write_delay=500";
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> SqlQueue.open(QueueConfig.ofUrl(url)));
        assertEquals("h2.write-delay", e.rule());
        assertFalse(Files.exists(dir.resolve("delayed.mv.db")), "no database file was created");
    }

    @Test
    void aDatabaseWhosePersistentWriteDelayIsNotZeroIsRefusedOverADataSource() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("persistent");
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            c.createStatement().execute("SET WRITE_DELAY 500");
        }
        org.h2.jdbcx.JdbcDataSource ds = h2DataSource(url);
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> SqlQueue.open(QueueConfig.builder().dataSource(ds).backend("h2").build()));
        assertEquals("h2.write-delay", e.rule());
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             java.sql.ResultSet rs = c.createStatement().executeQuery(
                     "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_SCHEMA = 'PUBLIC'")) {
            rs.next();
            assertEquals(0, rs.getInt(1), "no table was created");
        }
    }

    /**
     * H2 2.3.232 stores {@code SET WRITE_DELAY 0} but opens the database again with its default of 500 ms:
     * {@code INFORMATION_SCHEMA.SETTINGS} then lists {@code WRITE_DELAY} twice, the stored 0 first and the
     * live 500 after it. Reading the first row let such a database through, and a kill -9 lost returned acks.
     */
    @Test
    void aDatabaseWhereSetWriteDelayZeroWasRunIsStillRefusedWhenItsLiveDelayIsNot() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("stored");
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            c.createStatement().execute("SET WRITE_DELAY 0");
        }
        org.h2.jdbcx.JdbcDataSource ds = h2DataSource(url);
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> SqlQueue.open(QueueConfig.builder().dataSource(ds).backend("h2").build()));
        assertEquals("h2.write-delay", e.rule());
        assertTrue(e.getMessage().contains(";WRITE_DELAY=0"), e.getMessage());
        ds.setURL(url + ";WRITE_DELAY=0");
        try (SqlQueue q = SqlQueue.open(QueueConfig.builder().dataSource(ds).backend("h2").build())) {
            assertNotNull(q, "the URL's WRITE_DELAY=0 is the live value");
        }
    }

    /**
     * The write delay is a number: {@code WRITE_DELAY=00} is 0 and was refused as text. An in-memory database
     * has no file to lose a commit from, so its URL may set any delay; it was refused.
     */
    @Test
    void aWriteDelayIsReadAsANumberAndAnInMemoryDatabaseMaySetAny() {
        String file = "jdbc:h2:file:" + dir.resolve("zero");
        assertEquals(file + ";WRITE_DELAY=00", H2Provider.durableUrl(file + ";WRITE_DELAY=00"));
        assertEquals("jdbc:h2:mem:x;WRITE_DELAY=500", H2Provider.durableUrl("jdbc:h2:mem:x;WRITE_DELAY=500"));
        try (SqlQueue q = SqlQueue.open(QueueConfig.ofUrl("jdbc:h2:mem:wd500;WRITE_DELAY=500"))) {
            assertNotNull(q, "an in-memory database opens with any write delay");
        }
        assertEquals("h2.write-delay", assertThrows(InvalidInputException.class,
                () -> H2Provider.durableUrl(file + ";WRITE_DELAY=500")).rule());
        assertEquals("h2.write-delay", assertThrows(InvalidInputException.class,
                () -> H2Provider.durableUrl(file + ";WRITE_DELAY=x")).rule());
    }

    private static org.h2.jdbcx.JdbcDataSource h2DataSource(String url) {
        org.h2.jdbcx.JdbcDataSource ds = new org.h2.jdbcx.JdbcDataSource();
        ds.setURL(url);
        ds.setUser("sa");
        return ds;
    }
}
