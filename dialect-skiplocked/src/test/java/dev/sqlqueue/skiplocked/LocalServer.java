package dev.sqlqueue.skiplocked;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Stops and starts the database servers of this machine for the outage case (C17): PostgreSQL with
 * {@code pg_ctlcluster ... stop -m immediate} (a crash: no checkpoint, recovery at start), MariaDB by
 * SIGKILL of {@code mariadbd} and {@code start-stop-daemon} to start it again. Only on 127.0.0.1 and
 * only where the tools exist; otherwise the reason is reported and C17 is skipped.
 */
final class LocalServer {
    private LocalServer() {
    }

    static String pgVersion() {
        try (var dirs = Files.list(Path.of("/etc/postgresql"))) {
            return dirs.map(p -> p.getFileName().toString()).sorted().reduce((a, b) -> b).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    static boolean isLocal(String url) {
        return url.contains("//127.0.0.1") || url.contains("//localhost");
    }

    static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(command + " did not finish");
        }
        if (p.exitValue() != 0) {
            throw new IOException(command + " exited " + p.exitValue() + ": " + out);
        }
    }

    static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static void awaitPort(int port, boolean open) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (accepts(port) != open) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException("port " + port + " did not become " + (open ? "open" : "closed"));
            }
            Thread.sleep(100);
        }
    }
}
