package dev.sqlqueue.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The JDK server's own rules, over raw HTTP on H2: the binding rule, the Host check, the security headers. */
class DashboardSecurityTest {
    private static final String TOKEN = "security-test-token-0123456789";
    private SqlQueue client;

    @BeforeEach
    void open() {
        client = SqlQueue.open(Databases.config("h2"));
        client.enqueue(QueueName.of("q"), Message.ofText("x"));
    }

    @AfterEach
    void close() {
        client.dropSchema();
        client.close();
    }

    @Test
    void anAddressOtherThanLoopbackNeedsAToken() {
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> DashboardServer.start(client, DashboardOptions.defaults(), "h2", "0.0.0.0", 0));
        assertTrue(e.getMessage().contains("requires a token"), e.getMessage());
        assertThrows(InvalidInputException.class, () -> DashboardOptions.defaults().withToken("short"));
    }

    @Test
    void withoutATokenOnlyLoopbackHostNamesAreAnswered() throws IOException {
        try (DashboardServer s = DashboardServer.start(client, DashboardOptions.defaults(), "h2", "127.0.0.1", 0)) {
            String rebound = get(s.port(), "attacker.example:" + s.port(), "/api/overview");
            assertTrue(rebound.startsWith("HTTP/1.1 403"), rebound);
            String local = get(s.port(), "localhost:" + s.port(), "/api/overview");
            assertTrue(local.startsWith("HTTP/1.1 200"), local);
            assertTrue(local.contains("\"name\":\"q\",\"paused\":false,\"ready\":1"), local);
            String lower = local.toLowerCase();
            assertTrue(lower.contains("content-security-policy: default-src 'none'; script-src 'self'"), local);
            assertTrue(lower.contains("x-frame-options: deny"), local);
        }
    }

    @Test
    void escapingOfJsonAndHtml() {
        String json = new Json().beginObject().member("a", "</script><b>\"&'\u2028").endObject().toString();
        assertEquals("{\"a\":\"\\u003c/script\\u003e\\u003cb\\u003e\\\"\\u0026\\u0027\\u2028\"}", json);
        assertEquals("&lt;b a=&quot;1&quot;&gt;&amp;&#39;", Html.escape("<b a=\"1\">&'"));
        assertEquals(new PayloadPreview("hex", "00 ff", false, 2), PayloadPreview.of(new byte[] {0, (byte) 0xff}, 500));
        assertEquals(new PayloadPreview("text", "héllo", true, 12), PayloadPreview.of("héllo world".getBytes(StandardCharsets.UTF_8), 5));
    }

    @Test
    void slowClientsAreDroppedAndCannotHoldTheServer() throws Exception {
        try (DashboardServer s = DashboardServer.start(client, DashboardOptions.defaults().withToken(TOKEN), "h2", "127.0.0.1", 0)) {
            List<Socket> slow = new ArrayList<>();
            try {
                // more half-sent requests than the server has threads: headers without their end, and a body cut short
                for (int i = 0; i < 3; i++) {
                    slow.add(send(s.port(), "GET / HTTP/1.1\r\nHost: x\r\n"));
                }
                for (int i = 0; i < 3; i++) {
                    slow.add(send(s.port(), "POST /api/requeue HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN
                            + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 60000\r\n\r\nqueue="));
                }
                Thread.sleep(500);
                long start = System.nanoTime();
                String ok = request(s.port(), "GET /api/overview HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN
                        + "\r\nConnection: close\r\n\r\n");
                assertTrue(ok.startsWith("HTTP/1.1 200"), ok);
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                assertTrue(seconds < 3L * DashboardServer.REQUEST_TIMEOUT_SECONDS, "answered after " + seconds + " s");
                for (Socket socket : slow) {
                    // dropped by the server: end of stream, or a reset, well before our own 60 s
                    socket.setSoTimeout(60_000);
                    try {
                        assertEquals(-1, socket.getInputStream().read());
                    } catch (java.net.SocketException reset) {
                        // also dropped
                    }
                }
            } finally {
                for (Socket socket : slow) {
                    socket.close();
                }
            }
            assertEquals(1, client.stats(QueueName.of("q")).ready(), "nothing changed");
        }
    }

    @Test
    void bidiAndOtherFormatCharactersArePreviewedAsHex() {
        for (String s : List.of("\u202eRTL override gnp.exe", "a\u202ab", "a\u2066b", "a\u2069b", "a\u200eb", "a\u200fb", "a\u061cb",
                "a\u200bb", "a\ufeffb", "a\u0085b")) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            assertEquals("hex", PayloadPreview.of(bytes, 500).kind(), s);
        }
        assertEquals("text", PayloadPreview.of("שלום world".getBytes(StandardCharsets.UTF_8), 500).kind());
    }

    @Test
    void theAuthorizationSchemeIsCaseInsensitive() throws IOException {
        try (DashboardServer s = DashboardServer.start(client, DashboardOptions.defaults().withToken(TOKEN), "h2", "127.0.0.1", 0)) {
            for (String scheme : List.of("Bearer", "bearer", "BEARER", "bEaReR")) {
                String r = request(s.port(), "GET /api/overview HTTP/1.1\r\nHost: localhost\r\nAuthorization: " + scheme + " " + TOKEN
                        + "\r\nConnection: close\r\n\r\n");
                assertTrue(r.startsWith("HTTP/1.1 200"), scheme + ": " + r);
            }
            String wrong = request(s.port(), "GET /api/overview HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic " + TOKEN
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(wrong.startsWith("HTTP/1.1 401"), wrong);
        }
    }

    @Test
    void malformedPercentEncodingIs400AndChangesNothing() throws IOException {
        try (DashboardServer s = DashboardServer.start(client, DashboardOptions.defaults().withToken(TOKEN), "h2", "127.0.0.1", 0)) {
            String body = "queue=q&id=%zz";
            String form = request(s.port(), "POST /api/requeue HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN
                    + "\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: " + body.length()
                    + "\r\nConnection: close\r\n\r\n" + body);
            assertTrue(form.startsWith("HTTP/1.1 400"), form);
            assertTrue(form.contains("percent-encoding"), form);
            String query = request(s.port(), "GET /api/dead?queue=%zz HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + TOKEN
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(query.startsWith("HTTP/1.1 400"), query);   // the JDK server's own (java.net.URI)
            assertEquals(1, client.stats(QueueName.of("q")).ready(), "nothing changed");
        }
    }

    @Test
    void aTokenIsLimitedToCharactersSafeInACookieAndAnAddress() {
        for (String bad : List.of("abcdefghijklmnop;Path=/x", "abcdefghijklmnop qrs", "abcdefghijklmnop%20", "abcdefghijklmnop\"q",
                "abcdefghijklmnop,x", "abcdefghijklmnopé")) {
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> DashboardOptions.defaults().withToken(bad), bad);
            assertTrue(e.getMessage().contains("dashboard.token.characters") || e.getMessage().contains("letters, digits"), e.getMessage());
        }
        assertEquals("Az09-._~Az09-._~", DashboardOptions.defaults().withToken("Az09-._~Az09-._~").token());
    }

    @Test
    void anotherLoopbackAddressIsAnsweredUnderItsOwnName() throws IOException {
        try (DashboardServer s = DashboardServer.start(client, DashboardOptions.defaults(), "h2", "127.0.0.2", 0)) {
            String r = request(s.port(), "127.0.0.2", "GET /api/overview HTTP/1.1\r\nHost: 127.0.0.2:" + s.port()
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(r.startsWith("HTTP/1.1 200"), r);
            String rebound = request(s.port(), "127.0.0.2", "GET /api/overview HTTP/1.1\r\nHost: attacker.example:" + s.port()
                    + "\r\nConnection: close\r\n\r\n");
            assertTrue(rebound.startsWith("HTTP/1.1 403"), rebound);
        }
    }

    private static Socket send(int port, String partial) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        socket.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return socket;
    }

    private static String request(int port, String raw) throws IOException {
        return request(port, "127.0.0.1", raw);
    }

    /** Send {@code raw} and read the answer, giving up after 60 s. */
    private static String request(int port, String address, String raw) throws IOException {
        try (Socket socket = new Socket(address, port)) {
            socket.setSoTimeout(60_000);
            socket.getOutputStream().write(raw.getBytes(StandardCharsets.UTF_8));
            socket.getOutputStream().flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String get(int port, String host, String path) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
