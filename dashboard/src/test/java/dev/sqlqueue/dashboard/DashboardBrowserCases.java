package dev.sqlqueue.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Capabilities;
import dev.sqlqueue.Capability;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetterSummary;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.MessageState;
import dev.sqlqueue.MessageSummary;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.runtime.Outcome;
import dev.sqlqueue.runtime.WorkerOptions;
import dev.sqlqueue.runtime.WorkerPool;
import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.ForwardingQueueBackend;
import java.util.EnumSet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real browser (Debian's Chromium through chromedriver) on a real database: the
 * numbers shown against {@code stats()}, escaping of payloads, headers and reasons, the charts, a dead
 * letter requeued through the page and then processed, the confirmation, the token and read-only mode.
 * One browser and one dashboard per class; the workload is {@link Workload}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class DashboardBrowserCases {
    static final String TOKEN = "test-token-0123456789abcdef";
    private static final Duration WAIT = Duration.ofSeconds(15);

    QueueConfig config;
    SqlQueue client;
    Workload workload;
    DashboardServer server;
    ChromeDriver driver;
    String base;

    abstract String database();

    /** Where screenshots go (null: none), for docs/dashboard.md. */
    Path screenshots() {
        return null;
    }

    @BeforeAll
    void start() throws IOException {
        config = Databases.config(database());
        client = SqlQueue.open(config);
        workload = Workload.load(client);
        server = DashboardServer.start(client, DashboardOptions.defaults().withToken(TOKEN)
                        .withRefresh(Duration.ofSeconds(1)).withSampleInterval(Duration.ofMillis(200)),
                database(), "127.0.0.1", 0);
        base = "http://127.0.0.1:" + server.port() + "/";
        driver = Browser.start();
    }

    @AfterAll
    void stop() {
        if (driver != null) {
            driver.quit();
        }
        if (server != null) {
            server.close();
        }
        if (client != null) {
            try {
                client.dropSchema();
            } finally {
                client.close();
            }
        }
    }

    private void login() {
        driver.get(base + "?token=" + TOKEN);
        waitFor(() -> !driver.findElements(By.cssSelector("#queues tbody tr")).isEmpty());
    }

    private void waitFor(Supplier<Boolean> condition) {
        new WebDriverWait(driver, WAIT).ignoring(StaleElementReferenceException.class).until(d -> condition.get());
    }

    private WebElement row(QueueName q) {
        return driver.findElement(By.cssSelector("#queues tr[data-queue='" + q.value() + "']"));
    }

    private String col(WebElement row, String col) {
        return row.findElement(By.cssSelector("td[data-col='" + col + "']")).getText();
    }

    private void select(QueueName q) {
        row(q).click();
        waitFor(() -> driver.findElement(By.id("detail-name")).getText().equals(q.value()));
    }

    private int refreshes() {
        return Integer.parseInt(driver.findElement(By.tagName("body")).getAttribute("data-refreshes"));
    }

    /** Wait until the page has refreshed twice more (so what it shows was read after now). */
    private void twoRefreshes() {
        int now = refreshes();
        waitFor(() -> refreshes() >= now + 2);
    }

    /** Click {@code button}, then Confirm in the page's dialog. */
    private void confirmed(By button) {
        driver.findElement(button).click();
        waitFor(() -> driver.findElement(By.id("confirm")).isDisplayed());
        driver.findElement(By.id("confirm-ok")).click();
        waitFor(() -> !driver.findElement(By.id("confirm")).isDisplayed());
    }

    private HttpResponse<String> post(String url, String path, String form, String csrf) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path))
                .header("Content-Type", "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form));
        if (csrf != null) {
            b.header(DashboardApp.CSRF_HEADER, csrf);
        }
        if (url.equals(base)) {
            b.header("Authorization", "Bearer " + TOKEN);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private void screenshot(String name) throws IOException {
        Path dir = screenshots();
        if (dir != null) {
            Files.createDirectories(dir);
            // the whole page: the window as tall as the document, then back
            long height = ((Number) ((JavascriptExecutor) driver).executeScript(
                    "return document.documentElement.scrollHeight;")).longValue();
            driver.manage().window().setSize(new Dimension(1400, (int) Math.max(1000, Math.min(3000, height + 20))));
            Path png = driver.getScreenshotAs(OutputType.FILE).toPath();
            Files.copy(png, dir.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
            driver.manage().window().setSize(new Dimension(1400, 1000));
        }
    }

    @Test
    @Order(1)
    void theNumbersShownAreThoseOfStats() throws IOException {
        login();
        twoRefreshes();
        for (QueueName q : List.of(Workload.ORDERS, Workload.PAYMENTS, Workload.TRASH)) {
            QueueStats s = client.stats(q);
            WebElement r = row(q);
            assertEquals(q.value(), col(r, "name"));
            assertEquals(String.valueOf(s.ready()), col(r, "ready"), q + " ready");
            assertEquals(String.valueOf(s.delayed()), col(r, "delayed"), q + " delayed");
            assertEquals(String.valueOf(s.inFlight()), col(r, "inFlight"), q + " in flight");
            assertEquals(String.valueOf(s.dead()), col(r, "dead"), q + " dead");
            assertEquals(String.valueOf(s.processed()), col(r, "processed"), q + " processed");
        }
        QueueStats orders = client.stats(Workload.ORDERS);
        assertEquals(List.of(7L, 3L, 2L, 3L, 8L), List.of(orders.ready(), orders.delayed(), orders.inFlight(), orders.dead(),
                orders.processed()), "the workload as stats() sees it");
        long shownAge = Long.parseLong(row(Workload.ORDERS).findElement(By.cssSelector("td[data-col='oldest']")).getAttribute("data-ms"));
        assertTrue(shownAge > 0 && shownAge <= client.stats(Workload.ORDERS).oldestReadyAgeMillis(),
                "oldest ready age shown " + shownAge + " ms, read before a later stats()");
        assertEquals("-", col(row(Workload.PAYMENTS), "oldest"), "no ready message: no age");
        screenshot("dashboard-queues");
    }

    @Test
    @Order(2)
    void deadLettersChartsAndHistoryOfAQueue() throws IOException {
        login();
        select(Workload.ORDERS);
        waitFor(() -> driver.findElements(By.cssSelector("#dead tbody tr")).size() == 3);

        WebElement xss = driver.findElement(By.cssSelector("#dead tr[data-id='" + workload.xssId + "']"));
        assertEquals(Workload.XSS_PAYLOAD, xss.findElement(By.cssSelector("pre.payload")).getText(), "payload shown as text");
        assertEquals(Workload.XSS_REASON, col(xss, "reason"));
        assertEquals("1", col(xss, "attempts"));
        List<String> headers = xss.findElements(By.cssSelector("ul.headers li")).stream().map(WebElement::getText).toList();
        assertTrue(headers.contains("note: " + Workload.XSS_HEADER), "headers shown as text: " + headers);
        assertTrue(headers.contains("kind: order"), headers.toString());
        assertTrue(driver.findElements(By.cssSelector("#dead img, #dead script, #dead b")).isEmpty(), "no markup from data");
        assertNull(((JavascriptExecutor) driver).executeScript("return window.__xss === undefined ? null : window.__xss;"),
                "no script from a payload, header or reason ran");

        WebElement bin = driver.findElement(By.cssSelector("#dead tr[data-id='" + workload.binaryId + "'] pre.payload"));
        assertEquals("hex", bin.getAttribute("data-kind"));
        assertEquals("00 01 02 ff fe 41", bin.getText());
        WebElement longText = driver.findElement(By.cssSelector("#dead tr[data-id='" + workload.longTextId + "']"));
        // the listing reads only a summary: the payload's first DeadLetterSummary.PREVIEW_BYTES bytes and its length
        assertEquals("x".repeat(DeadLetterSummary.PREVIEW_BYTES), longText.findElement(By.cssSelector("pre.payload")).getText());
        assertTrue(longText.findElement(By.cssSelector(".kind")).getText().contains("2000 bytes, truncated"));

        // the charts: two uPlot canvases, fed by the sampler from the history (5 acked + 3 dead-lettered)
        waitFor(() -> "8".equals(driver.findElement(By.id("chart-note")).getAttribute("data-processed-last-hour")));
        assertEquals(2, driver.findElements(By.cssSelector("#chart-throughput canvas, #chart-latency canvas")).size());
        chartDataMatchesTheHistory();

        // the history: 8 rows, newest first; searchable by id
        waitFor(() -> driver.findElements(By.cssSelector("#history tbody tr")).size() == 8);
        assertEquals(client.history(Workload.ORDERS, 100).size(), 8);
        screenshot("dashboard-queue");
        driver.findElement(By.id("history-id")).sendKeys(String.valueOf(workload.firstAckedId));
        driver.findElement(By.id("history-go")).click();
        waitFor(() -> driver.findElements(By.cssSelector("#history tbody tr")).size() == 1);
        WebElement h = driver.findElement(By.cssSelector("#history tbody tr"));
        HistoryEntry expected = client.history(Workload.ORDERS, 100).stream()
                .filter(e -> e.messageId() == workload.firstAckedId).findFirst().orElseThrow();
        assertEquals(String.valueOf(workload.firstAckedId), col(h, "id"));
        assertEquals("acked", col(h, "outcome"));
        assertEquals("shipped", col(h, "detail"));
        assertEquals(String.valueOf(expected.durationMillis()), col(h, "duration"));
        assertEquals(expected.startedAt().toString().replace("T", " ").replace("Z", ""), col(h, "start"));
        assertEquals(expected.finishedAt().toString().replace("T", " ").replace("Z", ""), col(h, "end"));
    }

    /** The data the charts draw, read by the page's own fetch: per 10 s bucket, the counts and latencies of the history. */
    @SuppressWarnings("unchecked")
    private void chartDataMatchesTheHistory() {
        Map<String, Object> series = (Map<String, Object>) ((JavascriptExecutor) driver).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch('api/series?queue=orders').then(r => r.json()).then(done);");
        List<Number> t = (List<Number>) series.get("t");
        List<Number> acked = (List<Number>) series.get("acked");
        List<Number> dead = (List<Number>) series.get("dead");
        List<Number> p50 = (List<Number>) series.get("p50");
        List<Number> p95 = (List<Number>) series.get("p95");
        assertEquals(360, t.size(), "one hour of 10 s buckets");
        Map<Long, List<Long>> latencies = new TreeMap<>();
        Map<Long, Integer> deadPerBucket = new TreeMap<>();
        for (HistoryEntry h : client.history(Workload.ORDERS, 100)) {
            long bucket = Math.floorDiv(h.finishedAt().toEpochMilli(), 10_000L) * 10;
            if (h.outcome().equals("acked")) {
                latencies.computeIfAbsent(bucket, k -> new ArrayList<>())
                        .add(h.finishedAt().toEpochMilli() - h.enqueuedAt().toEpochMilli());
            } else {
                deadPerBucket.merge(bucket, 1, Integer::sum);
            }
        }
        for (int i = 0; i < t.size(); i++) {
            long bucket = t.get(i).longValue();
            List<Long> l = latencies.getOrDefault(bucket, List.of()).stream().sorted().toList();
            assertEquals(l.size() / 10.0, acked.get(i).doubleValue(), 1e-9, "acked/s at " + bucket);
            assertEquals(deadPerBucket.getOrDefault(bucket, 0) / 10.0, dead.get(i).doubleValue(), 1e-9, "dead/s at " + bucket);
            if (l.isEmpty()) {
                assertNull(p50.get(i));
                assertNull(p95.get(i));
            } else {
                assertEquals(l.get((int) Math.ceil(0.5 * l.size()) - 1), p50.get(i).longValue(), "p50 at " + bucket);
                assertEquals(l.get((int) Math.ceil(0.95 * l.size()) - 1), p95.get(i).longValue(), "p95 at " + bucket);
            }
        }
        assertEquals(5, latencies.values().stream().mapToInt(List::size).sum());
    }

    @Test
    @Order(3)
    void aDeadLetterRequeuedThroughThePageIsProcessed() throws IOException {
        login();
        select(Workload.PAYMENTS);
        By requeue = By.cssSelector("#dead tr[data-id='" + workload.paymentId + "'] button.requeue");
        waitFor(() -> !driver.findElements(requeue).isEmpty());

        // cancelled: nothing changes
        driver.findElement(requeue).click();
        waitFor(() -> driver.findElement(By.id("confirm")).isDisplayed());
        assertTrue(driver.findElement(By.id("confirm-text")).getText().contains(String.valueOf(workload.paymentId)));
        screenshot("dashboard-confirm");
        driver.findElement(By.id("confirm-cancel")).click();
        waitFor(() -> !driver.findElement(By.id("confirm")).isDisplayed());
        twoRefreshes();
        assertEquals(1, client.stats(Workload.PAYMENTS).dead(), "a cancelled confirmation changes nothing");

        // confirmed: requeued, then a worker processes it
        driver.findElement(requeue).click();
        waitFor(() -> driver.findElement(By.id("confirm")).isDisplayed());
        driver.findElement(By.id("confirm-ok")).click();
        waitFor(() -> client.stats(Workload.PAYMENTS).dead() == 0);
        assertEquals(1, client.stats(Workload.PAYMENTS).ready(), "back on its queue");
        waitFor(() -> driver.findElements(By.cssSelector("#dead tbody tr")).isEmpty());

        try (WorkerPool pool = WorkerPool.start(client, Workload.PAYMENTS, d -> Outcome.ack("paid " + d.text()),
                WorkerOptions.defaults().withThreads(1).withPollWait(Duration.ofMillis(200)), null)) {
            waitFor(() -> client.history(Workload.PAYMENTS, 10).stream()
                    .anyMatch(e -> e.messageId() == workload.paymentId && e.outcome().equals("acked")));
        }
        driver.findElement(By.id("history-id")).sendKeys(String.valueOf(workload.paymentId));
        driver.findElement(By.id("history-go")).click();
        By acked = By.cssSelector("#history tr[data-id='" + workload.paymentId + "'] td[data-col='outcome']");
        waitFor(() -> driver.findElements(acked).stream().anyMatch(e -> e.getText().equals("acked")));
        assertEquals("paid pay-42", driver.findElement(By.cssSelector("#history tr[data-id='" + workload.paymentId
                + "'] td[data-col='detail']")).getText());
        assertEquals(0, client.stats(Workload.PAYMENTS).depth(), "processed: nothing left on the queue");

        // purge, confirmed, on another queue
        select(Workload.TRASH);
        waitFor(() -> driver.findElements(By.cssSelector("#dead tbody tr")).size() == 2);
        driver.findElement(By.id("purge-dead")).click();
        waitFor(() -> driver.findElement(By.id("confirm")).isDisplayed());
        driver.findElement(By.id("confirm-ok")).click();
        waitFor(() -> client.stats(Workload.TRASH).dead() == 0);
        waitFor(() -> "0".equals(col(row(Workload.TRASH), "dead")));
    }

    @Test
    @Order(4)
    void withoutTheTokenThePageIsRefusedAndNothingChanges() throws Exception {
        driver.manage().deleteAllCookies();
        driver.get(base);
        assertTrue(driver.findElement(By.tagName("body")).getText().startsWith("401 Unauthorized"),
                driver.getPageSource());
        assertTrue(driver.findElements(By.id("queues")).isEmpty());

        long dead = client.stats(Workload.ORDERS).dead();
        HttpClient http = HttpClient.newHttpClient();
        for (String path : List.of("api/requeue-all", "api/purge-dead")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("queue=orders")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(401, r.statusCode(), path);
        }
        HttpResponse<String> wrong = http.send(HttpRequest.newBuilder(URI.create(base + "api/overview"))
                .header("Authorization", "Bearer not-the-token-0123456789").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(401, wrong.statusCode());
        // with the token but without the page's CSRF token: refused too
        HttpResponse<String> noCsrf = http.send(HttpRequest.newBuilder(URI.create(base + "api/purge-dead"))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("queue=orders")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(403, noCsrf.statusCode());
        // and a GET never changes anything
        HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create(base + "api/purge-dead?queue=orders"))
                .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, get.statusCode());
        assertEquals(dead, client.stats(Workload.ORDERS).dead(), "nothing changed");
        assertEquals(3, dead);
    }

    @Test
    @Order(5)
    void readOnlyShowsNoActionAndRefusesThem() throws Exception {
        try (DashboardServer ro = DashboardServer.start(client, DashboardOptions.defaults().withReadOnly(true)
                .withPayloadPreview(false).withRefresh(Duration.ofSeconds(1)), database(), "127.0.0.1", 0)) {
            String roBase = "http://localhost:" + ro.port() + "/";
            driver.get(roBase + "#queue=orders");
            waitFor(() -> driver.findElements(By.cssSelector("#dead tbody tr")).size() == 3);
            assertTrue(driver.findElements(By.cssSelector("button.requeue")).isEmpty(), "no requeue buttons");
            assertFalse(driver.findElement(By.id("requeue-all")).isDisplayed());
            assertFalse(driver.findElement(By.id("purge-dead")).isDisplayed());
            assertTrue(driver.findElements(By.cssSelector("#dead pre.payload")).isEmpty(), "no payload previews");
            assertTrue(driver.findElement(By.cssSelector("#dead tr[data-id='" + workload.xssId + "'] td[data-col='payload']"))
                    .getText().contains("previews are off"));
            assertTrue(driver.findElement(By.id("mode")).getText().contains("read-only"));
            screenshot("dashboard-read-only");

            String csrf = driver.findElement(By.cssSelector("meta[name='sqlqueue-csrf']")).getAttribute("content");
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(roBase + "api/requeue-all"))
                    .header("Content-Type", "application/x-www-form-urlencoded").header(DashboardApp.CSRF_HEADER, csrf)
                    .POST(HttpRequest.BodyPublishers.ofString("queue=orders")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(403, r.statusCode(), r.body());
            assertEquals(3, client.stats(Workload.ORDERS).dead(), "nothing changed");
            // no pause, resume or delete either: not shown, and refused by the server
            assertTrue(driver.findElements(By.cssSelector("button.delete")).isEmpty(), "no delete buttons");
            assertFalse(driver.findElement(By.id("pause-bar")).isDisplayed(), "no pause button");
            assertEquals("running", driver.findElement(By.id("pause-state")).getText(), "the state is shown");
            for (String[] action : List.of(new String[] {"api/pause", "queue=orders"},
                    new String[] {"api/delete-dead", "queue=orders&id=" + workload.binaryId})) {
                HttpResponse<String> refused = post(roBase, action[0], action[1], csrf);
                assertEquals(403, refused.statusCode(), action[0] + ": " + refused.body());
            }
            assertFalse(client.isPaused(Workload.ORDERS), "nothing changed");
            assertEquals(3, client.stats(Workload.ORDERS).dead(), "nothing changed");
        }
    }

    @Test
    @Order(6)
    void aQueuePausedThroughThePageIsNotConsumedUntilResumed() throws IOException {
        login();
        client.enqueue(Workload.TRASH, Message.ofText("held-back"));
        select(Workload.TRASH);
        waitFor(() -> driver.findElement(By.id("pause")).isDisplayed());
        assertEquals("running", driver.findElement(By.id("pause-state")).getText());
        assertFalse(driver.findElement(By.id("resume")).isDisplayed());

        confirmed(By.id("pause"));
        waitFor(() -> client.isPaused(Workload.TRASH));
        waitFor(() -> "paused".equals(col(row(Workload.TRASH), "state")));
        waitFor(() -> driver.findElement(By.id("resume")).isDisplayed());
        assertEquals("paused", driver.findElement(By.id("pause-state")).getText());
        assertFalse(driver.findElement(By.id("pause")).isDisplayed());
        assertEquals("running", col(row(Workload.ORDERS), "state"), "one queue only");
        assertEquals(List.of(), client.consume(Workload.TRASH, ConsumeRequest.of(10)), "no claim while paused");
        assertEquals(1, client.stats(Workload.TRASH).ready(), "the message waits");
        screenshot("dashboard-paused");

        confirmed(By.id("resume"));
        waitFor(() -> !client.isPaused(Workload.TRASH));
        waitFor(() -> "running".equals(col(row(Workload.TRASH), "state")));
        List<Delivery> got = client.consume(Workload.TRASH, ConsumeRequest.of(10));
        assertEquals(List.of("held-back"), got.stream().map(Delivery::text).toList(), "resumed: delivered");
        client.ack(got.get(0).receipt());
    }

    @Test
    @Order(7)
    void oneDeadLetterDeletedThroughThePage() throws IOException {
        login();
        select(Workload.ORDERS);
        By delete = By.cssSelector("#dead tr[data-id='" + workload.binaryId + "'] button.delete");
        waitFor(() -> !driver.findElements(delete).isEmpty());

        driver.findElement(delete).click(); // cancelled: nothing changes
        waitFor(() -> driver.findElement(By.id("confirm")).isDisplayed());
        assertTrue(driver.findElement(By.id("confirm-text")).getText().contains("Delete dead letter " + workload.binaryId));
        driver.findElement(By.id("confirm-cancel")).click();
        waitFor(() -> !driver.findElement(By.id("confirm")).isDisplayed());
        twoRefreshes();
        assertEquals(3, client.stats(Workload.ORDERS).dead(), "a cancelled confirmation changes nothing");

        confirmed(delete);
        waitFor(() -> client.stats(Workload.ORDERS).dead() == 2);
        waitFor(() -> driver.findElements(By.cssSelector("#dead tbody tr")).size() == 2);
        assertTrue(driver.findElements(By.cssSelector("#dead tr[data-id='" + workload.binaryId + "']")).isEmpty());
        assertEquals(List.of(workload.xssId, workload.longTextId), client.deadLetterSummaries(Workload.ORDERS, 10).stream()
                .map(DeadLetterSummary::messageId).sorted().toList(), "only that one is gone");
        assertEquals(0, client.stats(Workload.ORDERS).depth() - 12, "nothing requeued: 7 ready, 3 delayed, 2 in flight");
    }

    @Test
    @Order(8)
    void anUnknownQueueAnswers404WithTheRule() throws Exception {
        String csrf;
        login();
        csrf = driver.findElement(By.cssSelector("meta[name='sqlqueue-csrf']")).getAttribute("content");
        HttpClient http = HttpClient.newHttpClient();
        for (String path : List.of("api/dead?queue=nope", "api/history?queue=nope", "api/series?queue=nope")) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, r.statusCode(), path);
            assertTrue(r.body().contains("\"rule\":\"queue.exists\""), path + ": " + r.body());
        }
        for (String path : List.of("api/pause", "api/purge-dead", "api/requeue-all")) {
            HttpResponse<String> r = post(base, path, "queue=nope", csrf);
            assertEquals(404, r.statusCode(), path);
            assertTrue(r.body().contains("queue.exists"), path + ": " + r.body());
        }
        assertFalse(client.queues().contains(QueueName.of("nope")), "nothing created");
    }

    /** A backend without {@link Capability#PAUSE} (Service Broker, Teradata): the page says so and offers no button. */
    @Test
    @Order(9)
    void aBackendThatCannotPauseShowsTheCapabilityNotice() throws Exception {
        SqlQueue noPause = SqlQueue.wrap(new ForwardingQueueBackend(BackendDiscovery.find(config).open(config)) {
            @Override
            public Capabilities capabilities() {
                Capabilities c = super.capabilities();
                EnumSet<Capability> features = EnumSet.copyOf(c.features());
                features.remove(Capability.PAUSE);
                return new Capabilities(c.backend(), c.claimModes(), features, c.ordering(), c.maxPayloadBytes(),
                        c.maxClaimBatch()).withAbsentReason(Capability.PAUSE, "RECEIVE takes whatever the queue holds");
            }
        }, config);
        try (noPause; DashboardServer s = DashboardServer.start(noPause, DashboardOptions.defaults()
                .withRefresh(Duration.ofSeconds(1)), database(), "127.0.0.1", 0)) {
            String url = "http://localhost:" + s.port() + "/";
            driver.get(url + "#queue=orders");
            waitFor(() -> driver.findElement(By.id("pause-notice")).isDisplayed());
            assertEquals("Pause and resume are not available on this backend: missing capability: pausing and resuming a"
                    + " queue (RECEIVE takes whatever the queue holds)", driver.findElement(By.id("pause-notice")).getText());
            assertFalse(driver.findElement(By.id("pause-bar")).isDisplayed(), "no pause button");
            assertEquals("-", col(row(Workload.ORDERS), "state"));
            screenshot("dashboard-pause-absent");
            String csrf = driver.findElement(By.cssSelector("meta[name='sqlqueue-csrf']")).getAttribute("content");
            HttpResponse<String> r = post(url, "api/pause", "queue=orders", csrf);
            assertEquals(409, r.statusCode(), r.body());
            assertFalse(client.isPaused(Workload.ORDERS), "nothing changed");
        }
    }

    private List<WebElement> messageRows() {
        return driver.findElements(By.cssSelector("#messages tbody tr"));
    }

    /** The payload previews of the message rows, read in one script (one WebDriver call per poll). */
    @SuppressWarnings("unchecked")
    private List<String> shownPayloads() {
        return (List<String>) ((JavascriptExecutor) driver).executeScript(
                "return Array.from(document.querySelectorAll('#messages tbody tr pre.payload')).map(p => p.textContent);");
    }

    @Test
    @Order(10)
    void inFlightReadyAndDelayedMessagesPagedWithFilters() throws IOException {
        login();
        select(Workload.ORDERS);
        Select state = new Select(driver.findElement(By.id("messages-state")));
        state.selectByValue("in-flight");
        waitFor(() -> ((Number) ((JavascriptExecutor) driver).executeScript(
                "return document.querySelectorAll('#messages tbody tr[data-state=in-flight]').length;")).intValue() == 2);
        List<MessageSummary> inFlight = client.messages(Workload.ORDERS, MessageState.IN_FLIGHT, 0, 10);
        assertEquals(2, inFlight.size());
        for (MessageSummary m : inFlight) {
            WebElement tr = driver.findElement(By.cssSelector("#messages tr[data-id='" + m.messageId() + "']"));
            assertEquals("1", col(tr, "attempts"));
            assertTrue(col(tr, "lease").startsWith(m.leaseToken() + " since "), "the holder's lease token: " + col(tr, "lease"));
            long left = Long.parseLong(tr.findElement(By.cssSelector("td[data-col='left']")).getAttribute("data-ms"));
            assertTrue(left > 0 && left <= Duration.ofMinutes(10).toMillis(), "lease left " + left + " ms of a 10-minute lease");
            assertTrue(col(tr, "left").matches("\\d+ m \\d\\d s"), col(tr, "left"));
        }
        assertEquals(List.of("in-flight-1", "in-flight-2"), shownPayloads());
        screenshot("dashboard-in-flight");

        // ready, 5 a page: the workload's 7 ready messages on two pages, by id
        new Select(driver.findElement(By.id("messages-page-size"))).selectByValue("5");
        state.selectByValue("ready");
        waitFor(() -> shownPayloads().equals(List.of("ready-0", "ready-1", "ready-2", "ready-3", "ready-4")));
        assertTrue(driver.findElement(By.id("messages-next")).isEnabled());
        driver.findElement(By.id("messages-next")).click();
        waitFor(() -> shownPayloads().equals(List.of("ready-5", "ready-6")));
        assertFalse(driver.findElement(By.id("messages-next")).isEnabled(), "the last page");
        assertEquals("-", col(messageRows().get(0), "left"), "a ready message has no lease");
        driver.findElement(By.id("messages-first")).click();
        waitFor(() -> shownPayloads().size() == 5 && shownPayloads().get(0).equals("ready-0"));

        // delayed: an hour away, no lease
        state.selectByValue("delayed");
        waitFor(() -> shownPayloads().equals(List.of("later-0", "later-1", "later-2")));
        for (WebElement tr : messageRows()) {
            assertEquals("-", col(tr, "lease"));
            assertEquals("0", col(tr, "attempts"));
        }
        QueueStats s = client.stats(Workload.ORDERS);
        assertEquals(List.of(7L, 3L, 2L), List.of(s.ready(), s.delayed(), s.inFlight()), "as stats() counts them");
    }

    @Test
    @Order(11)
    void aMessagePageShowsHeadersPayloadPreviewAttemptsAndHistory() throws IOException {
        login();
        select(Workload.ORDERS);
        new Select(driver.findElement(By.id("messages-state"))).selectByValue("in-flight");
        MessageSummary held = client.messages(Workload.ORDERS, MessageState.IN_FLIGHT, 0, 1).get(0);
        By link = By.cssSelector("#messages tr[data-id='" + held.messageId() + "'] a.message-link");
        waitFor(() -> !driver.findElements(link).isEmpty());
        driver.findElement(link).click();
        waitFor(() -> driver.findElement(By.id("message-detail")).isDisplayed()
                && "in flight".equals(driver.findElement(By.id("message-where")).getText()));
        assertTrue(driver.getCurrentUrl().endsWith("#queue=orders&message=" + held.messageId()), driver.getCurrentUrl());
        assertEquals("1", field("attempts"));
        assertEquals(String.valueOf(held.leaseToken()), field("lease token (holder)"));
        assertEquals("in-flight-1", driver.findElement(By.id("message-payload")).getText());
        assertTrue(driver.findElement(By.id("message-no-history")).isDisplayed(), "not processed yet");
        screenshot("dashboard-message");

        // a dead letter: its reason and headers as text, a preview of its payload only
        driver.get(base + "#queue=orders&message=" + workload.xssId);
        waitFor(() -> "dead letter".equals(driver.findElement(By.id("message-where")).getText()));
        assertEquals(Workload.XSS_REASON, field("reason"));
        assertEquals(Workload.XSS_PAYLOAD, driver.findElement(By.id("message-payload")).getText());
        assertTrue(driver.findElements(By.cssSelector("#message-headers li")).stream().map(WebElement::getText).toList()
                .contains("note: " + Workload.XSS_HEADER));
        assertNull(((JavascriptExecutor) driver).executeScript("return window.__xss === undefined ? null : window.__xss;"),
                "no script from a payload, header or reason ran");
        assertEquals(1, driver.findElements(By.cssSelector("#message-history tbody tr")).size(), "its dead-lettering");
        driver.get(base + "#queue=orders&message=" + workload.longTextId);
        waitFor(() -> driver.findElement(By.id("message-payload-kind")).getText().contains("2000 bytes, truncated"));
        assertEquals("x".repeat(DeadLetterSummary.PREVIEW_BYTES), driver.findElement(By.id("message-payload")).getText(),
                "the preview of the first bytes, not the whole payload");

        // a processed message: its history rows
        driver.get(base + "#queue=orders&message=" + workload.firstAckedId);
        waitFor(() -> "processed".equals(driver.findElement(By.id("message-where")).getText()));
        WebElement h = driver.findElement(By.cssSelector("#message-history tbody tr"));
        assertEquals("acked", col(h, "outcome"));
        assertEquals("shipped", col(h, "detail"));
        driver.findElement(By.id("message-back")).click();
        waitFor(() -> driver.findElement(By.id("queue-detail")).isDisplayed());
    }

    private String field(String name) {
        return driver.findElement(By.cssSelector("#message-fields tr[data-field='" + name + "'] td")).getText();
    }

    @Test
    @Order(12)
    void oneTimeZoneOnEveryPartOfThePageChosenByTheViewer() throws IOException {
        login();
        select(Workload.ORDERS);
        HistoryEntry newest = client.history(Workload.ORDERS, 1).get(0);
        By firstStart = By.cssSelector("#history tbody tr td[data-col='start']");
        waitFor(() -> !driver.findElements(firstStart).isEmpty());
        java.time.format.DateTimeFormatter f = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
        assertEquals(f.format(newest.startedAt().atZone(java.time.ZoneOffset.UTC)), driver.findElement(firstStart).getText(), "UTC first");
        assertTrue(driver.findElements(By.cssSelector(".tz")).stream().allMatch(e -> e.getAttribute("textContent").equals("(UTC)")),
                "every heading names UTC, also those of parts not shown");

        new Select(driver.findElement(By.id("tz"))).selectByValue("local");
        java.time.ZoneId zone = java.time.ZoneId.of(Browser.BROWSER_ZONE);
        String local = f.format(newest.startedAt().atZone(zone));
        waitFor(() -> driver.findElement(firstStart).getText().equals(local));
        assertEquals(List.of("(" + Browser.BROWSER_ZONE + ")"), driver.findElements(By.cssSelector(".tz")).stream()
                .map(e -> e.getAttribute("textContent")).distinct().toList(), "every heading names the one zone");
        WebElement dead = driver.findElement(By.cssSelector("#dead tr[data-id='" + workload.xssId + "'] td[data-col='deadAt']"));
        assertEquals(f.format(client.deadLetterSummaries(Workload.ORDERS, 10).stream().filter(d -> d.messageId() == workload.xssId)
                .findFirst().orElseThrow().deadAt().atZone(zone)), dead.getText(), "dead letters in the same zone");
        screenshot("dashboard-time-zone");

        driver.navigate().refresh(); // the choice is kept by this browser
        waitFor(() -> !driver.findElements(firstStart).isEmpty() && driver.findElement(firstStart).getText().equals(local));
        new Select(driver.findElement(By.id("tz"))).selectByValue("UTC");
        waitFor(() -> driver.findElement(firstStart).getText().equals(f.format(newest.startedAt().atZone(java.time.ZoneOffset.UTC))));
    }

    @Test
    @Order(13)
    @SuppressWarnings("unchecked")
    void chartRangesOf1Hour24HoursAnd7DaysFromTheHistory() throws IOException {
        login();
        select(Workload.ORDERS);
        List<HistoryEntry> rows = client.history(Workload.ORDERS, 100);
        for (String[] r : List.of(new String[] {"24h", "300", "288"}, new String[] {"7d", "3600", "168"})) {
            driver.findElement(By.cssSelector("#chart-ranges button[data-range='" + r[0] + "']")).click();
            waitFor(() -> r[0].equals(driver.findElement(By.id("chart-note")).getAttribute("data-range")));
            assertEquals(String.valueOf(rows.size()), driver.findElement(By.id("chart-note")).getAttribute("data-processed-range"));
            assertTrue(driver.findElement(By.id("caption-latency")).getText().contains("mean per bucket"));
            Map<String, Object> series = (Map<String, Object>) ((JavascriptExecutor) driver).executeAsyncScript(
                    "const done = arguments[arguments.length - 1];"
                            + "fetch('api/series?queue=orders&range=" + r[0] + "').then(x => x.json()).then(done);");
            long width = Long.parseLong(r[1]);
            List<Number> t = (List<Number>) series.get("t");
            assertEquals(Integer.parseInt(r[2]), t.size(), r[0] + " buckets");
            Map<Long, List<Long>> acked = new TreeMap<>();
            Map<Long, Integer> dead = new TreeMap<>();
            for (HistoryEntry h : rows) {
                long bucket = Math.floorDiv(h.finishedAt().toEpochMilli(), width * 1000) * width;
                if (h.outcome().equals("acked")) {
                    acked.computeIfAbsent(bucket, k -> new ArrayList<>()).add(h.finishedAt().toEpochMilli() - h.enqueuedAt().toEpochMilli());
                } else {
                    dead.merge(bucket, 1, Integer::sum);
                }
            }
            for (int i = 0; i < t.size(); i++) {
                long bucket = t.get(i).longValue();
                List<Long> l = acked.getOrDefault(bucket, List.of());
                assertEquals(l.size() / (double) width, ((List<Number>) series.get("acked")).get(i).doubleValue(), 1e-9, r[0] + " acked at " + bucket);
                assertEquals(dead.getOrDefault(bucket, 0) / (double) width, ((List<Number>) series.get("dead")).get(i).doubleValue(), 1e-9);
                Number mean = ((List<Number>) series.get("mean")).get(i);
                if (l.isEmpty()) {
                    assertNull(mean);
                } else {
                    assertEquals(l.stream().mapToLong(Long::longValue).average().orElseThrow(), mean.doubleValue(), 1e-6, "mean at " + bucket);
                }
            }
        }
        screenshot("dashboard-range-7d");
        driver.findElement(By.cssSelector("#chart-ranges button[data-range='1h']")).click();
        waitFor(() -> "1h".equals(driver.findElement(By.id("chart-note")).getAttribute("data-range")));
        assertTrue(driver.findElement(By.id("caption-throughput")).getText().contains("last hour"));
    }
}
