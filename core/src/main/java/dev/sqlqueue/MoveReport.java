package dev.sqlqueue;

import java.util.List;

/**
 * What {@link QueueMover#move} did to one queue (or, in a dry run, would do).
 *
 * @param queue the queue
 * @param moved messages enqueued on the target and removed from the source by this run
 * @param alreadyOnTarget messages found on the target already (by their deduplication key: an earlier run died
 *     between the two transactions) and removed from the source by this run
 * @param refused messages the target refused, dead-lettered on the source with the reason
 * @param leftInFlight messages left on the source under a consumer's lease when the run ended
 * @param leftDelayed messages left on the source because the source cannot hold them for a move (backends without
 *     {@link Capability#MOVE_CLAIM} move ready messages only)
 * @param deadLettersLeft the queue's dead letters left on the source when the run ended
 * @param deadLettersMoved dead letters written to the target's dead letters (or found there already, from an earlier
 *     run) and removed from the source by this run
 * @param deduplicationKeysMoved producers' deduplication keys still in their window on the source, written to the
 *     target by this run (a key the target holds already is kept as it is and not counted)
 * @param historyMoved history rows deleted from the source by this run, each on the target once (written by this run
 *     or by an earlier one that died before the delete); in a dry run, the source's history rows that would move
 * @param notes what was left or refused, for people, one line each
 */
public record MoveReport(QueueName queue, long moved, long alreadyOnTarget, long refused, long leftInFlight,
                         long leftDelayed, long deadLettersLeft, long deadLettersMoved,
                         long deduplicationKeysMoved, long historyMoved, List<String> notes) {
    /**
     * Copies the notes.
     *
     * @param queue the queue
     * @param moved messages enqueued on the target and removed from the source by this run
     * @param alreadyOnTarget messages found on the target already (by their deduplication key: an earlier run died
     *     between the two transactions) and removed from the source by this run
     * @param refused messages the target refused, dead-lettered on the source with the reason
     * @param leftInFlight messages left on the source under a consumer's lease when the run ended
     * @param leftDelayed messages left on the source because the source cannot hold them for a move (backends without
     *     {@link Capability#MOVE_CLAIM} move ready messages only)
     * @param deadLettersLeft the queue's dead letters left on the source when the run ended
     * @param deadLettersMoved dead letters written to the target's dead letters (or found there already) and removed
     *     from the source by this run
     * @param deduplicationKeysMoved producers' deduplication keys written to the target by this run
     * @param historyMoved history rows deleted from the source by this run, each on the target once
     * @param notes what was left or refused, for people, one line each
     * @throws NullPointerException if {@code notes} is null
     */
    public MoveReport {
        notes = List.copyOf(notes);
    }
}
