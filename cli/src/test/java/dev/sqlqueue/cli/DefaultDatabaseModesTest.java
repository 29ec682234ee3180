package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default database's folder {@code ./.sqlqueue/} is owner-only ({@code rwx------}, as {@code ~/.ssh}) and so
 * are its files ({@code rw-------}), under a file-creation mask of 022: they were {@code rwxr-xr-x} and
 * {@code rw-r--r--}, so every local user could read the queued payloads and the H2 server's key in the lock
 * file. A folder that already exists with wider modes is left as it is, with a one-line warning.
 */
class DefaultDatabaseModesTest {
    @TempDir
    Path dir;

    @Test
    void theDefaultFolderAndItsFilesAreOwnerOnly() throws Exception {
        Path log = dir.resolve("enqueue.log");
        Files.writeString(dir.resolve("in.txt"), "one\ntwo\n");
        Process enqueue = Cli.processWithUmask022(dir, log, "enqueue", "-q", "jobs", "in.txt");
        assertTrue(enqueue.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, enqueue.exitValue(), () -> DefaultDatabaseDir.read(log));
        assertEquals("enqueued 2 messages to 'jobs'\n", DefaultDatabaseDir.read(log), "no warning about a folder the command created");
        Path folder = DefaultDatabaseDir.folder(dir);
        assertEquals("rwx------", DefaultDatabaseDir.mode(folder));
        assertEquals(Map.of("sqlqueue.mv.db", "rw-------"), DefaultDatabaseDir.modes(folder), "the database file, after the command closed it");

        Path done = dir.resolve("done");
        Path workLog = dir.resolve("work.log");
        Process work = Cli.processWithUmask022(dir, workLog, "work", "-q", "jobs", "--exec", "touch '" + done + "'");
        try {
            DefaultDatabaseDir.await("run of a message", () -> Files.exists(done), work, workLog);
            assertEquals("rwx------", DefaultDatabaseDir.mode(folder));
            assertEquals(Map.of("sqlqueue.mv.db", "rw-------", "sqlqueue.lock.db", "rw-------"), DefaultDatabaseDir.modes(folder),
                    "the database and its lock file (which holds the server's key) while a process serves them");
        } finally {
            DefaultDatabaseDir.stop(work);
        }
    }

    @Test
    void anExistingWiderFolderIsKeptWithAOneLineWarning() throws Exception {
        Path folder = DefaultDatabaseDir.folder(dir);
        Files.createDirectory(folder);
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path log = dir.resolve("enqueue.log");
        Files.writeString(dir.resolve("in.txt"), "one\n");
        Process enqueue = Cli.processWithUmask022(dir, log, "enqueue", "-q", "jobs", "in.txt");
        assertTrue(enqueue.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, enqueue.exitValue(), () -> DefaultDatabaseDir.read(log));
        List<String> lines = Files.readAllLines(log);
        assertEquals(2, lines.size(), () -> DefaultDatabaseDir.read(log));
        assertEquals("sqlqueue: warning: " + folder + " is open to other users (rwxr-xr-x); make it owner-only: chmod 700 "
                + folder, lines.get(0));
        assertEquals("enqueued 1 message to 'jobs'", lines.get(1));
        assertEquals("rwxr-xr-x", DefaultDatabaseDir.mode(folder), "the user's folder is left as it is");
        assertEquals(Map.of("sqlqueue.mv.db", "rw-------"), DefaultDatabaseDir.modes(folder));
    }
}
