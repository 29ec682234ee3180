package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opening an embedded H2 database that another process holds at that moment (H2 error 90020, "Database
 * may be already in use") is retried with back-off instead of failing at once.
 */
class H2OpenRetryTest {
    @TempDir
    Path dir;

    @Test
    void openWaitsForAnotherProcessToReleaseTheFile() throws Exception {
        String url = "jdbc:h2:file:" + dir.resolve("busy");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                H2HoldOpenChild.class.getName(), url, "2000").redirectError(dir.resolve("child.err").toFile()).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("OPEN", out.readLine(), () -> "the child holds the database: " + readQuietly(dir.resolve("child.err")));
            QueueName q = QueueName.of("busy");
            try (SqlQueue queue = SqlQueue.open(QueueConfig.builder().url(url).user("sa").password("").build())) {
                queue.createQueue(q);
                queue.enqueue(q, Message.ofText("after the other process let go"));
                assertEquals(1, queue.stats(q).depth());
            }
            assertEquals("CLOSED", out.readLine(), "the open succeeded because the other process closed the file");
        } finally {
            assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        }
        assertEquals(0, child.exitValue());
    }

    /**
     * Processes that open one {@code AUTO_SERVER} database at once (several {@code sqlqueue} commands started
     * together on the default database): one of them opens the file and serves it, the others connect to it,
     * and a process that started serving may exit while another is still opening or migrating through it. H2
     * then fails the open with 8000 ("Lock file recently modified"), or the migration with 90067 ("Connection is
     * broken") or 90121 ("Database is already closed"); those are passing and retried like 90020.
     */
    @Test
    void processesThatOpenOneSharedDatabaseAtOnceAllSucceed() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        StringBuilder failures = new StringBuilder();
        int processes = 0;
        // one round of four: ConcurrentStartTest (cli) runs two more rounds of the same through the command
        for (int round = 0; round < 1; round++) {
            String url = "jdbc:h2:file:" + dir.resolve("shared" + round) + ";AUTO_SERVER=TRUE;TRACE_LEVEL_FILE=0";
            java.util.List<Process> children = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                children.add(new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                        H2SharedOpenChild.class.getName(), url).redirectErrorStream(true).start());
            }
            for (Process child : children) {
                String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(child.waitFor(120, TimeUnit.SECONDS));
                processes++;
                if (child.exitValue() != 0) {
                    failures.append("round ").append(round).append(": ").append(out.lines().filter(l -> l.startsWith("FAILED"))
                            .findFirst().orElse(out)).append('\n');
                }
            }
        }
        assertEquals("", failures.toString(), "of " + processes + " processes");
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (Exception e) {
            return "";
        }
    }
}
