package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code work --exec} with a simple command starts the program itself, without {@code sh} between
 * (docs/cli.md, "How work runs a command"), with the shell's results where a program cannot start.
 */
class DirectExecTest {
    @TempDir
    Path dir;

    @Test
    void aSimpleCommandRunsAsAChildOfTheWorkerNotOfAShell() throws Exception {
        Cli cli = new Cli(dir);
        Path script = dir.resolve("ppid.sh");
        Files.writeString(script, "#!/bin/sh\nprintf '%s %s\\n' \"$PPID\" \"$1\" >> \"$0.out\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        Path input = dir.resolve("in.txt");
        Files.write(input, List.of("one", "two words", "three; $(x)"), StandardCharsets.UTF_8);
        assertEquals(0, cli.run("enqueue", "-q", "direct", input.toString()).code());
        Cli.Run work = cli.run("work", "-q", "direct", "--drain", "--workers", "2", "--exec", script + " {}");
        assertEquals(0, work.code(), work::toString);
        List<String> lines = Files.readAllLines(Path.of(script + ".out"));
        assertEquals(Set.of("one", "two words", "three; $(x)"),
                lines.stream().map(l -> l.substring(l.indexOf(' ') + 1)).collect(Collectors.toSet()));
        Set<String> parents = lines.stream().map(l -> l.substring(0, l.indexOf(' '))).collect(Collectors.toSet());
        if (!ShellCommand.hasControllingTerminal()) {
            assertEquals(Set.of(Long.toString(ProcessHandle.current().pid())), parents,
                    "the program's parent is the worker's JVM, no shell between");
        } else {
            // with a terminal every command runs under setsid and sh (docs/cli.md, "Own session")
            assertTrue(!parents.contains(Long.toString(ProcessHandle.current().pid())), parents::toString);
        }
    }

    @Test
    void aProgramNotFoundExits127AsUnderTheShellAndIsRetriedThenDeadLettered() throws Exception {
        Cli cli = new Cli(dir);
        Path input = dir.resolve("in.txt");
        Files.writeString(input, "m\n");
        assertEquals(0, cli.run("enqueue", "-q", "missing", input.toString()).code());
        Cli.Run work = cli.run("work", "-q", "missing", "--drain", "--max-attempts", "2", "--backoff", "10ms",
                "--max-backoff", "20ms", "--exec", "no-such-program-sqlqueue {}");
        assertEquals(ExitCodes.INCOMPLETE, work.code(), work::toString);
        assertTrue(work.out().contains("ok 0, retried 1, dead-lettered 1"), work::toString);
        try (SqlQueue q = cli.client()) {
            List<DeadLetter> dead = q.deadLetters(QueueName.of("missing"), 10);
            assertEquals(1, dead.size());
            assertEquals(2, dead.get(0).attempts());
            assertEquals("attempt 2 of 2 failed: exit 127: sqlqueue: 1: no-such-program-sqlqueue: not found", dead.get(0).reason());
        }
    }

    @Test
    void fileNamesThatAreNotUtf8StillReachASimpleCommandExactly() throws Exception {
        Cli cli = new Cli(dir);
        Process p = new ProcessBuilder("/bin/sh", "-c", "printf 'latin\\n' > \"$(printf 'caf\\351 \\377 x\\\\y')\"; "
                + "printf 'utf\\n' > 'naïve ✓'; printf 'ascii\\n' > 'plain name'")
                .directory(dir.toFile()).inheritIO().start();
        assertEquals(0, p.waitFor());
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        for (byte[] name : List.of(new byte[] {'c', 'a', 'f', (byte) 0xe9, ' ', (byte) 0xff, ' ', 'x', '\\', 'y'},
                "naïve ✓".getBytes(StandardCharsets.UTF_8), "plain name".getBytes(StandardCharsets.UTF_8))) {
            lines.writeBytes(dir.toString().getBytes(StandardCharsets.UTF_8));
            lines.write('/');
            lines.writeBytes(name);
            lines.write('\n');
        }
        Path input = dir.resolve("in.txt");
        Files.write(input, lines.toByteArray());
        assertEquals(0, cli.run("enqueue", "-q", "bytes", input.toString()).code());
        // a simple command: cp's source is the message exactly, whatever its bytes
        Cli.Run work = cli.run("work", "-q", "bytes", "--drain", "--workers", "1", "--max-attempts", "1",
                "--exec", "cp {} {}.copy");
        assertEquals(0, work.code(), work::toString);
        assertTrue(work.out().contains("ok 3, retried 0, dead-lettered 0"), work::toString);
        assertEquals(0, cli.run("enqueue", "-q", "bytes", input.toString()).code());
        Path all = dir.resolve("all");
        Cli.Run cat = cli.run("work", "-q", "bytes", "--drain", "--workers", "1", "--exec", "dd of=" + all + " oflag=append conv=notrunc status=none");
        assertEquals(0, cat.code(), cat::toString);
        assertEquals(new String(lines.toByteArray(), StandardCharsets.ISO_8859_1).replace("\n", ""),
                new String(Files.readAllBytes(all), StandardCharsets.ISO_8859_1), "standard input: the bytes exactly");
        try (var copies = Files.list(dir)) {
            List<String> contents = copies.filter(f -> f.getFileName().toString().endsWith(".copy")).map(f -> {
                try {
                    return Files.readString(f).strip();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).sorted().toList();
            assertEquals(List.of("ascii", "latin", "utf"), contents, "each copy made from the very file");
        }
    }
}
