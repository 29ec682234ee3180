package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several commands started at once on one new H2 database shared with {@code AUTO_SERVER}, as
 * {@code for i in 1 2 3 4; do sqlqueue enqueue ... & done} does on the default database: each succeeds and
 * prints its own line and nothing else. Some failed with H2 8000, 90067 or 90121, and a failed or retried
 * schema migration printed Flyway's stack traces (about 127 lines) before the command's own line.
 */
class ConcurrentStartTest {
    @TempDir
    Path dir;

    @Test
    void commandsStartedTogetherOnANewSharedDatabaseAllSucceedQuietly() throws Exception {
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "x\n");
        StringBuilder wrong = new StringBuilder();
        for (int round = 0; round < 2; round++) {
            String url = "jdbc:h2:file:" + dir.resolve("db" + round) + ";AUTO_SERVER=TRUE;WRITE_DELAY=0;TRACE_LEVEL_FILE=0";
            List<Process> children = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                children.add(Cli.process(dir, "enqueue", "-q", "together", "--url=" + url, input.toString()));
            }
            for (Process p : children) {
                String out = new String(p.getInputStream().readAllBytes());
                assertTrue(p.waitFor(120, TimeUnit.SECONDS));
                if (p.exitValue() != 0 || !out.equals("enqueued 1 message to 'together'\n")) {
                    wrong.append("round ").append(round).append(", exit ").append(p.exitValue()).append(": ")
                            .append(out.lines().limit(3).collect(Collectors.joining(" | "))).append(" (")
                            .append(out.lines().count()).append(" lines)\n");
                }
            }
        }
        assertEquals("", wrong.toString());
    }
}
