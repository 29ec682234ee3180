package dev.sqlqueue.teradata;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One open transactional claim: the session whose transaction consumed the rows, the rows not yet
 * settled, and the outcomes recorded so far. The outcomes are written when the last delivery is settled,
 * just before COMMIT, so the transaction holds locks on new rows for as short a time as possible.
 * Guarded by its own monitor.
 */
final class Claim {
    /** What was decided for one delivery. */
    enum Kind { ACK, NACK, DEAD_LETTER, RELEASE }

    /** One decision: the row and the error or reason (null for ack and release). */
    record Outcome(Kind kind, Consumed row, String text) {
    }

    final long token;
    final TeradataNames names;
    final Sessions.Session session;
    private final Map<Long, Consumed> pending = new LinkedHashMap<>();
    private final List<Outcome> outcomes = new ArrayList<>();
    private final List<Consumed> malformed;
    /** Set once the transaction was committed, rolled back or abandoned; guarded by this. */
    boolean ended;

    /** When the claim's lease ends ({@link System#nanoTime}): bounds its outcome writes (issue 20). */
    final long deadlineNanos;

    Claim(long token, TeradataNames names, Sessions.Session session, List<Consumed> rows, List<Consumed> malformed,
          long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
        this.token = token;
        this.names = names;
        this.session = session;
        rows.forEach(r -> pending.put(r.id(), r));
        this.malformed = List.copyOf(malformed);
    }

    /** The row of a delivery not yet settled, or null. */
    Consumed pending(long id) {
        return pending.get(id);
    }

    void record(Kind kind, long id, String text) {
        outcomes.add(new Outcome(kind, pending.remove(id), text));
    }

    boolean settled() {
        return pending.isEmpty();
    }

    /** True when nothing needs writing: every delivery was released and no malformed row was met. */
    boolean onlyReleased() {
        return malformed.isEmpty() && outcomes.stream().allMatch(o -> o.kind() == Kind.RELEASE);
    }

    List<Outcome> outcomes() {
        return outcomes;
    }

    List<Consumed> malformed() {
        return malformed;
    }

    int pendingCount() {
        return pending.size();
    }
}
