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

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (Exception e) {
            return "";
        }
    }
}
