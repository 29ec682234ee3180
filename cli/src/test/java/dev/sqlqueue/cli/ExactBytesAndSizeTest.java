package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A message's bytes reach the command exactly ({@code {}}, {@code $1} and standard input), whatever
 * they are, and a message that can never be an argument is refused at enqueue or dead-lettered at once.
 */
class ExactBytesAndSizeTest {
    @TempDir
    Path dir;

    /** A file whose name is not UTF-8 (Latin-1 "café", then a lone 0xFF), made by the shell. */
    private byte[] nonUtf8File() throws Exception {
        Process p = new ProcessBuilder("/bin/sh", "-c", "printf 'contents\\n' > \"$(printf 'caf\\351 \\377 x\\\\y')\"")
                .directory(dir.toFile()).inheritIO().start();
        assertEquals(0, p.waitFor());
        byte[] name = {'c', 'a', 'f', (byte) 0xe9, ' ', (byte) 0xff, ' ', 'x', '\\', 'y'};
        ByteArrayOutputStream path = new ByteArrayOutputStream();
        path.write(dir.toString().getBytes(StandardCharsets.UTF_8));
        path.write('/');
        path.write(name);
        return path.toByteArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql", "mariadb"})
    void aFileNameThatIsNotUtf8ReachesTheCommandExactly(String db) throws Exception {
        Cli cli = Cli.on(db, dir);
        String queue = Cli.uniqueQueue("bytes");
        byte[] path = nonUtf8File();
        byte[] utf8 = "naïve ünïcödé ✓".getBytes(StandardCharsets.UTF_8);
        Path input = dir.resolve("in.txt");
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        lines.write(path);
        lines.write('\n');
        Files.write(input, lines.toByteArray());
        Files.write(dir.resolve("in2.txt"), utf8);
        try {
            assertEquals(0, cli.run("enqueue", "-q", queue, input.toString()).code());
            Path out = dir.resolve("out");
            Path args = dir.resolve("args");
            Cli.Run work = cli.run("work", "-q", queue, "--drain", "--max-attempts", "1",
                    "--exec", "cat {} >> '" + out + "' && printf '%s\\n' \"$1\" >> '" + args + "' && cat >> '" + args + "'");
            assertEquals(0, work.code(), work::toString);
            assertTrue(work.out().contains("ok 1, retried 0, dead-lettered 0"), work::toString);
            assertEquals("contents\n", Files.readString(out), "the command opened the very file");
            byte[] expected = concat(path, new byte[] {'\n'}, path);
            assertEquals(Arrays.toString(expected), Arrays.toString(Files.readAllBytes(args)), "$1, then standard input");

            // valid UTF-8 goes through as it is
            assertEquals(0, cli.run("enqueue", "-q", queue, dir.resolve("in2.txt").toString()).code());
            Path utfOut = dir.resolve("utf");
            Cli.Run w2 = cli.run("work", "-q", queue, "--drain", "--exec", "printf '%s' {} > '" + utfOut + "'");
            assertEquals(0, w2.code(), w2::toString);
            assertEquals(Arrays.toString(utf8), Arrays.toString(Files.readAllBytes(utfOut)));
        } finally {
            cli.run("drop", "-q", queue);
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    @Test
    void enqueueRefusesALineTooLongForAnArgumentAndWritesNothing() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        byte[] big = new byte[128 * 1024];
        Arrays.fill(big, (byte) 'a');
        Files.write(input, concat("small\n".getBytes(StandardCharsets.UTF_8), big, "\n".getBytes(StandardCharsets.UTF_8)));
        Cli.Run run = cli.run("enqueue", "-q", "big", input.toString());
        assertEquals(ExitCodes.USAGE, run.code(), run::toString);
        assertTrue(run.err().contains("line 2 is 131072 bytes") && run.err().contains("[rule: exec.argument-max]"), run::toString);
        try (SqlQueue q = cli.client()) {
            assertFalse(q.queues().contains(QueueName.of("big")), "nothing written");
        }
        // one byte less is the largest argument Linux takes: it runs
        Files.write(input, concat(Arrays.copyOf(big, 131_071), "\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals(0, cli.run("enqueue", "-q", "big", input.toString()).code());
        Path out = dir.resolve("out");
        Cli.Run work = cli.run("work", "-q", "big", "--drain", "--exec", "printf %s {} | wc -c > '" + out + "'");
        assertEquals(0, work.code(), work::toString);
        assertEquals("131071", Files.readString(out).strip());
    }

    @Test
    void aMessageTooLongForAnArgumentIsDeadLetteredAtOnceNotRetried() throws Exception {
        Cli cli = new Cli(dir);
        byte[] big = new byte[200_000];
        Arrays.fill(big, (byte) 'b');
        try (SqlQueue q = cli.client()) {
            q.createQueue(QueueName.of("big"));
            q.enqueue(QueueName.of("big"), Message.builder(big).build()); // the library takes up to 1 MiB
        }
        Path runs = dir.resolve("runs");
        Cli.Run work = cli.run("work", "-q", "big", "--drain", "--max-attempts", "5", "--backoff", "10ms",
                "--exec", "echo ran >> '" + runs + "'");
        assertEquals(ExitCodes.INCOMPLETE, work.code(), work::toString);
        assertTrue(work.out().contains("ok 0, retried 0, dead-lettered 1"), work::toString);
        assertFalse(Files.exists(runs));
        try (SqlQueue q = cli.client()) {
            List<DeadLetter> dead = q.deadLetters(QueueName.of("big"), 10);
            assertEquals(1, dead.size());
            assertEquals(1, dead.get(0).attempts(), "never retried");
            assertTrue(dead.get(0).reason().contains("[rule: exec.argument-max]"), dead.get(0).reason());
        }
    }
}
