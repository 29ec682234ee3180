package dev.sqlqueue;

/**
 * What an enqueue with a {@link Message#deduplicationKey() deduplication key} did.
 *
 * @param id the message's id (64-bit, assigned by the database): the new message's, or, for a
 *     duplicate, the id of the first message enqueued with the same key within the queue's window
 *     ({@link QueueConfig#deduplicationWindow()}); that message may since have been processed
 * @param duplicate true when the key was seen within the window and nothing was enqueued
 */
public record EnqueueResult(long id, boolean duplicate) {
}
