package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 34: a row of {@code history list} names the input line it came from. Every history row, acked or
 * dead-lettered, keeps the first {@link HistoryEntry#PREVIEW_BYTES} bytes of its payload, shown in a PAYLOAD column.
 */
class HistoryPreviewTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void historyListShowsThePayloadOfEachRow(String db) throws Exception {
        Cli cli = Cli.on(db, dir);
        String queue = Cli.uniqueQueue("hprev");
        String longLine = "long-" + "x".repeat(100);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "line-one-ok\nline-two-fails\n" + longLine + "\n");
        try {
            assertEquals(0, cli.run("enqueue", "-q", queue, input.toString()).code());
            Cli.Run work = cli.run("work", "-q", queue, "--drain", "--max-attempts", "1", "--exec", "test {} != line-two-fails");
            assertEquals(ExitCodes.INCOMPLETE, work.code(), work::toString);
            Cli.Run list = cli.run("history", "list", "-q", queue);
            assertEquals(0, list.code(), list::toString);
            List<String> lines = list.out().lines().toList();
            assertTrue(lines.get(0).contains("PAYLOAD"), list::toString);
            assertTrue(lines.stream().anyMatch(l -> l.contains(" acked") && l.endsWith("line-one-ok")), list::toString);
            assertTrue(lines.stream().anyMatch(l -> l.contains("dead-lettered") && l.endsWith("line-two-fails")), list::toString);
            try (SqlQueue c = cli.client()) {
                List<HistoryEntry> rows = c.history(QueueName.of(queue), 10);
                assertEquals(3, rows.size());
                byte[] longPreview = rows.stream().filter(h -> h.payloadPreview() != null && h.payloadPreview().length > 20)
                        .findFirst().orElseThrow().payloadPreview();
                assertArrayEquals(Arrays.copyOf(longLine.getBytes(StandardCharsets.UTF_8), HistoryEntry.PREVIEW_BYTES), longPreview,
                        "the first 64 bytes, nothing else");
            }
        } finally {
            cli.run("drop", "-q", queue);
        }
    }
}
