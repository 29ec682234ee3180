package dev.sqlqueue.skiplocked;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Process and port helpers for the private database servers the fault cases start themselves
 * ({@link PrivatePostgres}, {@link PrivateMariaDb}). Nothing here touches a server the tests did not
 * start: processes are signalled by the id of the process the test started, never by name.
 */
final class LocalServer {
    private LocalServer() {
    }

    static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Runs a command to completion; fails with its output when it exits non-zero. */
    static String run(List<String> command, Path workDir) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (workDir != null) {
            pb.directory(workDir.toFile());
        }
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(command + " did not finish");
        }
        if (p.exitValue() != 0) {
            throw new IOException(command + " exited " + p.exitValue() + ": " + out);
        }
        return out;
    }

    /** Sends {@code signal} (for example QUIT, KILL) to the one process {@code p}, which this test started. */
    static void signal(Process p, String signal) throws IOException, InterruptedException {
        if (p.isAlive()) {
            run(List.of("kill", "-s", signal, Long.toString(p.pid())), null);
        }
    }

    /** A TCP port on 127.0.0.1 that nothing listens on at the moment of the call. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress("127.0.0.1", 0));
            return s.getLocalPort();
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

    /** Waits until {@code port} accepts connections; fails early when {@code server} exited. */
    static void awaitOpen(int port, Process server, Path log) throws IOException, InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!accepts(port)) {
            if (!server.isAlive()) {
                throw new IllegalStateException("the private server exited " + server.exitValue() + " before it listened on "
                        + port + ": " + tail(log));
            }
            if (System.nanoTime() > until) {
                throw new IllegalStateException("port " + port + " did not open: " + tail(log));
            }
            Thread.sleep(100);
        }
    }

    static String tail(Path log) {
        try {
            String s = Files.readString(log);
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind is harmless
        }
    }
}
