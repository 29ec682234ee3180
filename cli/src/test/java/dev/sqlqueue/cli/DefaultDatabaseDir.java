package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * The default database of commands started in a directory ({@code DIR/.sqlqueue/sqlqueue}, see
 * {@link ConnectionOptions#defaultUrl()}), as the tests of its sockets and file modes read it.
 */
final class DefaultDatabaseDir {
    private DefaultDatabaseDir() {
    }

    /** {@code dir/.sqlqueue}. */
    static Path folder(Path dir) {
        return dir.resolve(".sqlqueue");
    }

    /**
     * The {@code server} entry of H2's lock file ({@code host:port} of the process serving the file with
     * {@code AUTO_SERVER}, H2 2.3.232 {@code Database.startServer}), when the file exists and has one.
     */
    static Optional<String> server(Path dir) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(folder(dir).resolve("sqlqueue.lock.db"))) {
            p.load(r);
        } catch (IOException absentOrBeingWritten) {
            return Optional.empty();
        }
        return Optional.ofNullable(p.getProperty("server"));
    }

    /** The port of {@link #server}. */
    static int serverPort(String server) {
        return Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
    }

    /** {@code rwx------}-style mode of {@code p}. */
    static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    /** Name and {@link #mode} of each file in {@code folder}. */
    static Map<String, String> modes(Path folder) throws IOException {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                modes.put(f.getFileName().toString(), mode(f));
            }
        }
        return modes;
    }

    /** The text of {@code p} (a process's output), or what kept it from being read. */
    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }

    /**
     * Waits until {@code condition} holds (checked every 50 ms), failing after 120 s or when {@code process}
     * exits first, with {@code what} and the process's output in {@code log}.
     */
    static void await(String what, BooleanSupplier condition, Process process, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!condition.getAsBoolean()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                fail("no " + what + (process.isAlive() ? " within 120 s" : "; the process exited with " + process.exitValue())
                        + "; its output:\n" + read(log));
            }
            Thread.sleep(50);
        }
    }

    /** Stops {@code p} with SIGTERM (as Ctrl-C would), then SIGKILL if it is still there after 60 s. */
    static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
        }
    }
}
