package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code sqlqueue work} processes share the default database: the first serves the file (H2
 * {@code AUTO_SERVER}), the second connects to it. When the first is killed with SIGKILL, the second takes the
 * file over, serves it in turn, on loopback only, and goes on running the messages enqueued after.
 */
class DefaultDatabaseTakeoverTest {
    @TempDir
    Path dir;

    @Test
    void theSurvivorTakesTheDatabaseOverAndServesItOnLoopbackOnly() throws Exception {
        Path first = dir.resolve("first.txt");
        Path second = dir.resolve("second.txt");
        enqueue("before");
        Path logA = dir.resolve("a.log");
        Path logB = dir.resolve("b.log");
        Process a = Cli.processWithUmask022(dir, logA, "work", "-q", "jobs", "--exec", "echo {} >> '" + first + "'");
        Process b = null;
        try {
            DefaultDatabaseDir.await("run of 'before' by the first worker", () -> lines(first).contains("before"), a, logA);
            int portA = DefaultDatabaseDir.serverPort(DefaultDatabaseDir.server(dir).orElseThrow());
            assertTrue(listens(a, portA), "the first worker serves the file");

            b = Cli.processWithUmask022(dir, logB, "work", "-q", "jobs", "--exec", "echo {} >> '" + second + "'");
            Process survivor = b;
            DefaultDatabaseDir.await("connection of the second worker to the first's server",
                    () -> connected(survivor, portA), b, logB);

            // SIGKILL of the serving process, by its own pid (the child is the JVM: sh execs it)
            Process kill = new ProcessBuilder("kill", "-9", Long.toString(a.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor());
            assertTrue(a.waitFor(60, TimeUnit.SECONDS));

            DefaultDatabaseDir.await("take-over: the lock file naming a server of the second worker", () -> DefaultDatabaseDir.server(dir)
                    .map(s -> listens(survivor, DefaultDatabaseDir.serverPort(s))).orElse(false), b, logB);
            List<ProcessSockets.End> listening = ProcessSockets.listening(b.pid());
            assertEquals(List.of(), listening.stream().filter(l -> !l.loopback()).toList(),
                    "listening beyond loopback; all listeners: " + listening);

            enqueue("after");
            DefaultDatabaseDir.await("run of 'after' by the second worker", () -> lines(second).contains("after"), b, logB);
        } finally {
            a.destroyForcibly();
            if (b != null) {
                DefaultDatabaseDir.stop(b);
            }
        }
        assertEquals(143, b.exitValue(), () -> "SIGTERM ends the second worker cleanly: " + DefaultDatabaseDir.read(logB));
        assertEquals(List.of("before"), lines(first));
    }

    private void enqueue(String line) throws Exception {
        Path in = dir.resolve(line + ".txt");
        Files.writeString(in, line + "\n");
        Path log = dir.resolve("enqueue-" + line + ".log");
        Process p = Cli.processWithUmask022(dir, log, "enqueue", "-q", "jobs", in.toString());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), () -> DefaultDatabaseDir.read(log));
    }

    private static boolean listens(Process p, int port) {
        try {
            return ProcessSockets.listening(p.pid()).stream().anyMatch(l -> l.port() == port);
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean connected(Process p, int port) {
        try {
            return ProcessSockets.connectedTo(p.pid()).stream().anyMatch(l -> l.port() == port);
        } catch (IOException e) {
            return false;
        }
    }

    private static List<String> lines(Path p) {
        try {
            return Files.exists(p) ? Files.readAllLines(p) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }
}
