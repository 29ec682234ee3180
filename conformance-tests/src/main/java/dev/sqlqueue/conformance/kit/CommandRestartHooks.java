package dev.sqlqueue.conformance.kit;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * C17's stop and start, through two shell commands the user gives ({@code --restart-command} takes the
 * database down, {@code --start-command} brings it back). Each runs with {@code sh -c} ({@code cmd /c}
 * on Windows), its output goes to the console, and it must exit 0. Stop then waits until a connection is
 * refused (at most 60 s); start waits until one succeeds (at most 120 s).
 */
final class CommandRestartHooks {
    private final String stopCommand;
    private final String startCommand;
    private final String url;
    private final String user;
    private final String password;
    private final PrintStream console;

    CommandRestartHooks(String stopCommand, String startCommand, String url, String user, String password, PrintStream console) {
        this.stopCommand = stopCommand;
        this.startCommand = startCommand;
        this.url = url;
        this.user = user;
        this.password = password;
        this.console = console;
    }

    void stop() throws Exception {
        run(stopCommand);
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (reachable()) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException("the database still accepts connections 60 s after: " + stopCommand);
            }
            Thread.sleep(250);
        }
    }

    void start() throws Exception {
        run(startCommand);
        long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!reachable()) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException("the database accepts no connection 120 s after: " + startCommand);
            }
            Thread.sleep(250);
        }
    }

    private boolean reachable() {
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            return c.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }

    private void run(String command) throws Exception {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        List<String> argv = windows ? List.of("cmd", "/c", command) : List.of("sh", "-c", command);
        console.println("  [kit] running: " + command);
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getInputStream().transferTo(console);
        int rc = p.waitFor();
        if (rc != 0) {
            throw new IllegalStateException("'" + command + "' exited with " + rc);
        }
    }
}
