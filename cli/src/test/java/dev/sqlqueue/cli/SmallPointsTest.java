package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The smaller points of issue 15: each error is one line, a typo in a queue name is reported, help fits the command. */
class SmallPointsTest {
    @TempDir
    Path dir;

    @Test
    void aDefaultDatabaseThatCannotBeOpenedIsOneLineWithoutAStackTrace() throws Exception {
        Files.writeString(dir.resolve(".sqlqueue"), "a file where the database directory should be");
        String line = oneErrorLine(Cli.process(dir, "stats"));
        assertTrue(line.startsWith("sqlqueue: error: "), line);
    }

    /** The one line a command that failed printed (exit 1), after it ended. */
    private static String oneErrorLine(Process p) throws Exception {
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(ExitCodes.FAILURE, p.exitValue(), out);
        List<String> lines = out.lines().toList();
        assertEquals(1, lines.size(), out);
        return lines.get(0);
    }

    /**
     * MariaDB Connector/J logs every error packet the server sends at WARN (logger {@code
     * org.mariadb.jdbc.message.server.ErrorPacket}) before it throws: a refused login printed that line before
     * the command's own error line. The command reports the error itself, once.
     */
    @Test
    void aRefusedMariaDbLoginIsOneLine() throws Exception {
        String line = oneErrorLine(Cli.process(dir, "stats",
                "--url=jdbc:mariadb://127.0.0.1:3306/test?user=no_such_user_sq&password=wrong"));
        assertTrue(line.startsWith("sqlqueue: error: ") && line.contains("Access denied"), line);
    }

    @Test
    void statsDropAndWorkOnAQueueThatDoesNotExistSaySo() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "x\n");
        assertEquals(0, cli.run("enqueue", "-q", "jobs", input.toString()).code());
        for (String[] args : List.of(new String[] {"stats", "-q", "jbos"}, new String[] {"drop", "--queue", "jbos"},
                new String[] {"work", "-q", "jbos", "--drain", "--exec", "true"}, new String[] {"dlq", "list", "-q", "jbos"},
                new String[] {"dlq", "purge", "-q", "jbos"}, new String[] {"dlq", "requeue", "-q", "jbos"})) {
            Cli.Run r = cli.run(args);
            assertEquals(ExitCodes.FAILURE, r.code(), r::toString);
            assertEquals(List.of("sqlqueue: error: no queue 'jbos' (queues: jobs) [rule: queue.exists]"), r.errLines(), r::toString);
            assertEquals("", r.out(), r::toString);
        }
        try (SqlQueue q = cli.client()) {
            assertEquals(List.of(QueueName.of("jobs")), q.queues(), "nothing created by the typo");
        }
    }

    @Test
    void requeueOfAnIdThatIsNotADeadLetterChangesNothingAndPrintsOnlyTheError() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "bad\n");
        assertEquals(0, cli.run("enqueue", "-q", "fail", input.toString()).code());
        assertEquals(ExitCodes.INCOMPLETE, cli.run("work", "-q", "fail", "--drain", "--max-attempts", "1", "--exec", "exit 1").code());
        Cli.Run r = cli.run("dlq", "requeue", "-q", "fail", "--id", "999", "--id", "1");
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertEquals("", r.out(), r::toString);
        assertEquals(List.of("sqlqueue: error: not dead letters of 'fail': [999]; nothing was requeued [rule: dlq.id]"), r.errLines());
        try (SqlQueue q = cli.client()) {
            assertEquals(1, q.stats(QueueName.of("fail")).dead(), "id 1 was not requeued either");
        }
    }

    @Test
    void statsHistoryZeroIsRefusedBeforeAnythingIsPrinted() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "x\n");
        assertEquals(0, cli.run("enqueue", "-q", "jobs", input.toString()).code());
        Cli.Run r = cli.run("stats", "--history", "0");
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertEquals("", r.out(), r::toString);
        assertEquals(List.of("sqlqueue: error: --history must be 1..100000, was 0 [rule: limit.range]"), r.errLines());
    }

    @Test
    void enqueuingAnEmptyFileCreatesNoQueue() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("empty.txt");
        Files.writeString(input, "\n\r\n");
        Cli.Run r = cli.run("enqueue", "-q", "nothing", input.toString());
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().startsWith("enqueued 0 messages to 'nothing'"), r::toString);
        try (SqlQueue q = cli.client()) {
            assertFalse(q.queues().contains(QueueName.of("nothing")));
        }
    }

    @Test
    void backendsAgreesWithTheReadmeOnMariaDb() throws Exception {
        Cli.Run r = Cli.raw("backends");
        assertEquals(0, r.code(), r::toString);
        assertTrue(r.out().contains("MariaDB 10.8+"), r::toString);
        assertFalse(r.out().contains("10.6+"), r::toString);
        String readme = Files.readString(Path.of("..", "README.md"));
        assertTrue(readme.contains("| MariaDB 10.8+ |"), "README row");
    }

    @Test
    void eachHelpFooterFitsItsCommand() {
        Cli.Run ddl = Cli.raw("ddl", "--help");
        assertEquals(0, ddl.code());
        assertFalse(ddl.out().contains("SQLQUEUE_URL") || ddl.out().contains("H2 file database"), ddl.out());
        assertFalse(ddl.out().contains("dead-lettered"), ddl.out());
        Cli.Run stats = Cli.raw("stats", "--help");
        assertTrue(stats.out().contains("SQLQUEUE_URL"), stats.out());
        assertFalse(stats.out().contains("dead-lettered") || stats.out().contains("130/143"), stats.out());
        Cli.Run work = Cli.raw("work", "--help");
        assertTrue(work.out().contains("3 some messages were dead-lettered") && work.out().contains("130/143"), work.out());
        // picocli reads ${...} in a description as a variable: the replacement of {} is shown as it is
        assertTrue(work.out().replaceAll("\\s+", " ").contains("replaced by " + ShellCommand.MESSAGE + " "), work.out());
        // conformance and probe: an unreachable database is exit 2 (nothing ran), as their docs say; --url is required
        for (String command : new String[] {"conformance", "probe"}) {
            Cli.Run help = Cli.raw(command, "--help");
            assertEquals(0, help.code(), help::toString);
            String text = help.out().replaceAll("\\s+", " ");
            assertFalse(text.contains("1 failure (an unreachable database"), text);
            assertFalse(text.contains("H2 file database"), text);
            assertTrue(text.contains("an unreachable database") && text.matches(".* 2 [^;]*an unreachable database.*"), text);
        }
        Cli.Run conformance = Cli.raw("conformance", "--help");
        assertTrue(conformance.out().contains("130/143"), conformance.out());
        // dlq and history only group their subcommands, which connect: a missing queue is 1 there too
        for (String command : new String[] {"dlq", "history"}) {
            Cli.Run help = Cli.raw(command, "--help");
            assertTrue(help.out().contains("1 failure (an unreachable database, a queue that does not exist)"), help::toString);
        }
    }

    @Test
    void aBadHeaderSaysOptionOnce() {
        Cli.Run r = Cli.raw("enqueue", "-q", "x", "--header", "nokeyvalue");
        assertEquals(ExitCodes.USAGE, r.code(), r::toString);
        assertFalse(r.err().contains("option option"), r::toString);
        assertTrue(r.err().contains("Value for option '--header'"), r::toString);
    }
}
