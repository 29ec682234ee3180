package dev.sqlqueue.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueAdmin;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard served by the JDK's own HTTP server ({@code com.sun.net.httpserver}) at the root path,
 * on daemon threads: 4 kept, up to {@link #MAX_THREADS} while that many requests are read or answered
 * at once (a further connection is closed, not queued).
 *
 * <p>Binding rules: a loopback address (127.0.0.1, ::1, localhost) may go without a token; any other
 * address needs one ({@link InvalidInputException} {@code dashboard.token-required} otherwise). Without
 * a token the server also refuses (403) a request whose {@code Host} header is neither a loopback name
 * ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}) nor the address it is bound to (such as
 * {@code 127.0.0.2}), so a web page whose DNS name was rebound to 127.0.0.1 cannot read or drive it. Bodies over 64 KB are
 * refused (413).
 *
 * <p>Slow clients: a connection that has not sent its whole request (request line, headers and body)
 * {@link #REQUEST_TIMEOUT_SECONDS} seconds after it was opened (or, kept alive, after its previous
 * request) is closed, so half-sent requests hold a thread for a bounded time, and other clients get
 * threads of their own meanwhile (a request queued behind them would wait out its own limit). The JDK
 * server does this when the system property {@code sun.net.httpserver.maxReqTime} (seconds) is set
 * before its first server in the JVM is created: this class sets it to {@link #REQUEST_TIMEOUT_SECONDS}
 * when it is loaded, unless it is set already (then that value applies). The JDK checks every second, so a slow client is dropped
 * within about {@code REQUEST_TIMEOUT_SECONDS + 1} seconds. With a token, a POST without it gets its 401
 * before its body is read.
 */
public final class DashboardServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardServer.class);
    /** Seconds a client has to send its whole request (line, headers and body) before it is dropped. */
    public static final int REQUEST_TIMEOUT_SECONDS = 10;
    /** Threads kept while idle. */
    static final int CORE_THREADS = 4;
    /**
     * Requests served at once; each thread serves one connection from its first byte to its response. A
     * connection beyond this many is closed at once (not queued).
     */
    public static final int MAX_THREADS = 100;
    private static final int MAX_BODY = 64 * 1024;
    private static final List<String> LOOPBACK_HOSTS = List.of("localhost", "127.0.0.1", "[::1]");
    /** The JDK server's limit on reading one request, in seconds; read once, when its first server is created. */
    static final String MAX_REQ_TIME_PROPERTY = "sun.net.httpserver.maxReqTime";

    static {
        if (System.getProperty(MAX_REQ_TIME_PROPERTY) == null) {
            System.setProperty(MAX_REQ_TIME_PROPERTY, Integer.toString(REQUEST_TIMEOUT_SECONDS));
        }
    }

    private final HttpServer server;
    private final DashboardApp app;
    private final ExecutorService executor;
    private final boolean checkHost;
    private final String token;
    /** The Host names answered without a token, lower case, without port. */
    private final List<String> hosts;

    private DashboardServer(HttpServer server, DashboardApp app, ExecutorService executor, String token, InetAddress bound) {
        this.server = server;
        this.app = app;
        this.executor = executor;
        this.checkHost = token == null;
        this.token = token;
        String literal = bound instanceof Inet6Address ? "[" + bound.getHostAddress() + "]" : bound.getHostAddress();
        List<String> h = new ArrayList<>(LOOPBACK_HOSTS);
        if (!h.contains(literal.toLowerCase(Locale.ROOT))) {
            h.add(literal.toLowerCase(Locale.ROOT));
        }
        this.hosts = List.copyOf(h);
    }

    /**
     * Start serving {@code admin} on {@code bind:port} (port 0: any free port, see {@link #port()}).
     *
     * @param admin the queues to show and act on
     * @param options what the dashboard shows and allows
     * @param label shown in the page's title (for example the backend and server); null shows "sqlqueue"
     * @param bind the address to listen on: a host name or IP literal; a non-loopback one needs a token
     * @param port the TCP port, 0..65535 (0: any free port)
     * @return the running server; {@link #close()} stops it
     * @throws InvalidInputException {@code dashboard.token-required} for a non-loopback bind without a
     *         token, {@code dashboard.bind} for an unknown address, {@code dashboard.port.range} unless 0..65535
     * @throws UncheckedIOException when the port cannot be bound
     */
    public static DashboardServer start(QueueAdmin admin, DashboardOptions options, String label, String bind, int port) {
        InetAddress address = checkBind(options, bind, port);
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(address, port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + bind + ":" + port + ": " + e.getMessage(), e);
        }
        AtomicInteger n = new AtomicInteger();
        // not a fixed pool with a queue: a request queued behind slow clients would wait out its own time limit
        ExecutorService executor = new ThreadPoolExecutor(CORE_THREADS, MAX_THREADS, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "sqlqueue-dashboard-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        DashboardApp app = new DashboardApp(admin, options, label);
        DashboardServer s = new DashboardServer(server, app, executor, options.token(), address);
        server.createContext("/", s::exchange);
        server.setExecutor(executor);
        server.start();
        LOG.info("dashboard listening on {}:{}", bind, s.port());
        return s;
    }

    /**
     * Check the binding rules before anything is opened: the address resolves, the port is 0..65535 and
     * a non-loopback address comes with a token.
     *
     * @param options the options, of which only the token is read
     * @param bind the address to listen on: a host name or IP literal
     * @param port the TCP port, 0..65535
     * @return the address to bind
     * @throws InvalidInputException {@code dashboard.token-required}, {@code dashboard.bind} or {@code dashboard.port.range}
     */
    public static InetAddress checkBind(DashboardOptions options, String bind, int port) {
        if (port < 0 || port > 65535) {
            throw new InvalidInputException("dashboard.port.range", "port must be 0..65535, was " + port);
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(bind);
        } catch (UnknownHostException e) {
            throw new InvalidInputException("dashboard.bind", "unknown bind address '" + bind + "'");
        }
        if (!address.isLoopbackAddress() && options.token() == null) {
            throw new InvalidInputException("dashboard.token-required", "binding the dashboard to " + bind
                    + " (not a loopback address) requires a token (--token or SQLQUEUE_DASHBOARD_TOKEN)");
        }
        return address;
    }

    /** @return the TCP port listened on (the one chosen when started with port 0) */
    public int port() {
        return server.getAddress().getPort();
    }

    private void exchange(HttpExchange ex) throws IOException {
        try (ex) {
            DashboardResponse r = respond(ex);
            r.headers().forEach((k, v) -> ex.getResponseHeaders().add(k, v));
            ex.getResponseHeaders().set("Content-Type", r.contentType());
            boolean head = "HEAD".equals(ex.getRequestMethod());
            ex.sendResponseHeaders(r.status(), head || r.body().length == 0 ? -1 : r.body().length);
            if (!head && r.body().length > 0) {
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(r.body());
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("dashboard exchange failed: {}", e.toString());
        }
    }

    private DashboardResponse respond(HttpExchange ex) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        ex.getRequestHeaders().forEach((k, v) -> {
            if (!v.isEmpty()) {
                headers.put(k.toLowerCase(Locale.ROOT), v.get(0));
            }
        });
        if (checkHost && !allowedHost(headers.get("host"))) {
            return withSecurityHeaders(DashboardResponse.text(403, "403 Forbidden: without a token the dashboard answers "
                    + "only requests addressed to " + String.join(", ", hosts)));
        }
        URI uri = ex.getRequestURI();
        Map<String, String> form = Map.of();
        // without the token, a POST is refused (401, by the app) before its body is read
        if ("POST".equals(ex.getRequestMethod()) && (token == null || DashboardApp.authorized(headers, token))) {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readNBytes(MAX_BODY + 1);
            }
            if (body.length > MAX_BODY) {
                return withSecurityHeaders(DashboardResponse.error(413, "request body over 64 KB"));
            }
            String type = headers.getOrDefault("content-type", "");
            if (type.startsWith("application/x-www-form-urlencoded")) {
                try {
                    form = decode(new String(body, StandardCharsets.UTF_8));
                } catch (InvalidInputException e) {
                    return withSecurityHeaders(DashboardResponse.error(400, e.getMessage()));
                }
            }
        }
        // a malformed escape in the path or query never gets here: the JDK server answers 400 (java.net.URI)
        String path = uri.getRawPath() == null ? "/" : decodeComponent(uri.getRawPath().replace("+", "%2B"));
        return app.handle(new DashboardRequest(ex.getRequestMethod().toUpperCase(Locale.ROOT), "", path,
                decode(uri.getRawQuery()), form, headers));
    }

    private static DashboardResponse withSecurityHeaders(DashboardResponse r) {
        for (Map.Entry<String, String> h : DashboardApp.SECURITY_HEADERS.entrySet()) {
            r = r.withHeader(h.getKey(), h.getValue());
        }
        return r;
    }

    /** Whether the {@code Host} header names a loopback name or the bound address (any port). */
    private boolean allowedHost(String host) {
        if (host == null) {
            return false;
        }
        String h = host.toLowerCase(Locale.ROOT);
        int colon = h.lastIndexOf(':');
        if (colon > h.lastIndexOf(']')) {
            h = h.substring(0, colon);
        }
        return hosts.contains(h);
    }

    /**
     * The first value of each name of an {@code application/x-www-form-urlencoded} string.
     *
     * @throws InvalidInputException {@code dashboard.percent-encoding} for a {@code %} not followed by two
     *         hex digits, or escapes that are not UTF-8
     */
    static Map<String, String> decode(String raw) {
        Map<String, String> m = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return m;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = decodeComponent(eq < 0 ? pair : pair.substring(0, eq));
            String v = eq < 0 ? "" : decodeComponent(pair.substring(eq + 1));
            m.putIfAbsent(k, v);
        }
        return m;
    }

    /** {@code s} URL-decoded ({@code +} is a space). @throws InvalidInputException {@code dashboard.percent-encoding} */
    private static String decodeComponent(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException("dashboard.percent-encoding", "malformed percent-encoding in the request "
                    + "(a '%' must be followed by two hex digits): '" + shortened(s) + "'");
        }
    }

    private static String shortened(String s) {
        return s.length() <= 100 ? s : s.substring(0, 100) + "...";
    }

    /** Stop listening (in-flight requests get up to 1 s), stop the sampler and the threads. */
    @Override
    public void close() {
        server.stop(1);
        app.close();
        executor.shutdown();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
