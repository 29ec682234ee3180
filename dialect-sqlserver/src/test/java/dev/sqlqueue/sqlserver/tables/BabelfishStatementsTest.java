package dev.sqlqueue.sqlserver.tables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.DeadLetter;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.EnqueueResult;
import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.QueueStats;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every statement of {@link SqlServerStatements} runs on a real T-SQL engine, Babelfish ({@link BabelfishServer}),
 * through the public API, and does what it is for: a wrapper on the backend's DataSource records the text of every
 * statement prepared, and the test ends by checking that each statement name was among them. The conformance suite
 * covers most statements already; this one also reaches the administrative ones (history pruning by age and by
 * rows, requeue by id, purges, drop) and the rarer paths (a receipt naming another queue, a queue whose drop did not
 * finish, a caller whose SNAPSHOT transaction cannot see a queue created after it began, the expired-key clean-up).
 */
class BabelfishStatementsTest {
    private String prefix;
    private final Set<String> prepared = new ConcurrentSkipListSet<>();
    private SqlQueue plain;
    private SqlQueue withHistory;
    /** A one-second deduplication window, for the keys' expiry and clean-up. */
    private SqlQueue shortWindow;

    @BeforeEach
    void open() {
        assumeTrue(BabelfishServer.unavailable().isEmpty(), () -> BabelfishServer.unavailable().orElse(""));
        prefix = "ks" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        plain = SqlQueue.open(config(false, Duration.ofMinutes(5)));
        withHistory = SqlQueue.open(config(true, Duration.ofMinutes(5)));
        shortWindow = SqlQueue.open(config(false, Duration.ofSeconds(1)));
    }

    private QueueConfig config(boolean history, Duration window) {
        return QueueConfig.builder().url(BabelfishServer.get().url()).tablePrefix(prefix).poolSize(4).history(history)
                .deduplicationWindow(window).dataSourceWrapper(this::recording).build();
    }

    /** The DataSource, with every Connection.prepareStatement text recorded. */
    private DataSource recording(DataSource ds) {
        return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class}, (p, m, a) -> {
            Object r = invoke(ds, m, a);
            return m.getName().equals("getConnection") ? recording((Connection) r) : r;
        });
    }

    /** The connection, with every prepareStatement text recorded. */
    private Connection recording(Connection c) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, (cp, cm, ca) -> {
            if (cm.getName().equals("prepareStatement")) {
                prepared.add((String) ca[0]);
            }
            return invoke(c, cm, ca);
        });
    }

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] a) throws Throwable {
        try {
            return m.invoke(target, a);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @AfterEach
    void close() throws Exception {
        if (plain == null) {
            return;
        }
        shortWindow.close();
        withHistory.close();
        plain.close();
        try (Connection c = DriverManager.getConnection(BabelfishServer.get().url()); Statement s = c.createStatement()) {
            s.execute(new SqlServerStatements(prefix, "dbo", ClaimOrder.FIFO).get("dropSchema"));
        }
    }

    /** Claims what is ready (30 s leases) and returns the delivery whose payload is {@code text}. */
    private static Delivery claimText(SqlQueue queue, QueueName q, String text) {
        return queue.consume(q, ConsumeRequest.of(10)).stream().filter(d -> d.text().equals(text)).findFirst()
                .orElseThrow(() -> new AssertionError("no ready message '" + text + "'"));
    }

    @Test
    void everyStatementRunsAndDoesWhatItIsFor() throws Exception {
        QueueName q = QueueName.of("all");
        QueueName other = QueueName.of("other");
        withHistory.createQueue(q);
        plain.createQueue(other);
        assertEquals(List.of(QueueName.of("all"), QueueName.of("other")), plain.queues());
        assertTrue(plain.serverVersion().startsWith("Babelfish for PostgreSQL"), plain.serverVersion());

        // producers: plain, keyed single, keyed batch (a key twice), the caller's transaction
        long a = plain.enqueue(q, Message.ofText("a"));
        EnqueueResult k1 = plain.enqueueDeduplicated(q, Message.builder("k".getBytes()).deduplicationKey("k1").build());
        List<EnqueueResult> batch = plain.enqueueAllDeduplicated(q, List.of(
                Message.builder("x".getBytes()).deduplicationKey("k2").build(), Message.ofText("plain"),
                Message.builder("y".getBytes()).deduplicationKey("k1").build(),
                Message.builder("z".getBytes()).deduplicationKey("k2").build()));
        assertEquals(List.of(false, false, true, true), batch.stream().map(EnqueueResult::duplicate).toList());
        assertEquals(k1.id(), batch.get(2).id(), "k1 is held by the single keyed enqueue");
        assertEquals(batch.get(0).id(), batch.get(3).id(), "k2 given twice: the second is the first's duplicate");
        try (Connection caller = recording(DriverManager.getConnection(BabelfishServer.get().url()))) {
            caller.setAutoCommit(false);
            plain.enqueue(caller, q, Message.ofText("joined"));
            assertTrue(plain.enqueueDeduplicated(caller, q, Message.builder("j".getBytes()).deduplicationKey("k1").build())
                    .duplicate());
            caller.commit();
        }
        assertEquals(5, plain.stats(q).ready());

        // lease claims and settles, with history on: ack to history, nack, extend, dead-letter, release
        List<Delivery> got = withHistory.consume(q, ConsumeRequest.of(5).withLease(Duration.ofSeconds(30)));
        assertEquals(5, got.size());
        assertEquals(a, got.get(0).id(), "fifo: the first message first");
        withHistory.ack(got.get(0).receipt());
        withHistory.nack(got.get(1).receipt(), Duration.ofMillis(100), "later");
        withHistory.extend(got.get(2).receipt(), Duration.ofSeconds(60));
        withHistory.deadLetter(got.get(3).receipt(), "poison");
        withHistory.release(got.get(4).receipt());
        Receipt wrongQueue = new Receipt(other, got.get(2).id(), got.get(2).receipt().token(), ClaimMode.LEASE);
        assertEquals("receipt.queue", assertThrows(InvalidInputException.class, () -> plain.ack(wrongQueue)).rule());
        plain.ack(got.get(2).receipt());
        QueueStats s = plain.stats(q);
        assertEquals(1, s.dead());
        assertEquals(2, s.processed(), "the ack and the dead letter went to history");

        // transactional claim: a partial release restores the visibility, then the rest commits
        Thread.sleep(200);
        List<Delivery> tx = plain.consume(q, ConsumeRequest.of(10).withMode(ClaimMode.TRANSACTIONAL));
        assertEquals(2, tx.size());
        plain.release(tx.get(0).receipt());
        plain.ack(tx.get(1).receipt());
        assertEquals(1, plain.stats(q).ready());

        // dead letters: list, requeue by id (a new message, same bytes), requeue all, purge
        List<DeadLetter> dead = plain.deadLetters(q, 10);
        assertEquals(1, dead.size());
        assertEquals("poison", dead.get(0).reason());
        List<dev.sqlqueue.DeadLetterSummary> summaries = plain.deadLetterSummaries(q, 10);
        assertEquals(dead.get(0).messageId(), summaries.get(0).messageId());
        assertTrue(summaries.get(0).wholePayload(), "a short payload is its own preview");
        assertEquals(dead.get(0).payload().length, summaries.get(0).payloadBytes());
        assertEquals(List.of(dead.get(0).messageId()), plain.deadLetterSummaries(q, List.of(dead.get(0).messageId(), 999_999L))
                .stream().map(dev.sqlqueue.DeadLetterSummary::messageId).toList(), "an id that is no dead letter is left out");
        String poison = new String(dead.get(0).payload(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(1, plain.requeueDeadLetters(q, List.of(dead.get(0).messageId())));
        plain.deadLetter(claimText(plain, q, poison).receipt(), "again");
        assertEquals(1, plain.requeueDeadLetters(q, List.of()));
        plain.deadLetter(claimText(plain, q, poison).receipt(), "third");
        long thirdId = plain.deadLetters(q, 10).get(0).messageId();
        assertEquals(0, plain.deleteDeadLetters(q, List.of(999_999L)), "no such dead letter");
        assertEquals(1, plain.deleteDeadLetters(q, List.of(thirdId)));
        assertEquals(0, plain.stats(q).dead());
        plain.enqueue(q, Message.ofText(poison));
        plain.deadLetter(claimText(plain, q, poison).receipt(), "fourth");
        assertEquals(1, plain.purgeDeadLetters(q));

        // browsing: one ready, one delayed, one in flight; by state, by id, paged, on a queue of its own
        QueueName bq = QueueName.of("browse");
        plain.createQueue(bq);
        plain.enqueue(bq, Message.ofText("browse-held"));
        Delivery heldForBrowse = plain.consume(bq, ConsumeRequest.of(1).withLease(Duration.ofMinutes(5))).get(0);
        long ready = plain.enqueue(bq, Message.ofText("browse-ready"));
        long delayed = plain.enqueue(bq, Message.builder("browse-later".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .delay(Duration.ofHours(1)).build());
        assertEquals(List.of(ready), plain.messages(bq, dev.sqlqueue.MessageState.READY, 0, 10).stream()
                .map(dev.sqlqueue.MessageSummary::messageId).toList());
        assertEquals(List.of(delayed), plain.messages(bq, dev.sqlqueue.MessageState.DELAYED, 0, 10).stream()
                .map(dev.sqlqueue.MessageSummary::messageId).toList());
        dev.sqlqueue.MessageSummary inFlight = plain.messages(bq, dev.sqlqueue.MessageState.IN_FLIGHT, 0, 10).get(0);
        assertEquals(heldForBrowse.id(), inFlight.messageId());
        assertEquals(heldForBrowse.receipt().token(), inFlight.leaseToken().longValue(), "the holder's token");
        assertTrue(inFlight.millisLeft() > 0 && inFlight.millisLeft() <= 300_000, "lease left " + inFlight.millisLeft());
        assertEquals("browse-held", new String(inFlight.payloadPreview(), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(List.of(), plain.messages(bq, dev.sqlqueue.MessageState.READY, ready, 10), "the page after the last id");
        assertEquals(dev.sqlqueue.MessageState.DELAYED, plain.message(bq, delayed).orElseThrow().state());
        // a move claim (issue 35): the ready and the delayed message, with the delay left, never the consumer's; a
        // second move claim takes over the first's messages at once (a mover that died), whose receipts are then lost
        List<dev.sqlqueue.HeldForMove> moving = plain.claimForMove(bq, 10, Duration.ofMinutes(1));
        assertEquals(List.of(ready, delayed), moving.stream().map(dev.sqlqueue.HeldForMove::id).toList());
        assertEquals(Duration.ZERO, moving.get(0).remainingDelay(), "ready");
        long left = moving.get(1).remainingDelay().toSeconds();
        assertTrue(left > 3_500 && left <= 3_600, "the delayed message's delay left: " + moving.get(1).remainingDelay());
        assertEquals(0, moving.get(0).attempts(), "a move claim counts no attempt");
        assertTrue(moving.get(0).receipt().token() < 0, "a move claim's token is negative");
        assertEquals(List.of(), plain.consume(bq, ConsumeRequest.of(10)), "held from consumers");
        List<dev.sqlqueue.HeldForMove> takenOver = plain.claimForMove(bq, 10, Duration.ofMinutes(1));
        assertEquals(List.of(ready, delayed), takenOver.stream().map(dev.sqlqueue.HeldForMove::id).toList());
        assertEquals(2, plain.ackAll(moving.stream().map(dev.sqlqueue.HeldForMove::receipt).toList()).size(),
                "the first move claim's receipts were taken over");
        assertEquals(Set.of(), plain.ackAll(takenOver.stream().map(dev.sqlqueue.HeldForMove::receipt).toList()));
        plain.release(heldForBrowse.receipt());
        assertEquals(1, plain.purge(bq), "the consumer's message, nothing else");
        plain.dropQueue(bq);

        // pause and resume: the mark on the queue row, seen by the claim (C28 covers the claim in depth)
        assertFalse(plain.isPaused(q));
        assertTrue(plain.pause(q));
        assertFalse(plain.pause(q), "already paused");
        assertTrue(plain.isPaused(q));
        assertTrue(plain.resume(q));
        assertFalse(plain.resume(q), "already running");
        assertFalse(plain.isPaused(q));

        // history: list, prune by age (none that old) and by rows
        List<HistoryEntry> h = plain.history(q, 10);
        assertEquals(2, h.size());
        // each row keeps its payload's first bytes (V5): the ack's (ackToHistory) and the dead letter's (historyFromDeadLetter)
        for (HistoryEntry row : h) {
            Delivery d = row.messageId() == got.get(0).id() ? got.get(0) : got.get(3);
            assertEquals(d.id(), row.messageId());
            assertEquals(d.text(), new String(row.payloadPreview(), java.nio.charset.StandardCharsets.UTF_8), row::toString);
        }
        assertEquals(0, plain.pruneHistory(q, HistoryRetention.ofAge(Duration.ofDays(1))));
        assertEquals(1, plain.pruneHistory(q, HistoryRetention.ofRows(1)));
        assertEquals(h.get(0).messageId(), plain.history(q, 10).get(0).messageId(), "the newest row is kept");

        // expired keys: a key is taken again once its window (1 s here) has passed, and 256 keyed enqueues make the
        // next enqueue delete a batch of expired ones
        assertFalse(shortWindow.enqueueDeduplicated(q, Message.builder("e".getBytes()).deduplicationKey("short").build()).duplicate());
        Thread.sleep(1_100);
        assertFalse(shortWindow.enqueueDeduplicated(q, Message.builder("e".getBytes()).deduplicationKey("short").build()).duplicate(),
                "the key's window has passed");
        List<Message> keyed = new ArrayList<>();
        for (int i = 0; i < SqlServerEnqueues.CLEANUP_EVERY; i++) {
            keyed.add(Message.builder(new byte[] {1}).deduplicationKey("bulk-" + i).build());
        }
        shortWindow.enqueueAll(other, keyed);

        // a caller whose SNAPSHOT transaction began before the queue existed is told so, not "being dropped"
        try (Connection c = DriverManager.getConnection(BabelfishServer.get().url()); Statement st = c.createStatement()) {
            st.execute("SET TRANSACTION ISOLATION LEVEL SNAPSHOT");
            c.setAutoCommit(false);
            plain.stats(q); // another session's read
            try (var rs = st.executeQuery("SELECT COUNT(*) FROM [dbo].[" + prefix + "queues]")) {
                rs.next(); // the caller's snapshot begins
            }
            SqlQueueException e = assertThrows(SqlQueueException.class,
                    () -> plain.enqueue(c, QueueName.of("late"), Message.ofText("late")));
            assertTrue(e.getMessage().contains("SNAPSHOT"), e.getMessage());
            c.rollback();
        }

        // purge, drop, and a queue whose drop did not finish
        assertTrue(plain.purge(other) >= SqlServerEnqueues.CLEANUP_EVERY);
        plain.dropQueue(other);
        try (Connection c = DriverManager.getConnection(BabelfishServer.get().url()); Statement st = c.createStatement()) {
            st.executeUpdate("UPDATE [dbo].[" + prefix + "queues] SET [dropping] = 1 WHERE [name] = N'all'");
        }
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> plain.createQueue(q));
        assertTrue(e.getMessage().contains("is being dropped: a drop of it has not finished"), e.getMessage());
        plain.dropQueue(q);
        assertEquals(List.of(QueueName.of("late")), plain.queues());
        plain.dropSchema();

        Set<String> missing = new TreeSet<>();
        SqlServerStatements sql = new SqlServerStatements(prefix, "dbo", ClaimOrder.FIFO, SqlServerEngine.BABELFISH);
        sql.all().forEach((name, text) -> {
            if (!prepared.contains(text)) {
                missing.add(name);
            }
        });
        assertEquals(Set.of(), missing, "statements that never ran on Babelfish");
        assertTrue(prepared.contains(SqlServerStatements.DETECT_ENGINE));
    }
}
