package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An H2 file database the library opens from a URL: the folders it has to create are owner-only
 * ({@code rwx------}) and the database's files are made owner-only ({@code rw-------}) at open, under a
 * file-creation mask of 022 (H2 created them {@code rwxr-xr-x} and {@code rw-r--r--}). A folder that exists is
 * the application's and keeps its mode.
 */
class H2FileModesTest {
    @TempDir
    Path dir;

    @Test
    void theFoldersItCreatesAndTheDatabaseFilesAreOwnerOnly() throws Exception {
        Path db = dir.resolve("new").resolve("sub").resolve("queue");
        // AUTO_SERVER: H2 writes a lock file (FILE_LOCK=FILE); TRACE_LEVEL_FILE=2: it writes a trace file at open
        Process child = openUntilTold("jdbc:h2:file:" + db + ";AUTO_SERVER=TRUE;TRACE_LEVEL_FILE=2");
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("OPEN", out.readLine(), () -> read(dir.resolve("child.err")));
            assertEquals("rwx------", mode(dir.resolve("new")));
            assertEquals("rwx------", mode(dir.resolve("new").resolve("sub")));
            assertEquals(Map.of("queue.lock.db", "rw-------", "queue.mv.db", "rw-------", "queue.trace.db", "rw-------"),
                    modes(db.getParent()));
            child.getOutputStream().close();
            assertEquals("CLOSED", out.readLine(), () -> read(dir.resolve("child.err")));
        } finally {
            end(child);
        }
        assertEquals("rw-------", mode(dir.resolve("new").resolve("sub").resolve("queue.mv.db")));
    }

    @Test
    void anExistingFolderKeepsItsModeAndTheDatabaseFilesAreOwnerOnly() throws Exception {
        Path folder = Files.createDirectory(dir.resolve("app"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        Process child = openUntilTold("jdbc:h2:" + folder.resolve("queue"));
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            assertEquals("OPEN", out.readLine(), () -> read(dir.resolve("child.err")));
            child.getOutputStream().close();
            assertEquals("CLOSED", out.readLine(), () -> read(dir.resolve("child.err")));
        } finally {
            end(child);
        }
        assertEquals("rwxr-xr-x", mode(folder));
        assertEquals(Map.of("queue.mv.db", "rw-------"), modes(folder));
    }

    /** The child JVM, under the file-creation mask 022, its server (if any) on loopback as docs/backends/h2.md says. */
    private Process openUntilTold(String url) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return new ProcessBuilder("/bin/sh", "-c", "umask 022 && exec \"$0\" \"$@\"", java.toString(), "-Dh2.bindAddress=127.0.0.1",
                "-cp", System.getProperty("java.class.path"), H2OpenUntilToldChild.class.getName(), url)
                .redirectError(dir.resolve("child.err").toFile()).start();
    }

    /** Ends the child's input (it closes the database and exits), and waits for it; SIGKILL after 60 s. */
    private static void end(Process child) throws Exception {
        child.getOutputStream().close();
        if (!child.waitFor(60, TimeUnit.SECONDS)) {
            child.destroyForcibly().waitFor();
        }
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    private static Map<String, String> modes(Path folder) throws Exception {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                modes.put(f.getFileName().toString(), mode(f));
            }
        }
        return modes;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
