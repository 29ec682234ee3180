package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.Receipt;
import dev.sqlqueue.spi.HeaderCodec;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consume: {@code WAITFOR (RECEIVE TOP (n) ...), TIMEOUT ms} inside a transaction on a connection of
 * its own ({@link dev.sqlqueue.spi.QueueBackend#waitsInConsume()} is true). One RECEIVE returns
 * messages of one conversation group and locks that group until the claim ends.
 *
 * <p>Per message type: data messages are decoded in Java; a body that is not an envelope, or whose
 * headers are malformed, is copied to the dead-letter table (bytes intact) and not returned; a message
 * whose recorded attempts reached {@link BrokerOptions#maxAttempts()} is dead-lettered the same way
 * (the poison limit; the transaction then commits). End-of-stream and EndDialog end the target's side
 * of the conversation; Error is logged with its code and description, the data messages still on that
 * conversation are received and dead-lettered (END CONVERSATION would remove them), and our side ends;
 * DialogTimer is logged and dropped. A batch holding only such messages commits and the wait goes on.
 * A savepoint ({@value #SAVEPOINT}) is taken before each RECEIVE for {@link BrokerClaim}.
 *
 * <p>Error 9617 (queue disabled) becomes {@link QueueDisabledException}; for
 * {@link BrokerOptions#disabledRecheckMillis()} after it, consumes of that queue wait out their
 * {@code maxWait} and fail again without asking the server, so no loop spins on a disabled queue.
 *
 * <p>Thread-safe.
 */
public final class BrokerReceiver {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerReceiver.class);
    /** Taken before every RECEIVE: a claim that only nacks or releases rolls back to it and commits. */
    public static final String SAVEPOINT = "sqlq_receive";

    private final DataSource ds;
    private final BrokerStatements sql;
    private final BrokerOptions options;
    private final BrokerSender sender;
    private final boolean history;
    private final AtomicLong tokens = new AtomicLong();
    private final Map<Long, BrokerClaim> claims = new ConcurrentHashMap<>();
    private final Map<QueueName, Disabled> disabled = new ConcurrentHashMap<>();

    private record Disabled(long untilNanos, QueueDisabledException error) {
    }

    /**
     * @param ds the pool connections are borrowed from
     * @param sql the statement texts of this prefix
     * @param options the backend's options
     * @param sender the sender that re-sends nacked and released messages
     * @param history whether acked and dead-lettered messages get a history row
     */
    public BrokerReceiver(DataSource ds, BrokerStatements sql, BrokerOptions options, BrokerSender sender, boolean history) {
        this.history = history;
        this.ds = ds;
        this.sql = sql;
        this.options = options;
        this.sender = sender;
    }

    /**
     * Open claims (transactions waiting for settlements).
     *
     * @return the number of claims whose transaction is still open, 0 or more
     */
    public int openClaims() {
        return claims.size();
    }

    /**
     * @param q the queue to claim from
     * @param request what to claim
     * @return 0..{@code request.maxMessages()} deliveries; empty when none came within the wait
     * @throws QueueDisabledException if the queue is disabled (error 9617)
     * @throws dev.sqlqueue.TransientBackendException on deadlock, lock time-out or connection loss
     */
    @SuppressWarnings("try") // the query-timeout scope is held for its close only, which restores the previous bound
    public List<Delivery> consume(QueueName q, ConsumeRequest request) {
        Disabled off = disabled.get(q);
        if (off != null) {
            long left = off.untilNanos - System.nanoTime();
            if (left > 0) {
                sleep(Math.min(request.maxWait().toMillis(), left / 1_000_000));
                throw off.error;
            }
            disabled.remove(q, off);
        }
        Connection c;
        try {
            c = ds.getConnection();
        } catch (SQLException e) {
            throw BrokerErrors.translate(e, "opening a connection to consume from queue '" + q + "'");
        }
        boolean auto = true;
        boolean handedOver = false;
        boolean open = false;
        try {
            auto = c.getAutoCommit();
            c.setAutoCommit(false);
            long deadline = System.nanoTime() + request.maxWait().toNanos();
            while (true) {
                long waitMs = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
                open = true;
                Savepoint beforeReceive = c.setSavepoint(SAVEPOINT);
                long leaseMs = request.lease().toMillis();
                List<Object[]> rows = receiveClaim(c, q, request.maxMessages(), waitMs, leaseMs);
                if (rows.isEmpty()) {
                    c.commit();
                    open = false;
                    return List.of();
                }
                long token = tokens.incrementAndGet();
                BrokerClaim claim = new BrokerClaim(token, q, c, beforeReceive, auto, sql, sender, history, () -> claims.remove(token));
                claim.boundSeconds = Sql.seconds(leaseMs);
                List<Delivery> out;
                try (Sql.Scope bound = Sql.bound("receiveHandling", Sql.seconds(leaseMs))) {
                    out = handle(c, q, rows, claim);
                }
                if (!out.isEmpty()) {
                    claims.put(token, claim);
                    handedOver = true;
                    return out;
                }
                c.commit();
                open = false;
                if (System.nanoTime() >= deadline) {
                    return List.of();
                }
            }
        } catch (SQLException e) {
            BrokerConnections.rollback(c, e);
            open = false;
            if (BrokerErrors.has(e, BrokerErrors.QUEUE_DISABLED)) {
                QueueDisabledException x = new QueueDisabledException("Service Broker queue "
                        + sql.names().qualified(sql.names().queue(q)) + " of sqlqueue queue '" + q
                        + "' is disabled (error 9617): nothing can be received until it is enabled again with ALTER QUEUE "
                        + sql.names().qualified(sql.names().queue(q)) + " WITH STATUS = ON, after removing the cause", e);
                disabled.put(q, new Disabled(System.nanoTime() + options.disabledRecheckMillis() * 1_000_000, x));
                LOG.error(x.getMessage());
                throw x;
            }
            throw BrokerErrors.translate(e, "receive from queue '" + q + "'");
        } finally {
            if (!handedOver) {
                if (open) {
                    // a runtime failure: undo the RECEIVE before restore() turns auto-commit back on,
                    // which would commit it
                    BrokerConnections.rollback(c, null);
                }
                BrokerConnections.restore(c, auto);
                BrokerConnections.close(c);
            }
        }
    }

    /**
     * One claim's messages, all of one conversation group (RECEIVE returns one group). A message group
     * travels on a dialog of its own, so a RECEIVE TOP (n) would hand one claim several consecutive
     * messages of one group, and a claim that acks one and nacks or releases another would re-send the
     * latter behind later messages of its group (M3). So the first RECEIVE takes one message; only a
     * message without a group (on a pooled dialog, which carries no grouped message) is followed by a
     * second RECEIVE for up to n - 1 more of the same conversation group, which the transaction holds.
     */
    @SuppressWarnings("try") // the query-timeout scope is held for its close only, which restores the previous bound
    private List<Object[]> receiveClaim(Connection c, QueueName q, int max, long waitMs, long leaseMs) throws SQLException {
        // issue 20: the WAITFOR ends by itself after waitMs, but a RECEIVE can wait on a lock past it; the
        // bound is the wait plus the lease
        List<Object[]> first;
        try (Sql.Scope bound = Sql.bound("receive", Sql.seconds(waitMs + leaseMs))) {
            first = Sql.query(c, sql.claims().receive(q), 1, (int) Math.min(waitMs, Integer.MAX_VALUE));
        }
        if (first.isEmpty() || max == 1 || !isUngroupedData(q, first.get(0))) {
            return first;
        }
        List<Object[]> rows = new ArrayList<>(first);
        try (Sql.Scope bound = Sql.bound("receiveMore", Sql.seconds(leaseMs))) {
            rows.addAll(Sql.query(c, sql.claims().receiveMore(q), max - 1, String.valueOf(first.get(0)[0])));
        }
        return rows;
    }

    private boolean isUngroupedData(QueueName q, Object[] row) {
        byte[] body = (byte[]) row[4];
        return String.valueOf(row[3]).equals(sql.names().messageType(q)) && body != null && body.length > 0
                && body[0] == Envelope.VERSION;
    }

    private List<Delivery> handle(Connection c, QueueName q, List<Object[]> rows, BrokerClaim claim) throws SQLException {
        Set<UUID> ended = new HashSet<>();
        List<Envelope> data = new ArrayList<>();
        String dataType = sql.names().messageType(q);
        String eosType = sql.names().endOfStreamType(q);
        for (Object[] r : rows) {
            UUID handle = Sql.asUuid(r[1]);
            String type = String.valueOf(r[3]);
            byte[] body = (byte[]) r[4];
            if (type.equals(dataType)) {
                try {
                    Envelope env = Envelope.decode(body);
                    HeaderCodec.decode(env.rawHeaders());
                    data.add(env);
                } catch (Envelope.UndecodableException | HeaderCodec.MalformedHeadersException e) {
                    deadLetterRaw(c, q, body, "undecodable message: " + e.getMessage());
                    claim.wroteOnReceive();
                }
            } else if (type.equals(eosType) || type.equals(BrokerStatements.END_DIALOG)) {
                end(c, handle, ended);
                claim.wroteOnReceive();
            } else if (type.equals(BrokerStatements.ERROR)) {
                String error = SystemMessages.describeError(body);
                LOG.warn("queue '{}': conversation {} reported an error ({}); dead-lettering what is left of it and ending our side",
                        q, handle, error);
                if (ended.add(handle)) {
                    deadLetterRest(c, q, handle, error);
                    Sql.update(c, sql.dialogs().endConversation(), handle.toString());
                }
                claim.wroteOnReceive();
            } else if (type.equals(BrokerStatements.DIALOG_TIMER)) {
                LOG.info("queue '{}': dialog timer fired on conversation {}; nothing is scheduled on it", q, handle);
            } else {
                deadLetterRaw(c, q, body, "unexpected message type '" + type + "'");
                claim.wroteOnReceive();
            }
        }
        if (data.isEmpty()) {
            return List.of();
        }
        long receivedMillis = history ? Sql.asLong(Sql.query(c, sql.claims().clockMillis()).get(0)[0]) : 0L;
        Map<Long, Integer> attempts = attempts(c, q, data);
        List<Delivery> out = new ArrayList<>();
        for (Envelope env : data) {
            int before = attempts.getOrDefault(env.messageId(), 0);
            if (before >= options.maxAttempts()) {
                String reason = "poison message: " + before + " attempts reached broker.maxAttempts = " + options.maxAttempts();
                deadLetter(c, q, env, before, reason);
                if (history) {
                    Sql.update(c, sql.deadLetters().insertHistory(), q.value(), env.messageId(), env.enqueuedMillis(), receivedMillis, before,
                            "dead-lettered", reason);
                }
                claim.wroteOnReceive();
                continue;
            }
            claim.add(env, before + 1, receivedMillis);
            Receipt receipt = new Receipt(q, env.messageId(), claim.token(), ClaimMode.TRANSACTIONAL);
            out.add(new Delivery(receipt, env.payload(), HeaderCodec.decode(env.rawHeaders()), before + 1, 0,
                    Instant.ofEpochMilli(env.enqueuedMillis()), env.group()));
        }
        return out;
    }

    /** Copies a decoded message to the dead-letter table and forgets its attempts and pending row. */
    private void deadLetter(Connection c, QueueName q, Envelope env, int attempts, String reason) throws SQLException {
        Sql.update(c, sql.deadLetters().insertDeadLetter(), q.value(), env.messageId(), env.payload(), env.rawHeaders(), attempts,
                clip(reason), env.enqueuedMillis(), orNull(env.group()));
        Sql.update(c, sql.claims().clearAttempts(), q.value(), env.messageId());
        if (env.group() != null) {
            Sql.update(c, sql.claims().groupSettled(), q.value(), env.messageId());
        }
    }

    /**
     * A conversation ended with an Error (for example its LIFETIME ran out): END CONVERSATION would
     * remove the messages still on it, so they are received and dead-lettered first.
     */
    private void deadLetterRest(Connection c, QueueName q, UUID handle, String error) throws SQLException {
        for (Object[] r : Sql.query(c, sql.claims().receiveRest(q), handle.toString())) {
            if (!String.valueOf(r[0]).equals(sql.names().messageType(q))) {
                continue;
            }
            byte[] body = (byte[]) r[1];
            String reason = "its conversation ended with an error before it was received: " + error;
            try {
                deadLetter(c, q, Envelope.decode(body), 0, reason);
            } catch (Envelope.UndecodableException e) {
                deadLetterRaw(c, q, body, reason);
            }
        }
    }

    private void end(Connection c, UUID handle, Set<UUID> ended) throws SQLException {
        if (ended.add(handle)) {
            Sql.update(c, sql.dialogs().endConversation(), handle.toString());
        }
    }

    private Map<Long, Integer> attempts(Connection c, QueueName q, List<Envelope> data) throws SQLException {
        Object[] params = new Object[data.size() + 1];
        params[0] = q.value();
        for (int i = 0; i < data.size(); i++) {
            params[i + 1] = data.get(i).messageId();
        }
        Map<Long, Integer> out = new HashMap<>();
        for (Object[] row : Sql.query(c, sql.claims().attemptsOf(data.size()), params)) {
            out.put(Sql.asLong(row[0]), (int) Sql.asLong(row[1]));
        }
        return out;
    }

    /** Copies a body that cannot be decoded, bytes intact; forgets a pending row under its id if it has one. */
    private void deadLetterRaw(Connection c, QueueName q, byte[] body, String reason) throws SQLException {
        LOG.warn("queue '{}': {}; moved to the dead-letter table", q, reason);
        long id = Envelope.idOrZero(body);
        Sql.update(c, sql.deadLetters().insertDeadLetter(), q.value(), id, body == null ? new byte[0] : body, "", 1,
                clip(reason), new Sql.Null(java.sql.Types.BIGINT), new Sql.Null(java.sql.Types.NVARCHAR));
        if (id != 0 && body[0] == Envelope.VERSION_GROUPED) {
            Sql.update(c, sql.claims().groupSettled(), q.value(), id);
        }
    }

    /** The text, or a typed NVARCHAR null. */
    static Object orNull(String s) {
        return s == null ? new Sql.Null(java.sql.Types.NVARCHAR) : s;
    }

    /** The claim that holds this receipt. @throws dev.sqlqueue.LeaseLostException if none does */
    BrokerClaim claim(Receipt r) {
        BrokerClaim c = claims.get(r.token());
        if (c == null) {
            throw BrokerClaim.gone(r.messageId(), r.token());
        }
        if (!c.queue().equals(r.queue())) {
            // issue 14: bad input, refused before anything runs; the claim stays open
            throw new dev.sqlqueue.InvalidInputException("receipt.queue", "the receipt names queue '" + r.queue().value()
                    + "' but message " + r.messageId() + " was claimed from queue '" + c.queue().value()
                    + "'; nothing was changed");
        }
        return c;
    }

    /** Rolls back every open claim (backend close). */
    public void abandonAll() {
        for (BrokerClaim c : List.copyOf(claims.values())) {
            c.abandon();
        }
    }

    static String clip(String s) {
        String t = s == null ? "" : s;
        return t.length() > 4000 ? t.substring(0, 4000) : t;
    }

    private static void sleep(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
