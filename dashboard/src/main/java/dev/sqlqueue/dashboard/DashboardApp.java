package dev.sqlqueue.dashboard;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.DeadLetterSummary;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.MessageState;
import dev.sqlqueue.MessageSummary;
import dev.sqlqueue.QueueAdmin;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueueException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard itself, independent of any HTTP server: {@link #handle} turns one request into one
 * response. {@link DashboardServer} serves it with the JDK's HTTP server; the Spring Boot starter mounts
 * it as a servlet. It reaches the queues through {@link QueueAdmin} only.
 *
 * <p>Routes (below the mount point): {@code GET /} the page; {@code GET /static/...} its script, styles
 * and uPlot; {@code GET /api/overview}, {@code /api/series?queue=}, {@code /api/dead?queue=},
 * {@code /api/history?queue=[&id=]}, {@code /api/messages?queue=&state=ready|delayed|in-flight[&after=ID][&limit=N]}
 * (a page of messages by id, payload previews only), {@code /api/message?queue=&id=} (one message: on its queue, or
 * its dead letter, and its history rows) JSON; {@code POST /api/requeue} and {@code POST /api/delete-dead} (form
 * {@code queue}, {@code id}), {@code POST /api/requeue-all}, {@code POST /api/purge-dead}, {@code POST /api/pause} and
 * {@code POST /api/resume} (form {@code queue}). A queue that does not exist answers 404 naming the rule
 * {@code queue.exists}.
 *
 * <p>Security: with a token, a request without it gets 401 and changes nothing; every action must be a
 * POST carrying this instance's CSRF token in the header {@code X-CSRF-Token} (else 403), and is refused
 * (403) when read-only. Everything the page shows is inserted as text, never as markup, and every
 * response carries a strict Content-Security-Policy. Thread-safe.
 */
public final class DashboardApp implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DashboardApp.class);
    /** Name of the cookie that carries the token after {@code ?token=} was opened once. */
    public static final String TOKEN_COOKIE = "sqlqueue_dashboard_token";
    /** Header that carries the CSRF token of a POST. */
    public static final String CSRF_HEADER = "X-CSRF-Token";
    /** Sent with every response. */
    public static final Map<String, String> SECURITY_HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                    + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
            "X-Content-Type-Options", "nosniff",
            "X-Frame-Options", "DENY",
            "Referrer-Policy", "no-referrer",
            "Cache-Control", "no-store");
    /** The rule named when a request names a queue that does not exist (as the CLI names it). */
    public static final String QUEUE_EXISTS_RULE = "queue.exists";
    /** The changes a POST may ask for. */
    static final List<String> ACTIONS = List.of("/api/requeue", "/api/requeue-all", "/api/purge-dead", "/api/delete-dead",
            "/api/pause", "/api/resume");
    /** History rows searched for an id. */
    static final int HISTORY_SEARCH_ROWS = 10_000;

    private final QueueAdmin admin;
    private final DashboardOptions options;
    private final String label;
    private final String csrf;
    private final ChartSampler sampler;
    private final String pageTemplate;
    private final Map<String, Resource> statics = new LinkedHashMap<>();

    private record Resource(String contentType, byte[] bytes) {
    }

    /**
     * A dashboard over {@code admin}; starts the chart sampler (one daemon thread). Close it to stop it.
     *
     * @param admin the queues (usually a {@code SqlQueue}); not closed by {@link #close()}
     * @param options what to show and allow
     * @param label shown in the page's title (for example the backend and server), may be null
     */
    public DashboardApp(QueueAdmin admin, DashboardOptions options, String label) {
        this.admin = admin;
        this.options = options;
        this.label = label == null ? "sqlqueue" : label;
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        this.csrf = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        this.pageTemplate = new String(read("dev/sqlqueue/dashboard/static/index.html"), StandardCharsets.UTF_8);
        statics.put("/static/app.js", new Resource("text/javascript; charset=utf-8", read("dev/sqlqueue/dashboard/static/app.js")));
        statics.put("/static/app.css", new Resource("text/css; charset=utf-8", read("dev/sqlqueue/dashboard/static/app.css")));
        String uplot = "META-INF/resources/webjars/uplot/" + uplotVersion() + "/";
        statics.put("/static/uPlot.iife.min.js", new Resource("text/javascript; charset=utf-8", read(uplot + "dist/uPlot.iife.min.js")));
        statics.put("/static/uPlot.min.css", new Resource("text/css; charset=utf-8", read(uplot + "dist/uPlot.min.css")));
        statics.put("/static/uPlot-LICENSE.txt", new Resource("text/plain; charset=utf-8", read(uplot + "LICENSE")));
        this.sampler = new ChartSampler(admin, options.sampleInterval());
        sampler.start();
    }

    /** @return the options this dashboard was created with (never null) */
    public DashboardOptions options() {
        return options;
    }

    /** The version of the uPlot WebJar on the class path. */
    static String uplotVersion() {
        Properties p = new Properties();
        try (InputStream in = DashboardApp.class.getClassLoader()
                .getResourceAsStream("META-INF/maven/org.webjars.npm/uplot/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("the uPlot WebJar (org.webjars.npm:uplot) is not on the class path");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty("version");
    }

    private static byte[] read(String resource) {
        try (InputStream in = DashboardApp.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Answer one request (never throws for bad input: that is a 4xx response).
     *
     * @param req the request as received by whichever server hosts the dashboard
     * @return the response to send: the page, a static file, JSON data or an error status (never null)
     */
    public DashboardResponse handle(DashboardRequest req) {
        DashboardResponse r;
        try {
            r = route(req);
        } catch (UnknownQueue e) {
            r = DashboardResponse.json(404, new Json().beginObject().member("error", e.getMessage())
                    .member("rule", QUEUE_EXISTS_RULE).endObject().toString());
        } catch (InvalidInputException e) {
            r = DashboardResponse.json(400, new Json().beginObject().member("error", e.getMessage())
                    .member("rule", e.rule()).endObject().toString());
        } catch (SqlQueueException e) {
            LOG.warn("dashboard request {} {} failed: {}", req.method(), req.path(), e.toString());
            r = DashboardResponse.error(500, e.getMessage());
        }
        for (Map.Entry<String, String> h : SECURITY_HEADERS.entrySet()) {
            r = r.withHeader(h.getKey(), h.getValue());
        }
        return r;
    }

    private DashboardResponse route(DashboardRequest req) {
        String token = options.token();
        if (token != null) {
            String fromQuery = req.query().get("token");
            if ("GET".equals(req.method()) && fromQuery != null && equal(fromQuery, token)) {
                // remember it in a cookie the page's scripts cannot read, and drop it from the address bar
                return DashboardResponse.text(303, "see " + req.mount() + "/")
                        .withHeader("Location", req.mount() + "/")
                        .withHeader("Set-Cookie", TOKEN_COOKIE + "=" + token + "; Path=" + (req.mount().isEmpty() ? "/" : req.mount())
                                + "; HttpOnly; SameSite=Strict");
            }
            if (!authorized(req, token)) {
                return DashboardResponse.text(401, "401 Unauthorized: this sqlqueue dashboard needs its token. Open the "
                                + "address printed at its start (with ?token=...) or send 'Authorization: Bearer <token>'.")
                        .withHeader("WWW-Authenticate", "Bearer realm=\"sqlqueue dashboard\"");
            }
        }
        String path = req.path().isEmpty() ? "/" : req.path();
        return switch (req.method()) {
            case "GET", "HEAD" -> get(req, path);
            case "POST" -> post(req, path);
            default -> DashboardResponse.error(405, "method not allowed: " + req.method()).withHeader("Allow", "GET, POST");
        };
    }

    private static boolean authorized(DashboardRequest req, String token) {
        return authorized(req.headers(), token);
    }

    /**
     * Whether {@code headers} (by lower-case name) carry {@code token}, as a bearer token (the scheme in any
     * case, RFC 7235 section 2.1) or in the cookie.
     */
    static boolean authorized(Map<String, String> headers, String token) {
        String auth = headers.get("authorization");
        if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) && equal(auth.substring(7).trim(), token)) {
            return true;
        }
        String cookies = headers.get("cookie");
        if (cookies != null) {
            for (String c : cookies.split(";")) {
                String kv = c.trim();
                if (kv.startsWith(TOKEN_COOKIE + "=") && equal(kv.substring(TOKEN_COOKIE.length() + 1), token)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean equal(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private DashboardResponse get(DashboardRequest req, String path) {
        if (path.equals("/") || path.equals("/index.html")) {
            return page();
        }
        Resource res = statics.get(path);
        if (res != null) {
            return new DashboardResponse(200, res.contentType(), res.bytes(), Map.of());
        }
        return switch (path) {
            case "/api/overview" -> DashboardResponse.json(200, overview());
            case "/api/series" -> series(existing(req.query()), req.query().getOrDefault("range", "1h"));
            case "/api/dead" -> DashboardResponse.json(200, deadLetters(existing(req.query())));
            case "/api/history" -> DashboardResponse.json(200, history(existing(req.query()), req.query().get("id")));
            case "/api/messages" -> messages(existing(req.query()), req.query());
            case "/api/message" -> message(existing(req.query()), id(req.query().get("id")));
            default -> ACTIONS.contains(path)
                    ? DashboardResponse.error(405, "changes need a POST").withHeader("Allow", "POST")
                    : DashboardResponse.error(404, "not found");
        };
    }

    private DashboardResponse post(DashboardRequest req, String path) {
        if (!ACTIONS.contains(path)) {
            return DashboardResponse.error(404, "not found");
        }
        if (options.readOnly()) {
            return DashboardResponse.error(403, "this dashboard is read-only");
        }
        String sent = req.header(CSRF_HEADER);
        if (sent == null || !equal(sent, csrf)) {
            return DashboardResponse.error(403, "missing or wrong CSRF token (header " + CSRF_HEADER + ")");
        }
        QueueName q = existing(req.form());
        long n;
        String action;
        switch (path) {
            case "/api/pause", "/api/resume" -> {
                boolean pause = path.equals("/api/pause");
                Capabilities caps = capabilities();
                if (caps != null && !caps.has(Capability.PAUSE)) {
                    return DashboardResponse.error(409, caps.whyAbsent(Capability.PAUSE));
                }
                boolean changed = pause ? admin.pause(q) : admin.resume(q);
                LOG.info("dashboard: {} '{}'{}", pause ? "paused" : "resumed", q.value(), changed ? "" : " (it already was)");
                return DashboardResponse.json(200, new Json().beginObject().member("action", pause ? "paused" : "resumed")
                        .member("changed", changed).member("message", (pause ? "paused " : "resumed ") + q.value()
                                + (changed ? "" : " (it already was)")).endObject().toString());
            }
            case "/api/delete-dead" -> {
                long id = id(req.form().get("id"));
                n = admin.deleteDeadLetters(q, List.of(id));
                if (n == 0) {
                    return DashboardResponse.error(404, "message " + id + " is not a dead letter of '" + q.value() + "'");
                }
                action = "deleted";
            }
            case "/api/requeue" -> {
                long id = id(req.form().get("id"));
                n = admin.requeueDeadLetters(q, List.of(id));
                if (n == 0) {
                    return DashboardResponse.error(404, "message " + id + " is not a dead letter of '" + q.value() + "'");
                }
                action = "requeued";
            }
            case "/api/requeue-all" -> {
                n = admin.requeueDeadLetters(q, List.of());
                action = "requeued";
            }
            default -> {
                n = admin.purgeDeadLetters(q);
                action = "purged";
            }
        }
        LOG.info("dashboard: {} {} dead letter(s) of '{}'", action, n, q.value());
        sampler.sampleSoon();
        return DashboardResponse.json(200, new Json().beginObject().member("action", action).member("count", n)
                .member("message", action + " " + n + " dead letter(s)").endObject().toString());
    }

    /** A request named a queue that does not exist: 404 with rule {@value #QUEUE_EXISTS_RULE}. */
    static final class UnknownQueue extends RuntimeException {
        UnknownQueue(String message) {
            super(message, null, false, false);
        }
    }

    /** The queue the parameters name, which must exist. */
    private QueueName existing(Map<String, String> params) {
        QueueName q = queue(params);
        if (!admin.queues().contains(q)) {
            throw new UnknownQueue("no queue '" + q.value() + "' [rule: " + QUEUE_EXISTS_RULE + "]");
        }
        return q;
    }

    /** The backend's capabilities when the dashboard runs on a client that tells them, else null. */
    private Capabilities capabilities() {
        return admin instanceof dev.sqlqueue.QueueClient c ? c.capabilities() : null;
    }

    private static QueueName queue(Map<String, String> params) {
        String q = params.get("queue");
        if (q == null) {
            throw new InvalidInputException("dashboard.queue.missing", "parameter 'queue' is required");
        }
        return QueueName.of(q);
    }

    private static long id(String s) {
        try {
            return Long.parseLong(s == null ? "" : s.trim());
        } catch (NumberFormatException e) {
            throw new InvalidInputException("dashboard.id.format", "a message id is a 64-bit integer, was '" + s + "'");
        }
    }

    private DashboardResponse page() {
        String html = pageTemplate
                .replace("{{label}}", Html.escape(label))
                .replace("{{csrf}}", Html.escape(csrf))
                .replace("{{readOnly}}", Boolean.toString(options.readOnly()))
                .replace("{{payload}}", Boolean.toString(options.payloadPreview()))
                .replace("{{refreshMs}}", Long.toString(options.refresh().toMillis()));
        return new DashboardResponse(200, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8), Map.of());
    }

    private String overview() {
        Json j = new Json().beginObject().member("label", label).member("readOnly", options.readOnly())
                .member("payloadPreview", options.payloadPreview());
        Capabilities caps = capabilities();
        boolean pausing = caps == null || caps.has(Capability.PAUSE);
        j.member("pause", pausing);
        if (!pausing) {
            j.member("pauseAbsent", caps.whyAbsent(Capability.PAUSE));
        }
        j.name("queues").beginArray();
        for (QueueName q : admin.queues()) {
            QueueStats s;
            try {
                s = admin.stats(q);
            } catch (dev.sqlqueue.InvalidInputException e) {
                if (!"queue.exists".equals(e.rule())) {
                    throw e;
                }
                continue; // dropped since it was listed
            }
            j.beginObject().member("name", q.value());
            if (pausing) {
                j.member("paused", admin.isPaused(q));
            }
            j.member("ready", s.ready()).member("delayed", s.delayed())
                    .member("inFlight", s.inFlight()).member("dead", s.dead())
                    .member("oldestReadyAgeMillis", s.oldestReadyAgeMillis()).member("processed", s.processed())
                    .endObject();
        }
        return j.endArray().endObject().toString();
    }

    private String deadLetters(QueueName q) {
        // summaries: the first bytes of each payload only (issue 31: 100 whole payloads per refresh before)
        List<DeadLetterSummary> list = admin.deadLetterSummaries(q, options.listLimit());
        Json j = new Json().beginObject().member("queue", q.value()).member("limit", options.listLimit());
        j.name("deadLetters").beginArray();
        for (DeadLetterSummary d : list) {
            j.beginObject().member("id", d.messageId()).member("attempts", d.attempts()).member("reason", d.reason())
                    .member("enqueuedAt", d.enqueuedAt()).member("deadAt", d.deadAt()).member("group", d.group())
                    .member("headers", d.headers());
            if (d.headers().isEmpty() && d.rawHeaders() != null && !d.rawHeaders().isEmpty()) {
                j.member("rawHeaders", d.rawHeaders());
            }
            if (options.payloadPreview()) {
                PayloadPreview p = PayloadPreview.of(d.payloadPreview(), d.payloadBytes(), options.previewChars());
                j.name("payload").beginObject().member("kind", p.kind()).member("preview", p.preview())
                        .member("truncated", p.truncated()).member("bytes", p.bytes()).endObject();
            } else {
                j.member("payloadBytes", d.payloadBytes());
            }
            j.endObject();
        }
        return j.endArray().endObject().toString();
    }

    private String history(QueueName q, String idParam) {
        boolean search = idParam != null && !idParam.isBlank();
        List<HistoryEntry> rows;
        if (search) {
            long id = id(idParam);
            rows = admin.history(q, HISTORY_SEARCH_ROWS).stream().filter(h -> h.messageId() == id).toList();
        } else {
            rows = admin.history(q, options.listLimit());
        }
        Json j = new Json().beginObject().member("queue", q.value()).member("search", search)
                .member("searchedRows", search ? HISTORY_SEARCH_ROWS : options.listLimit());
        j.name("history").beginArray();
        for (HistoryEntry h : rows) {
            j.beginObject().member("id", h.messageId()).member("enqueuedAt", h.enqueuedAt())
                    .member("startedAt", h.startedAt()).member("finishedAt", h.finishedAt())
                    .member("durationMillis", h.durationMillis()).member("attempts", h.attempts())
                    .member("outcome", h.outcome()).member("detail", h.detail()).endObject();
        }
        return j.endArray().endObject().toString();
    }

    /** The chart ranges read from the history table, with their bucket widths. */
    static final Map<String, java.time.Duration[]> RANGES = Map.of(
            "24h", new java.time.Duration[] {java.time.Duration.ofHours(24), java.time.Duration.ofMinutes(5)},
            "7d", new java.time.Duration[] {java.time.Duration.ofDays(7), java.time.Duration.ofHours(1)});
    /** How long a long range's series is reused before the history table is read again. */
    static final long RANGE_CACHE_MS = 30_000;
    private final Map<String, Object[]> rangeCache = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The charts' data: the last hour from the in-process sampler ({@code 1h}), or 24 h in 5-minute buckets and 7 days in
     * 1-hour buckets counted by the history table ({@link QueueAdmin#historyBuckets}, read at most every 30 s per queue
     * and range), with the mean enqueue-to-ack latency instead of percentiles.
     */
    private DashboardResponse series(QueueName q, String range) {
        if (range.equals("1h")) {
            return DashboardResponse.json(200, sampler.seriesJson(q));
        }
        java.time.Duration[] r = RANGES.get(range);
        if (r == null) {
            throw new InvalidInputException("dashboard.range", "range is 1h, 24h or 7d, was '" + range + "'");
        }
        String key = q.value() + " " + range;
        Object[] cached = rangeCache.get(key);
        long nowMs = System.currentTimeMillis();
        if (cached != null && nowMs - (Long) cached[0] < RANGE_CACHE_MS) {
            return DashboardResponse.json(200, (String) cached[1]);
        }
        long width = r[1].toMillis();
        long last = Math.floorDiv(nowMs, width) * width;
        long first = last - (r[0].toMillis() / width - 1) * width;
        Map<Long, dev.sqlqueue.HistoryBucket> byStart = new java.util.HashMap<>();
        String unavailable = null;
        try {
            for (dev.sqlqueue.HistoryBucket b : admin.historyBuckets(q, java.time.Instant.ofEpochMilli(first), r[1])) {
                byStart.put(b.start().toEpochMilli(), b);
            }
        } catch (dev.sqlqueue.UnsupportedCapabilityException e) {
            unavailable = e.getMessage();
        }
        Json j = new Json().beginObject().member("range", range).member("bucketSeconds", width / 1000)
                .member("sampled", unavailable == null);
        if (unavailable != null) {
            j.member("unavailable", unavailable);
        }
        long total = 0;
        List<String> names = List.of("t", "acked", "dead", "mean");
        for (String name : names) {
            j.name(name).beginArray();
            for (long t = first; t <= last; t += width) {
                dev.sqlqueue.HistoryBucket b = byStart.get(t);
                switch (name) {
                    case "t" -> j.value(t / 1000);
                    case "acked" -> j.value(b == null ? 0.0 : b.acked() * 1000.0 / width);
                    case "dead" -> j.value(b == null ? 0.0 : b.deadLettered() * 1000.0 / width);
                    default -> {
                        if (b == null || b.meanAckLatencyMillis() == null) {
                            j.value((String) null);
                        } else {
                            j.value(b.meanAckLatencyMillis().doubleValue());
                        }
                    }
                }
                if (name.equals("t") && b != null) {
                    total += b.acked() + b.deadLettered();
                }
            }
            j.endArray();
        }
        String json = j.member("processed", total).endObject().toString();
        rangeCache.put(key, new Object[] {nowMs, json});
        return DashboardResponse.json(200, json);
    }

    /** A page of the queue's messages in one state; 409 with the reason where the backend cannot list them. */
    private DashboardResponse messages(QueueName q, Map<String, String> query) {
        Capabilities caps = capabilities();
        if (caps != null && !caps.has(Capability.BROWSE)) {
            return DashboardResponse.error(409, caps.whyAbsent(Capability.BROWSE));
        }
        String s = query.getOrDefault("state", "ready");
        MessageState state = switch (s) {
            case "ready" -> MessageState.READY;
            case "delayed" -> MessageState.DELAYED;
            case "in-flight" -> MessageState.IN_FLIGHT;
            default -> throw new InvalidInputException("dashboard.state", "state is ready, delayed or in-flight, was '" + s + "'");
        };
        long after = query.containsKey("after") ? id(query.get("after")) : 0;
        int limit = query.containsKey("limit") ? (int) Math.max(1, Math.min(options.listLimit(), id(query.get("limit"))))
                : Math.min(20, options.listLimit());
        List<MessageSummary> page = admin.messages(q, state, after, limit);
        Json j = new Json().beginObject().member("queue", q.value()).member("state", s).member("after", after)
                .member("limit", limit);
        j.name("messages").beginArray();
        for (MessageSummary m : page) {
            message(j, m);
        }
        j.endArray();
        j.name("next");
        if (page.size() == limit) {
            j.value(page.get(page.size() - 1).messageId());
        } else {
            j.value((String) null);
        }
        return DashboardResponse.json(200, j.endObject().toString());
    }

    private void message(Json j, MessageSummary m) {
        j.beginObject().member("id", m.messageId()).member("state", m.state().name().toLowerCase(java.util.Locale.ROOT)
                        .replace('_', '-')).member("priority", m.priority()).member("attempts", m.attempts())
                .member("enqueuedAt", m.enqueuedAt()).member("visibleAt", m.visibleAt()).member("millisLeft", m.millisLeft())
                .member("readAt", m.readAt())
                // a 64-bit token does not fit a JavaScript number: sent as text
                .member("leaseToken", m.leaseToken() == null ? null : m.leaseToken().toString())
                .member("claimedAt", m.claimedAt()).member("group", m.group()).member("lastError", m.lastError())
                .member("headers", m.headers());
        if (m.headers().isEmpty() && m.rawHeaders() != null && !m.rawHeaders().isEmpty()) {
            j.member("rawHeaders", m.rawHeaders());
        }
        payload(j, m.payloadPreview(), m.payloadBytes());
        j.endObject();
    }

    private void payload(Json j, byte[] preview, long bytes) {
        if (options.payloadPreview()) {
            PayloadPreview p = PayloadPreview.of(preview, bytes, options.previewChars());
            j.name("payload").beginObject().member("kind", p.kind()).member("preview", p.preview())
                    .member("truncated", p.truncated()).member("bytes", p.bytes()).endObject();
        } else {
            j.member("payloadBytes", bytes);
        }
    }

    /** One message: on its queue (where the backend can browse), else its dead letter; and its history rows. */
    private DashboardResponse message(QueueName q, long id) {
        Capabilities caps = capabilities();
        boolean browse = caps == null || caps.has(Capability.BROWSE);
        java.util.Optional<MessageSummary> onQueue = browse ? admin.message(q, id) : java.util.Optional.empty();
        List<DeadLetterSummary> dead = onQueue.isPresent() ? List.of() : admin.deadLetterSummaries(q, List.of(id));
        List<HistoryEntry> rows = admin.history(q, HISTORY_SEARCH_ROWS).stream().filter(h -> h.messageId() == id).toList();
        if (onQueue.isEmpty() && dead.isEmpty() && rows.isEmpty()) {
            return DashboardResponse.error(404, "no message " + id + " on queue '" + q.value() + "', among its dead letters"
                    + " or in its newest " + HISTORY_SEARCH_ROWS + " history rows");
        }
        Json j = new Json().beginObject().member("queue", q.value()).member("id", id)
                .member("where", onQueue.isPresent() ? "queue" : !dead.isEmpty() ? "dead" : "history")
                .member("browse", browse);
        if (onQueue.isPresent()) {
            j.name("message");
            message(j, onQueue.get());
        }
        if (!dead.isEmpty()) {
            DeadLetterSummary d = dead.get(0);
            j.name("dead").beginObject().member("id", d.messageId()).member("attempts", d.attempts()).member("reason", d.reason())
                    .member("enqueuedAt", d.enqueuedAt()).member("deadAt", d.deadAt()).member("group", d.group())
                    .member("headers", d.headers());
            payload(j, d.payloadPreview(), d.payloadBytes());
            j.endObject();
        }
        j.name("history").beginArray();
        for (HistoryEntry h : rows) {
            j.beginObject().member("id", h.messageId()).member("enqueuedAt", h.enqueuedAt())
                    .member("startedAt", h.startedAt()).member("finishedAt", h.finishedAt())
                    .member("durationMillis", h.durationMillis()).member("attempts", h.attempts())
                    .member("outcome", h.outcome()).member("detail", h.detail()).endObject();
        }
        return DashboardResponse.json(200, j.endArray().endObject().toString());
    }

    /** Stops the chart sampler; the queue client stays open (it belongs to the caller). */
    @Override
    public void close() {
        sampler.close();
    }
}
