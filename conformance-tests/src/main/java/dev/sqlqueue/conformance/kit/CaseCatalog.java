package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.conformance.ConformanceSuite;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The suite's cases as the report names them: the ids that exist (read from the {@code @DisplayName}
 * of every {@code @Test} of {@link ConformanceSuite}, so a new case is known at once) and, for each,
 * one line saying what it checks (the long form is docs/conformance.md, "The cases").
 */
final class CaseCatalog {
    private static final Map<String, String> CHECKS = Map.ofEntries(
            Map.entry("C01", "enqueue, consume, ack: empty, all-byte and maximum-size payloads and unicode headers come back identical"),
            Map.entry("C02", "while one consumer holds a lease, no other consumer receives the message"),
            Map.entry("C03", "an unacked message comes back once after its lease as attempt 2; the late ack fails and removes nothing"),
            Map.entry("C04", "an extended lease keeps the message hidden past its first expiry"),
            Map.entry("C05", "a nacked message comes back no earlier than its delay, with the attempt count raised"),
            Map.entry("C06", "after the last attempt the message is dead-lettered with bytes and reason; requeue delivers it again"),
            Map.entry("C07", "a delayed message is invisible before its time and visible after"),
            Map.entry("C08", "of two visible messages the higher priority is consumed first"),
            Map.entry("C09", "one consumer receives 1,000 messages in enqueue order where the backend promises FIFO"),
            Map.entry("C10", "4 producers, 8 consumers, 20,000 messages: each acked exactly once, none lost, none duplicated"),
            Map.entry("C11", "claim(n) returns at most n distinct messages and changes no row it did not return"),
            Map.entry("C12", "a rolled-back or broken transactional claim puts the message back without counting an attempt"),
            Map.entry("C13", "a consumer killed mid-handler loses the message to another after the lease, once, as attempt 2"),
            Map.entry("C14", "an enqueue in the caller's transaction is invisible until commit and gone after rollback"),
            Map.entry("C15", "bad queue names, payloads and delays are refused with the rule named, and the store is unchanged"),
            Map.entry("C16", "rows with broken headers written by raw SQL are dead-lettered after one attempt, bytes intact"),
            Map.entry("C17", "the database goes down mid-run; consumer threads survive and everything is processed after recovery"),
            Map.entry("C18", "idle consumers stay within the statement budget and a new message still arrives in time"),
            Map.entry("C19", "depth, in flight, delayed, dead and oldest age are exact after a scripted sequence"),
            Map.entry("C20", "purge empties one queue only; drop removes its objects; other queues are untouched"),
            Map.entry("C21", "connections go back to the pool with the auto-commit and isolation they came with"),
            Map.entry("C22", "a message group is delivered one message at a time in enqueue order, other groups meanwhile"),
            Map.entry("C24", "8 threads enqueue 100 keys 10 times each: 100 messages, every enqueue of a key got the same id"),
            Map.entry("C25", "two transactions enqueue one key: both commit, one message; the first rolls back, the second's stands"),
            Map.entry("C26", "a key is free again after its window; keys are per queue and compared exactly"),
            Map.entry("C27", "ackAllAndConsume acks a batch and claims the next: lost leases reported, bad receipts refused, nothing lost"),
            Map.entry("C28", "no client consumes a paused queue while enqueues, acks and other queues go on; resume delivers what waited"));

    private CaseCatalog() {
    }

    /** Every case id of the suite, for example {@code C01}, sorted. */
    static Set<String> ids() {
        Set<String> ids = new TreeSet<>();
        for (Method m : KitLeaseSuite.class.getMethods()) {
            DisplayName name = m.getAnnotation(DisplayName.class);
            if (name != null && m.isAnnotationPresent(Test.class)) {
                ids.add(name.value().split(" ", 2)[0]);
            }
        }
        return ids;
    }

    /** One line saying what case {@code id} checks; its title when the catalog has no line for it. */
    static String checks(String id, String title) {
        return CHECKS.getOrDefault(id, title);
    }
}
