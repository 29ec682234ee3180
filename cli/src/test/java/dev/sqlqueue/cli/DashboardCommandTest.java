package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sqlqueue dashboard}: the binding rule, and a running dashboard (a separate JVM) stopped by SIGTERM. */
class DashboardCommandTest {
    private static final String TOKEN = "cli-test-token-0123456789";

    @TempDir
    Path dir;

    @Test
    void anAddressOtherThanLoopbackNeedsATokenAndOpensNothing() {
        Cli cli = new Cli(dir);
        Cli.Run r = cli.run("dashboard", "--bind", "0.0.0.0", "--port", "0");
        assertEquals(ExitCodes.USAGE, r.code(), r.toString());
        assertTrue(r.err().contains("dashboard.token-required"), r.toString());
        assertFalse(Files.exists(dir.resolve("db.mv.db")), "the database was not even opened");
    }

    @Test
    void aPortInUseIsOneClearLineNamingTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            Cli.Run r = new Cli(dir).run("dashboard", "--port", Integer.toString(port));
            assertEquals(ExitCodes.FAILURE, r.code(), r.toString());
            assertEquals(1, r.errLines().size(), r.toString());
            assertTrue(r.err().startsWith("sqlqueue: error: cannot listen on 127.0.0.1:" + port + ": "), r.toString());
            assertFalse(r.err().contains("unexpected"), r.toString());
            assertFalse(r.err().contains("Exception"), r.toString());
        }
    }

    @Test
    void aTokenWithCharactersUnsafeInACookieIsRefusedBeforeAnythingOpens() {
        Cli.Run r = new Cli(dir).run("dashboard", "--port", "0", "--token", "abcdefghijklmnop;Path=/x");
        assertEquals(ExitCodes.USAGE, r.code(), r.toString());
        assertTrue(r.err().contains("dashboard.token.characters"), r.toString());
        assertFalse(r.err().contains(";Path"), "the token is not echoed: " + r);
        assertFalse(Files.exists(dir.resolve("db.mv.db")), "the database was not even opened");
    }

    @Test
    void servesTheQueuesUntilSigterm() throws Exception {
        Cli cli = new Cli(dir);
        try (SqlQueue q = cli.client()) {
            q.enqueue(QueueName.of("jobs"), Message.ofText("one"));
        }
        Path out = dir.resolve("stdout");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "dashboard", "--port", "0", "--read-only", "--url", cli.url());
        pb.environment().put("SQLQUEUE_DASHBOARD_TOKEN", TOKEN);
        pb.redirectOutput(out.toFile());
        pb.redirectError(dir.resolve("stderr").toFile());
        Process p = pb.start();
        try {
            Pattern url = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/\\?token=" + TOKEN + " \\(read-only\\)");
            Matcher m = url.matcher("");
            boolean found = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && p.isAlive()) {
                m = url.matcher(Files.exists(out) ? Files.readString(out) : "");
                if (m.find()) {
                    found = true;
                    break;
                }
                Thread.sleep(50);
            }
            assertTrue(found, () -> "no address printed; stderr: " + read(dir.resolve("stderr")));
            String base = "http://127.0.0.1:" + m.group(1) + "/";
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> ok = http.send(HttpRequest.newBuilder(URI.create(base + "api/overview"))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ok.statusCode());
            assertTrue(ok.body().contains("\"name\":\"jobs\",\"paused\":false,\"ready\":1"), ok.body());
            assertTrue(ok.body().contains("\"readOnly\":true"), ok.body());
            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(URI.create(base + "api/overview")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(401, refused.statusCode());

            Process kill = new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).inheritIO().start();
            assertEquals(0, kill.waitFor());
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "sqlqueue dashboard did not stop");
            assertEquals(143, p.exitValue(), () -> read(dir.resolve("stderr")));
        } finally {
            p.destroyForcibly();
        }
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
