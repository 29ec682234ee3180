package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a worker (a separate JVM, killed by its own pid) while its command runs: the command goes
 * on as an orphan, and the redelivered copy, on the same machine, does not run beside it.
 */
class OrphanTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"h2", "postgresql"})
    void aRedeliveredMessageNeverRunsBesideTheCopyADeadWorkerLeftRunning(String db) throws Exception {
        Cli cli = Cli.on(db, dir);
        String queue = Cli.uniqueQueue("orphan");
        Path input = dir.resolve("in.txt");
        Files.write(input, List.of("only"));
        Path pids = dir.resolve("pids");
        Path log = dir.resolve("log");
        try {
            assertEquals(0, cli.run("enqueue", "-q", queue, input.toString()).code());
            // first copy: records its shell's pid, then runs for 60 s
            String exec = "if [ -s '" + pids + "' ] && kill -0 \"$(head -n 1 '" + pids + "')\" 2>/dev/null; "
                    + "then echo beside >> '" + log + "'; fi; "
                    + "echo $$ >> '" + pids + "'; n=$(wc -l < '" + pids + "'); echo \"start $n\" >> '" + log + "'; "
                    + "if [ \"$n\" = 1 ]; then sleep 60; fi; echo \"end $n\" >> '" + log + "'";
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                    "work", "-q", queue, "--lease", "1s", "--exec", exec, "--url", cli.url());
            pb.redirectErrorStream(true).redirectOutput(dir.resolve("worker1.log").toFile());
            Process worker = pb.start();
            long orphanPid;
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (lines(pids) < 1 && System.nanoTime() < deadline && worker.isAlive()) {
                    Thread.sleep(50);
                }
                assertEquals(1, lines(pids), () -> "the first copy should run: " + read(dir.resolve("worker1.log")));
                orphanPid = Long.parseLong(Files.readAllLines(pids).get(0).strip());
                Process kill = new ProcessBuilder("kill", "-9", Long.toString(worker.pid())).inheritIO().start();
                assertEquals(0, kill.waitFor());
                assertTrue(worker.waitFor(10, TimeUnit.SECONDS));
            } finally {
                worker.destroyForcibly();
            }
            Optional<ProcessHandle> orphan = ProcessHandle.of(orphanPid);
            assertTrue(orphan.isPresent() && orphan.get().isAlive(), "kill -9 leaves the command running");

            // a second worker on the same machine gets the message once the dead worker's 1 s lease ends
            Cli.Run second = cli.run("work", "-q", queue, "--drain", "--lease", "1s", "--exec", exec);
            assertEquals(0, second.code(), second::toString);
            assertTrue(second.out().contains("ok 1"), second::toString);
            assertTrue(second.err().matches("(?s).*killed process(es)? ([0-9]+, )*" + orphanPid + "\\b.*"),
                    () -> second + "\nlog: " + read(log));
            assertFalse(orphan.get().isAlive(), "the orphan was killed");
            assertEquals(List.of("start 1", "start 2", "end 2"), Files.readAllLines(log),
                    "the second copy started after the first was gone, never beside it; the first never ended");
        } finally {
            cli.run("drop", "-q", queue);
        }
    }

    private static int lines(Path p) throws Exception {
        return Files.exists(p) ? Files.readAllLines(p).size() : 0;
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /** The directory of each database, prefix and queue is owner-only (0700), as cli.md says; it was 0755. */
    @org.junit.jupiter.api.Test
    void eachQueuesRunFileDirectoryIsOwnerOnly() throws Exception {
        OrphanGuard g = OrphanGuard.forQueue("jdbc:h2:mem:perm" + System.nanoTime(), "sqlq_", "jobs", line -> { });
        Path dir = g.directory().orElseThrow();
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.getParent())));
        Files.deleteIfExists(dir);
    }
}
