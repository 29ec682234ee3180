package dev.sqlqueue;

import java.time.Duration;

/**
 * How {@link QueueMover} moves a queue. Immutable.
 *
 * @param batch messages per step, 1..{@value QueueAdmin#MAX_MOVE_CLAIM} (and at most the source's
 *     {@link Capabilities#maxClaimBatch()} when it moves by claims): each step is one enqueue transaction on the
 *     target and one removal transaction on the source
 * @param lease how long a held message stays hidden on the source (1 ms..24 h): a mover that dies leaves its held
 *     messages hidden this long, unless a mover runs again (it takes them over at once); a consumer may take one
 *     after it, and the message is then on both databases (once on the target, by its deduplication key)
 * @param untilEmpty zero: stop at the first step that finds nothing to move; otherwise keep moving (producers may
 *     still write to the source) until nothing was found for this long (0..365 days)
 * @param deadLetterRefused false: refuse the move before anything moves when the target lacks a feature the source
 *     has (priority, message groups, delayed delivery, payload size); true: move anyway and dead-letter on the
 *     source each message the target refuses, with the reason
 * @param dryRun only check and count, move nothing
 * @param history also move the queue's history rows (with {@link Capability#MOVE_HISTORY} on both sides; else they
 *     stay on the source, noted in the report)
 */
public record MoveOptions(int batch, Duration lease, Duration untilEmpty, boolean deadLetterRefused, boolean dryRun,
                          boolean history) {
    /**
     * 100 per step, a 5-minute lease, stop when empty, refuse a target that lacks a feature, move for real, leave the
     * history on the source.
     *
     * @return the default options
     */
    public static MoveOptions defaults() {
        return new MoveOptions(100, Duration.ofMinutes(5), Duration.ZERO, false, false, false);
    }

    /**
     * Checks every component.
     *
     * @param batch messages per step, 1..{@value QueueAdmin#MAX_MOVE_CLAIM} (and at most the source's
     *     {@link Capabilities#maxClaimBatch()} when it moves by claims): each step is one enqueue transaction on the
     *     target and one removal transaction on the source
     * @param lease how long a held message stays hidden on the source (1 ms..24 h): a mover that dies leaves its held
     *     messages hidden this long, unless a mover runs again (it takes them over at once); a consumer may take one
     *     after it, and the message is then on both databases (once on the target, by its deduplication key)
     * @param untilEmpty zero: stop at the first step that finds nothing to move; otherwise keep moving (producers may
     *     still write to the source) until nothing was found for this long (0..365 days)
     * @param deadLetterRefused false: refuse the move before anything moves when the target lacks a feature the source
     *     has (priority, message groups, delayed delivery, payload size); true: move anyway and dead-letter on the
     *     source each message the target refuses, with the reason
     * @param dryRun only check and count, move nothing
     * @param history also move the queue's history rows
     * @throws InvalidInputException naming the rule broken: {@code move.batch}, {@code consume.lease} or
     *     {@code move.until-empty}
     */
    public MoveOptions {
        if (batch < 1 || batch > QueueAdmin.MAX_MOVE_CLAIM) {
            throw new InvalidInputException("move.batch", "batch must be 1.." + QueueAdmin.MAX_MOVE_CLAIM + ", was " + batch);
        }
        ConsumeRequest.checkLease(lease);
        if (untilEmpty == null || untilEmpty.isNegative() || untilEmpty.compareTo(Message.MAX_DELAY) > 0) {
            throw new InvalidInputException("move.until-empty", "until-empty must be 0..365 days, was " + untilEmpty);
        }
    }

    /**
     * With this many messages per step.
     *
     * @param n 1..{@value QueueAdmin#MAX_MOVE_CLAIM}
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code move.batch}) outside 1..{@value QueueAdmin#MAX_MOVE_CLAIM}
     */
    public MoveOptions withBatch(int n) {
        return new MoveOptions(n, lease, untilEmpty, deadLetterRefused, dryRun, history);
    }

    /**
     * With this lease for held messages.
     *
     * @param l how long a held message stays hidden on the source, 1 ms..24 h
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code consume.lease}) for null or outside 1 ms..24 h
     */
    public MoveOptions withLease(Duration l) {
        return new MoveOptions(batch, l, untilEmpty, deadLetterRefused, dryRun, history);
    }

    /**
     * With this wait for more messages before stopping.
     *
     * @param d zero to stop at the first empty step, else how long nothing must be found, up to 365 days
     * @return a copy with this setting
     * @throws InvalidInputException (rule {@code move.until-empty}) for null, negative or over 365 days
     */
    public MoveOptions withUntilEmpty(Duration d) {
        return new MoveOptions(batch, lease, d, deadLetterRefused, dryRun, history);
    }

    /**
     * With or without dead-lettering what the target refuses.
     *
     * @param on true to move anyway and dead-letter on the source each message the target refuses
     * @return a copy with this setting
     */
    public MoveOptions withDeadLetterRefused(boolean on) {
        return new MoveOptions(batch, lease, untilEmpty, on, dryRun, history);
    }

    /**
     * With or without moving for real.
     *
     * @param on true to only check and count
     * @return a copy with this setting
     */
    public MoveOptions withDryRun(boolean on) {
        return new MoveOptions(batch, lease, untilEmpty, deadLetterRefused, on, history);
    }

    /**
     * With or without the history.
     *
     * @param on true to move the queue's history rows too
     * @return a copy with this setting
     */
    public MoveOptions withHistory(boolean on) {
        return new MoveOptions(batch, lease, untilEmpty, deadLetterRefused, dryRun, on);
    }
}
