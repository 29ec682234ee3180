package dev.sqlqueue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Moves a queue's messages from one database to another (issue 35: outgrowing the embedded default), exactly once
 * and resumable, through the public ports only, while producers and consumers may keep running on both.
 *
 * <p>Each step holds a batch on the source ({@link QueueAdmin#claimForMove}: ready and delayed messages, hidden from
 * the source's consumers for the lease), enqueues it on the target in one transaction, each message with the
 * deduplication key {@code move:<source identity>:<message id>} ({@link Producer#enqueueAllDeduplicated}), then
 * removes it from the source in a second transaction ({@link Acknowledger#ackAll}). Payload bytes, headers,
 * priority, group and the remaining delay are kept; order within a group is kept (a group's messages move oldest
 * first, each only once no older one is left on the source). A crash between the two transactions leaves the
 * message on both, once on the target; the next run holds it again at once (it takes over the holds of a dead
 * mover), finds its key on the target and only removes it from the source. The key is kept on the target for the
 * target config's {@link QueueConfig#deduplicationWindow()} ({@link #open} makes it 30 days at least), so run the
 * move again within that window and within the lease.
 *
 * <p>Attempts: a target with {@link Capability#MOVE_ENQUEUE} (H2, PostgreSQL, MariaDB) takes each message with the
 * attempts it had on the source ({@link QueueAdmin#enqueueMoved}), so its next delivery there counts one more; another
 * target counts from 0 (the report notes it).
 *
 * <p>Settings: a source queue that is paused ({@link QueueAdmin#pause}) makes the target's queue paused before any
 * message arrives there (where the target has {@link Capability#PAUSE}; the report notes either way).
 *
 * <p>A source without {@link Capability#MOVE_CLAIM} (Service Broker, Teradata) is moved by
 * ordinary claims, transactional where offered, else under a lease: ready messages only, attempts raised by the
 * claim taken back; delayed ones are left and counted.
 *
 * <p>Dead letters move once no message is left to move, the same way: the oldest are read
 * ({@link QueueAdmin#deadLetters}), written to the target's dead letters with their payload, headers, group, attempts
 * and reason under the same key form ({@link QueueAdmin#enqueueMoved}, one transaction), then deleted from the source
 * ({@link QueueAdmin#deleteDeadLetters}, a second one). They stay on the source, counted with the reason, when the
 * target lacks {@link Capability#MOVE_ENQUEUE}, the source cannot delete single dead letters, or the target refuses one.
 * Their priority arrives as 0 ({@link DeadLetter} carries none), their times are the move's.
 *
 * <p>The producers' deduplication keys still in their window move last ({@link QueueAdmin#deduplicationKeys} on the
 * source, {@link QueueAdmin#enqueueMovedKeys} on the target, both with {@link Capability#MOVE_KEYS}), each for the rest
 * of its window and bound to the moved message, so a producer that enqueues one of them again on the target is
 * deduplicated. Keys taken on the source after that pass are not moved; a key the target holds already stays as it is.
 *
 * <p>History rows move with {@link MoveOptions#history()}, once no message and no dead letter is left to move, oldest
 * first: a page of the source's rows ({@link QueueAdmin#historyForMove}, by history id) is written to the target's
 * history in one transaction ({@link QueueAdmin#enqueueMovedHistory}), each row with its message id (the source's),
 * enqueue, start and end times, attempts, outcome and detail, then deleted from the source in a second one
 * ({@link QueueAdmin#deleteHistory}): a move leaves nothing behind, as for messages and dead letters. Exactly once
 * without a marker: the target writes a row only when its queue has no row of the same message id, start, end and
 * outcome, so a run again after a crash between the two transactions finds the rows there, writes none of them twice
 * and only deletes them from the source; a crash before the first leaves them on the source only. No window applies,
 * unlike the keys. Both sides need {@link Capability#MOVE_HISTORY} (H2, PostgreSQL, MariaDB); otherwise the history
 * stays on the source and the report notes it. Without the option the history stays on the source.
 *
 * <p>Messages under a
 * consumer's lease are moved when their lease ends (with {@link MoveOptions#untilEmpty()}), else left and counted.
 *
 * <p>Not thread-safe; run one mover per queue at a time.
 */
public final class QueueMover implements AutoCloseable {
    /** The shortest deduplication window {@link #open} gives the target: 30 days. */
    public static final Duration MIN_TARGET_WINDOW = Duration.ofDays(30);

    /** Called after each step, with the report so far. */
    @FunctionalInterface
    public interface Listener {
        /**
         * Receives the report after each step.
         *
         * @param soFar what has moved, been refused and been skipped so far
         */
        void progress(MoveReport soFar);
    }

    private final QueueClient source;
    private final QueueClient target;
    private final String sourceIdentity;
    private final boolean owns;
    private volatile boolean stop;

    /**
     * A mover between two open clients; closing it closes neither.
     *
     * @param source the client of the database messages move from
     * @param target the client of the database messages move to
     * @param sourceIdentity names the source database and table prefix in the deduplication keys (1..40 characters of
     *     {@code [A-Za-z0-9._-]}); a run that resumes another must give the same ({@link #sourceIdentity(QueueConfig)})
     * @throws InvalidInputException (rule {@code move.source-identity}) for a bad identity
     */
    public QueueMover(QueueClient source, QueueClient target, String sourceIdentity) {
        this(source, target, sourceIdentity, false);
    }

    private QueueMover(QueueClient source, QueueClient target, String sourceIdentity, boolean owns) {
        this.source = Objects.requireNonNull(source, "source");
        this.target = Objects.requireNonNull(target, "target");
        if (sourceIdentity == null || !sourceIdentity.matches("[A-Za-z0-9._-]{1,40}")) {
            throw new InvalidInputException("move.source-identity", "the source identity must be 1..40 characters of"
                    + " [A-Za-z0-9._-], was " + sourceIdentity);
        }
        this.sourceIdentity = sourceIdentity;
        this.owns = owns;
    }

    /**
     * Opens both databases for a move: the source without history (a moved message is not processed there), the
     * target with a deduplication window of at least {@link #MIN_TARGET_WINDOW}. The mover closes them.
     *
     * @param from the source database's config
     * @param to the target database's config
     * @return the mover, owning both clients: closing it closes them
     * @throws InvalidInputException (rule {@code move.same-database}) when both configs name the same URL and table
     *     prefix; as {@link SqlQueue#open} otherwise
     */
    public static QueueMover open(QueueConfig from, QueueConfig to) {
        if (from.url() != null && to.url() != null && normalUrl(from.url()).equals(normalUrl(to.url()))
                && from.tablePrefix().equals(to.tablePrefix())) {
            throw new InvalidInputException("move.same-database", "source and target are the same database and table prefix ("
                    + normalUrl(from.url()) + ", prefix " + from.tablePrefix() + "); nothing to move");
        }
        QueueConfig targetConfig = to.deduplicationWindow().compareTo(MIN_TARGET_WINDOW) >= 0 ? to
                : to.toBuilder().deduplicationWindow(MIN_TARGET_WINDOW).build();
        SqlQueue s = SqlQueue.open(from.toBuilder().history(false).build());
        try {
            SqlQueue t = SqlQueue.open(targetConfig);
            return new QueueMover(s, t, sourceIdentity(from), true);
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * A stable name of the config's database and table prefix: 16 hex digits of the SHA-256 of the URL without its
     * credentials and the prefix. The same URL written the same way gives the same identity in every run.
     *
     * @param config the source's config, with a URL
     * @return 16 lower-case hex digits
     * @throws InvalidInputException (rule {@code move.source-identity}) for a config without a URL (a caller's
     *     {@code DataSource}): give the identity to {@link #QueueMover(QueueClient, QueueClient, String)}
     */
    public static String sourceIdentity(QueueConfig config) {
        if (config.url() == null) {
            throw new InvalidInputException("move.source-identity", "a source given by a DataSource has no URL to name it"
                    + " by; pass a source identity of your own");
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest((normalUrl(config.url()) + "|" + config.tablePrefix())
                    .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The URL without user and password settings (query parameters, H2 and SQL Server {@code ;} settings). */
    static String normalUrl(String url) {
        String s = url.trim();
        s = s.replaceAll("(?i)([?&;])(user|password)=[^&;]*", "$1");
        s = s.replaceAll("[?&;]+$", "").replaceAll("\\?&+", "?").replaceAll("&&+", "&").replaceAll(";;+", ";");
        return s;
    }

    /**
     * Ends a running {@link #move} after the step in progress (both of its transactions), from any thread: nothing is
     * left held on the source, and the same move run again goes on. Later moves by this mover return at once.
     */
    public void stop() {
        stop = true;
    }

    /**
     * Whether {@link #stop()} was called.
     *
     * @return true once {@link #stop()} was called
     */
    public boolean stopped() {
        return stop;
    }

    /**
     * The source client (for its queues and statistics).
     *
     * @return the source client
     */
    public QueueClient source() {
        return source;
    }

    /**
     * The target client.
     *
     * @return the target client
     */
    public QueueClient target() {
        return target;
    }

    /**
     * The deduplication key of source message {@code id} on the target.
     *
     * @param id the message's id on the source
     * @return {@code move:}, the source identity, {@code :} and the id
     */
    public String keyOf(long id) {
        return "move:" + sourceIdentity + ":" + id;
    }

    /**
     * Checks that {@code queue} can be moved, before anything moves.
     *
     * @param queue the queue to move
     * @param options the options the move will run with
     * @throws InvalidInputException (rule {@code move.queue-missing}) when the source has no such queue; (rule
     *     {@code move.target-deduplication}) when the target lacks {@link Capability#DEDUPLICATION}; (rule
     *     {@code move.target-capability}) when the target lacks priority, message groups, delayed delivery or the
     *     source's payload size and {@link MoveOptions#deadLetterRefused()} is off
     */
    public void check(QueueName queue, MoveOptions options) {
        if (!source.queues().contains(queue)) {
            throw new InvalidInputException("move.queue-missing", "the source has no queue '" + queue.value() + "'");
        }
        Capabilities t = target.capabilities();
        if (!t.has(Capability.DEDUPLICATION)) {
            throw new InvalidInputException("move.target-deduplication", "target backend '" + t.backend()
                    + "' has no deduplication keys, which a move needs to be exactly once");
        }
        if (!options.deadLetterRefused()) {
            List<String> lacks = targetLacks();
            if (!lacks.isEmpty()) {
                throw new InvalidInputException("move.target-capability", "target backend '" + t.backend() + "' lacks "
                        + String.join(", ", lacks) + " that the source '" + source.capabilities().backend()
                        + "' offers, so a message may be refused; move with dead-lettering of refused messages on the"
                        + " source to go on");
            }
        }
    }

    private List<String> targetLacks() {
        Capabilities s = source.capabilities();
        Capabilities t = target.capabilities();
        List<String> lacks = new ArrayList<>();
        for (Capability c : EnumSet.of(Capability.PRIORITY, Capability.MESSAGE_GROUPS, Capability.DELAYED_DELIVERY)) {
            if (s.has(c) && !t.has(c)) {
                lacks.add(c.describe());
            }
        }
        if (t.maxPayloadBytes() < s.maxPayloadBytes()) {
            lacks.add("payloads over " + t.maxPayloadBytes() + " bytes");
        }
        return lacks;
    }

    /**
     * Moves {@code queue} (created on the target if missing) as the class describes, after {@link #check}.
     *
     * @param queue the queue to move
     * @param options batch size, lease, and what to do with what the target refuses
     * @param listener called after each step, may be null
     * @return what was moved and what was left; in a dry run, what would move (as {@code moved}) and what would be left
     * @throws InvalidInputException as {@link #check}, nothing moved
     * @throws SqlQueueException when a database fails; what moved so far stays moved, held messages come back when
     *     their lease ends or at the next run
     */
    public MoveReport move(QueueName queue, MoveOptions options, Listener listener) {
        check(queue, options);
        Listener l = listener == null ? r -> { } : listener;
        if (options.dryRun()) {
            return dryRun(queue, options);
        }
        target.createQueue(queue);
        Counts n = new Counts();
        n.pauseNote = copyPause(queue);
        boolean byMoveClaim = source.capabilities().has(Capability.MOVE_CLAIM);
        long emptySince = 0;
        while (!stop && !Thread.currentThread().isInterrupted()) {
            int got = byMoveClaim ? stepByMoveClaim(queue, options, n) : stepByClaim(queue, options, n);
            if (got == 0) {
                got = stepDeadLetters(queue, options, n);
            }
            if (got == 0 && options.history()) {
                got = stepHistory(queue, options, n);
            }
            if (got > 0) {
                emptySince = 0;
                l.progress(new MoveReport(queue, n.moved, n.already, n.refused, 0, 0, 0, n.deadMoved, 0, n.historyMoved, List.of()));
                continue;
            }
            if (options.untilEmpty().isZero()) {
                break;
            }
            long now = System.nanoTime();
            if (emptySince == 0) {
                emptySince = now;
            } else if (now - emptySince >= options.untilEmpty().toNanos()) {
                break;
            }
            try {
                Thread.sleep(Math.min(200, Math.max(1, options.untilEmpty().toMillis() / 4)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!stop) {
            moveKeys(queue, options, n);
        }
        MoveReport r = report(queue, n);
        l.progress(r);
        return r;
    }

    private static final class Counts {
        /** What became of the source queue's pause, or null when it is not paused. */
        String pauseNote;
        long moved;
        long already;
        long refused;
        long deadMoved;
        long keysMoved;
        /** Why the producers' keys stay on the source, or null. */
        String keysStay;
        /** Dead letters the target refused: they stay on the source, and later steps pass them by. */
        final Set<Long> deadRefused = new java.util.HashSet<>();
        /** Why dead letters stay on the source, or null while they move. */
        String deadStay;
        long historyMoved;
        /** Why the history stays on the source, or null while it moves. */
        String historyStay;
    }

    /**
     * The queue's settings (issue 35): a paused source queue ({@link QueueAdmin#pause}) makes the target's queue paused
     * too, before any message arrives there, so that the target's consumers do not take them until someone resumes it.
     * Returns what to say about it, or null when the source queue is not paused.
     */
    private String copyPause(QueueName queue) {
        if (!source.capabilities().has(Capability.PAUSE) || !source.isPaused(queue)) {
            return null;
        }
        if (!target.capabilities().has(Capability.PAUSE)) {
            return "the source queue is paused, and the target '" + target.capabilities().backend()
                    + "' cannot pause a queue: its consumers take the moved messages";
        }
        target.pause(queue);
        return "the source queue is paused, so the target's is paused too: resume it there when ready";
    }

    private MoveReport dryRun(QueueName queue, MoveOptions options) {
        QueueStats s = source.stats(queue);
        boolean all = source.capabilities().has(Capability.MOVE_CLAIM);
        List<String> notes = new ArrayList<>();
        if (source.capabilities().has(Capability.PAUSE) && source.isPaused(queue)) {
            notes.add(target.capabilities().has(Capability.PAUSE)
                    ? "the source queue is paused: the target's would be paused too"
                    : "the source queue is paused, and the target cannot pause a queue");
        }
        for (String lack : targetLacks()) {
            notes.add("target lacks " + lack + ": messages using it would be dead-lettered on the source");
        }
        String deadStay = deadLettersStay(queue);
        if (deadStay != null && s.dead() > 0) {
            notes.add(s.dead() + " dead letter(s) would stay on the source: " + deadStay);
        }
        String historyStay = options.history() ? historyStays() : null;
        if (historyStay != null && s.processed() > 0) {
            notes.add(s.processed() + " history row(s) would stay on the source: " + historyStay);
        }
        MoveReport r = new MoveReport(queue, s.ready() + (all ? s.delayed() : 0), 0, 0, s.inFlight(), all ? 0 : s.delayed(),
                deadStay == null ? 0 : s.dead(), deadStay == null ? s.dead() : 0, 0,
                options.history() && historyStay == null ? s.processed() : 0, notes);
        return withNotes(r, notes);
    }

    private MoveReport report(QueueName queue, Counts n) {
        QueueStats s = source.stats(queue);
        boolean all = source.capabilities().has(Capability.MOVE_CLAIM);
        List<String> notes = new ArrayList<>();
        if (n.pauseNote != null) {
            notes.add(n.pauseNote);
        }
        if (n.moved > 0 && !target.capabilities().has(Capability.MOVE_ENQUEUE)) {
            notes.add("the target '" + target.capabilities().backend() + "' counts the moved messages' attempts from 0 ("
                    + Capability.MOVE_ENQUEUE.describe() + " is not offered)");
        }
        if (n.keysStay != null) {
            notes.add(n.keysStay);
        }
        if (s.dead() > 0) {
            notes.add(s.dead() + " dead letter(s) were left on the source: " + (n.deadStay != null ? n.deadStay
                    : !n.deadRefused.isEmpty() ? n.deadRefused.size() + " refused by the target (payload size or message group)"
                    : "dead-lettered on the source while the move ran; run again to move them"));
        }
        if (n.historyStay != null && s.processed() > 0) {
            notes.add(s.processed() + " history row(s) were left on the source: " + n.historyStay);
        }
        return withNotes(new MoveReport(queue, n.moved, n.already, n.refused, s.inFlight(), all ? 0 : s.delayed(), s.dead(),
                n.deadMoved, n.keysMoved, n.historyMoved, notes), notes);
    }

    private static MoveReport withNotes(MoveReport r, List<String> notes) {
        List<String> all = new ArrayList<>(notes);
        if (r.leftInFlight() > 0) {
            all.add(r.leftInFlight() + " message(s) under a consumer's lease on the source were left; run again"
                    + " (or with until-empty) to move them when their lease ends");
        }
        if (r.leftDelayed() > 0) {
            all.add(r.leftDelayed() + " delayed message(s) were left: the source backend cannot hold them for a move");
        }
        return new MoveReport(r.queue(), r.moved(), r.alreadyOnTarget(), r.refused(), r.leftInFlight(), r.leftDelayed(),
                r.deadLettersLeft(), r.deadLettersMoved(),
                r.deduplicationKeysMoved(), r.historyMoved(), all);
    }

    /** One step by {@link QueueAdmin#claimForMove}; returns how many messages it held. */
    private int stepByMoveClaim(QueueName queue, MoveOptions o, Counts n) {
        List<HeldForMove> held = source.claimForMove(queue, o.batch(), o.lease());
        List<HeldForMove> go = new ArrayList<>(held.size());
        List<MovedMessage> messages = new ArrayList<>(held.size());
        for (HeldForMove h : held) {
            String refusal = refusal(h.payload().length, h.priority(), h.group(), h.remainingDelay());
            if (refusal != null) {
                refuse(h.receipt(), refusal, o, n);
                continue;
            }
            go.add(h);
            messages.add(new MovedMessage(message(h.id(), h.payload(), h.headers(), h.priority(), h.group(),
                    h.remainingDelay()), h.attempts(), null));
        }
        settle(queue, go.stream().map(HeldForMove::receipt).toList(), messages, o, n);
        return held.size();
    }

    /**
     * Why the queue's dead letters cannot move, or null when they can: the target must have
     * {@link Capability#MOVE_ENQUEUE}, and the source must delete single dead letters
     * ({@link QueueAdmin#deleteDeadLetters}; asked with an id no dead letter has, which deletes nothing).
     */
    private String deadLettersStay(QueueName queue) {
        if (!target.capabilities().has(Capability.MOVE_ENQUEUE)) {
            return "the target '" + target.capabilities().backend() + "' cannot take dead letters ("
                    + Capability.MOVE_ENQUEUE.describe() + ")";
        }
        try {
            source.deleteDeadLetters(queue, List.of(-1L));
            return null;
        } catch (TransientBackendException e) {
            throw e;
        } catch (SqlQueueException e) {
            return "the source '" + source.capabilities().backend() + "' cannot delete single dead letters, so a moved one"
                    + " would stay there too";
        }
    }

    /**
     * One step of dead letters, once no message is left to move: the oldest ones are written to the target's dead
     * letters ({@link QueueAdmin#enqueueMoved}, one transaction, each under its key), then deleted from the source
     * (a second one). A crash between the two leaves them on both, once on the target; the next run finds their keys
     * there and only deletes them from the source. Returns how many it settled.
     */
    private int stepDeadLetters(QueueName queue, MoveOptions o, Counts n) {
        if (n.deadStay != null) {
            return 0;
        }
        List<DeadLetter> page = source.deadLetters(queue, o.batch() + n.deadRefused.size());
        page = page.stream().filter(d -> !n.deadRefused.contains(d.messageId())).limit(o.batch()).toList();
        if (page.isEmpty()) {
            return 0;
        }
        if (n.deadStay == null && (n.deadStay = deadLettersStay(queue)) != null) {
            return 0;
        }
        List<MovedMessage> go = new ArrayList<>(page.size());
        List<Long> ids = new ArrayList<>(page.size());
        for (DeadLetter d : page) {
            String refusal = refusal(d.payload().length, 0, d.group(), Duration.ZERO);
            if (refusal != null) {
                n.deadRefused.add(d.messageId());
                continue;
            }
            go.add(new MovedMessage(message(d.messageId(), d.payload(), d.headers(), 0, d.group(), Duration.ZERO),
                    d.attempts(), d.reason() == null ? "" : d.reason()));
            ids.add(d.messageId());
        }
        if (!go.isEmpty()) {
            try {
                target.enqueueMoved(queue, go);
            } catch (InvalidInputException e) {
                // one the target refuses: one by one, so that only that one stays
                List<Long> written = new ArrayList<>();
                for (int i = 0; i < go.size(); i++) {
                    try {
                        target.enqueueMoved(queue, List.of(go.get(i)));
                        written.add(ids.get(i));
                    } catch (InvalidInputException one) {
                        n.deadRefused.add(ids.get(i));
                    }
                }
                ids = written;
            }
            if (!ids.isEmpty()) {
                n.deadMoved += source.deleteDeadLetters(queue, ids);
            }
        }
        return page.size();
    }

    /** Why the history cannot move, or null when it can: both sides need {@link Capability#MOVE_HISTORY}. */
    private String historyStays() {
        for (QueueClient side : List.of(source, target)) {
            if (!side.capabilities().has(Capability.MOVE_HISTORY)) {
                return "the " + (side == source ? "source" : "target") + " '" + side.capabilities().backend() + "' lacks "
                        + Capability.MOVE_HISTORY.describe();
            }
        }
        return null;
    }

    /**
     * One step of history rows, once no message and no dead letter is left to move: the oldest rows
     * ({@link QueueAdmin#historyForMove}) are written to the target ({@link QueueAdmin#enqueueMovedHistory}, one
     * transaction; a row the target has already, from a run that died before its delete, is not written again), then
     * deleted from the source ({@link QueueAdmin#deleteHistory}, a second one). Returns how many rows it read.
     */
    private int stepHistory(QueueName queue, MoveOptions o, Counts n) {
        if (n.historyStay != null || (n.historyStay = historyStays()) != null) {
            return 0;
        }
        List<HistoryRow> page = source.historyForMove(queue, o.batch());
        if (page.isEmpty()) {
            return 0;
        }
        target.enqueueMovedHistory(queue, page.stream().map(HistoryRow::entry).toList());
        n.historyMoved += source.deleteHistory(queue, page.stream().map(HistoryRow::historyId).toList());
        return page.size();
    }

    /**
     * Copies the producers' deduplication keys still in their window, page by page, once nothing is left to move: each
     * bound on the target to the message moved under {@code move:<source>:<id>}, or to the source's id when that
     * message was processed on the source. A key the target holds already is left as it is, so a run again changes
     * nothing. Keys a producer takes on the source after this pass are not moved.
     */
    private void moveKeys(QueueName queue, MoveOptions o, Counts n) {
        if (!source.capabilities().has(Capability.MOVE_KEYS) || !target.capabilities().has(Capability.MOVE_KEYS)) {
            if (source.capabilities().has(Capability.DEDUPLICATION)) {
                n.keysStay = "the producers' deduplication keys stay on the source: "
                        + (source.capabilities().has(Capability.MOVE_KEYS) ? "the target '" + target.capabilities().backend()
                        : "the source '" + source.capabilities().backend()) + "' lacks " + Capability.MOVE_KEYS.describe();
            }
            return;
        }
        String after = null;
        while (!stop) {
            List<DeduplicationKey> page = source.deduplicationKeys(queue, after, o.batch());
            if (page.isEmpty()) {
                return;
            }
            n.keysMoved += target.enqueueMovedKeys(queue, page, "move:" + sourceIdentity + ":");
            after = page.get(page.size() - 1).key();
        }
    }

    /** One step by an ordinary claim (sources without {@link Capability#MOVE_CLAIM}); returns how many it claimed. */
    private int stepByClaim(QueueName queue, MoveOptions o, Counts n) {
        Capabilities s = source.capabilities();
        ClaimMode mode = s.supports(ClaimMode.TRANSACTIONAL) ? ClaimMode.TRANSACTIONAL : ClaimMode.LEASE;
        int max = Math.min(o.batch(), s.maxClaimBatch());
        List<Delivery> got = source.consume(queue, new ConsumeRequest(max, o.lease(), Duration.ZERO, mode));
        List<Receipt> go = new ArrayList<>(got.size());
        List<MovedMessage> messages = new ArrayList<>(got.size());
        for (Delivery d : got) {
            String refusal = refusal(d.payload().length, d.priority(), d.group(), Duration.ZERO);
            if (refusal != null) {
                refuse(d.receipt(), refusal, o, n);
                continue;
            }
            go.add(d.receipt());
            // the attempts it had before this claim, which counted one
            messages.add(new MovedMessage(message(d.id(), d.payload(), d.headers(), d.priority(), d.group(), Duration.ZERO),
                    Math.max(0, d.attempt() - 1), null));
        }
        settle(queue, go, messages, o, n);
        return got.size();
    }

    /**
     * Enqueue on the target (one transaction), then remove from the source (a second one). A target with
     * {@link Capability#MOVE_ENQUEUE} takes the attempts too; another counts them from 0.
     */
    private void settle(QueueName queue, List<Receipt> receipts, List<MovedMessage> messages, MoveOptions o, Counts n) {
        if (messages.isEmpty()) {
            return;
        }
        List<EnqueueResult> results;
        try {
            results = enqueue(queue, messages);
        } catch (InvalidInputException e) {
            // one message the target refuses: enqueue one by one, so that only that one is refused
            for (int i = 0; i < messages.size(); i++) {
                try {
                    EnqueueResult r = enqueue(queue, List.of(messages.get(i))).get(0);
                    ackOne(receipts.get(i), r.duplicate(), n);
                } catch (InvalidInputException one) {
                    refuse(receipts.get(i), one.getMessage(), o, n);
                }
            }
            return;
        }
        Set<Receipt> lost = source.ackAll(receipts);
        for (int i = 0; i < receipts.size(); i++) {
            if (lost.contains(receipts.get(i))) {
                continue; // another mover took it over: it is on the target, and that mover removes it
            }
            if (results.get(i).duplicate()) {
                n.already++;
            } else {
                n.moved++;
            }
        }
    }

    private List<EnqueueResult> enqueue(QueueName queue, List<MovedMessage> messages) {
        if (target.capabilities().has(Capability.MOVE_ENQUEUE)) {
            return target.enqueueMoved(queue, messages);
        }
        return target.enqueueAllDeduplicated(queue, messages.stream().map(MovedMessage::message).toList());
    }

    private void ackOne(Receipt r, boolean duplicate, Counts n) {
        if (source.ackAll(List.of(r)).isEmpty()) {
            if (duplicate) {
                n.already++;
            } else {
                n.moved++;
            }
        }
    }

    private void refuse(Receipt r, String reason, MoveOptions o, Counts n) {
        if (!o.deadLetterRefused()) {
            throw new InvalidInputException("move.target-refused", "the target refuses message " + r.messageId() + ": "
                    + reason + "; it stays on the source (visible again when its hold ends)");
        }
        source.deadLetter(r, "move to '" + target.capabilities().backend() + "' refused: " + reason);
        n.refused++;
    }

    /** Why the target refuses such a message, or null. */
    private String refusal(int payloadLength, int priority, String group, Duration delay) {
        Capabilities t = target.capabilities();
        if (payloadLength > t.maxPayloadBytes()) {
            return "payload of " + payloadLength + " bytes over the target's " + t.maxPayloadBytes() + " [rule: payload.max-size]";
        }
        if (priority != 0 && !t.has(Capability.PRIORITY)) {
            return t.whyAbsent(Capability.PRIORITY);
        }
        if (group != null && !t.has(Capability.MESSAGE_GROUPS)) {
            return t.whyAbsent(Capability.MESSAGE_GROUPS);
        }
        if (!delay.isZero() && !t.has(Capability.DELAYED_DELIVERY)) {
            return t.whyAbsent(Capability.DELAYED_DELIVERY);
        }
        return null;
    }

    private Message message(long id, byte[] payload, java.util.Map<String, String> headers, int priority, String group,
                            Duration delay) {
        Message.Builder b = Message.builder(payload).headers(headers).priority(priority).delay(delay)
                .deduplicationKey(keyOf(id));
        if (group != null) {
            b.group(group);
        }
        return b.build();
    }

    /** Closes both databases when {@link #open} opened them. */
    @Override
    public void close() {
        if (owns) {
            try {
                ((AutoCloseable) source).close();
                ((AutoCloseable) target).close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
