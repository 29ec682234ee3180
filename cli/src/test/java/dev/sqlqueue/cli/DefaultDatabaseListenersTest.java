package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code sqlqueue work} process on the default database ({@code ./.sqlqueue/}, H2 with {@code AUTO_SERVER})
 * serves the file to other {@code sqlqueue} processes on loopback only. H2 2.3.232 bound that server to every
 * interface ({@code *:PORT}), so any host that could reach the machine could talk to it.
 */
class DefaultDatabaseListenersTest {
    @TempDir
    Path dir;

    @Test
    void workOnTheDefaultDatabaseListensOnLoopbackOnly() throws Exception {
        Path log = dir.resolve("out.log");
        Path done = dir.resolve("done");
        Files.writeString(dir.resolve("in.txt"), "one\n");
        Process enqueue = Cli.processWithUmask022(dir, log, "enqueue", "-q", "jobs", "in.txt");
        assertTrue(enqueue.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, enqueue.exitValue(), () -> DefaultDatabaseDir.read(log));

        Path workLog = dir.resolve("work.log");
        Process work = Cli.processWithUmask022(dir, workLog, "work", "-q", "jobs", "--exec", "touch '" + done + "'");
        try {
            // the message ran: the process has opened the database, and serves it (the only process on it)
            DefaultDatabaseDir.await("run of the message", () -> Files.exists(done), work, workLog);
            List<ProcessSockets.End> listening = ProcessSockets.listening(work.pid());
            assertFalse(listening.isEmpty(), "the process serves the database to other sqlqueue processes (AUTO_SERVER)");
            assertEquals(List.of(), listening.stream().filter(l -> !l.loopback()).toList(),
                    "listening beyond loopback; all listeners: " + listening);
            String server = DefaultDatabaseDir.server(dir).orElseThrow();
            assertTrue(InetAddress.getByName(server.substring(0, server.lastIndexOf(':'))).isLoopbackAddress(),
                    "other processes connect to the address in the lock file: " + server);
            assertTrue(listening.stream().anyMatch(l -> l.port() == DefaultDatabaseDir.serverPort(server)),
                    "the lock file names this process's server " + server + ": " + listening);
        } finally {
            DefaultDatabaseDir.stop(work);
        }
    }
}
