package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.H1;
import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.model.TableSpec;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Requeue of dead letters (re-review N12) on the model with the dead-letter table kept: selected by id
 * when ids are given, otherwise page by page, at most {@value DeadLetterStore#PAGE} per transaction; each
 * message is sent again with its id and enqueue time and its dead-letter row deleted in that transaction.
 */
class DeadLetterRequeueTest {
    private static final LocalDateTime ENQUEUED = LocalDateTime.of(1970, 1, 1, 0, 0, 1, 500_000_000);

    private static TableSpec dead(Fixture f) {
        return f.jdbc.track(f.sql.names().deadTable(), "dead_id");
    }

    private static void row(TableSpec t, long deadId, long messageId, String queue, String group) {
        t.row("dead_id", deadId, "queue_name", queue, "message_id", messageId, "payload", new byte[] {(byte) messageId},
                "headers", "", "attempts", 1L, "reason", "x", "enqueued_at", ENQUEUED, "dead_at", ENQUEUED, "group_key", group);
    }

    private static List<Object> deadIds(Fixture f) {
        return f.jdbc.committedRows(f.sql.names().deadTable()).stream().map(r -> r.get("dead_id")).toList();
    }

    @Test
    void requeueOfSomeIdsSelectsThoseIdsOnly() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        TableSpec t = dead(f);
        for (long i = 1; i <= 1000; i++) {
            row(t, i, 100 + i, "jobs", null);
        }
        row(t, 2000, 103, "other", null);
        f.broker.nextDialogs(H1);
        assertEquals(2, f.backend().requeueDeadLetters(Q, List.of(103L, 800L)));
        List<String> selects = f.jdbc.logContaining("exec " + f.sql.deadLetters().deadLettersByIds(2));
        assertEquals(1, selects.size());
        assertTrue(selects.get(0).endsWith(" <-- [jobs, 103, 800]"), selects.get(0));
        byte[] body = new Envelope(103L, 1500L, "", new byte[] {(byte) 103}).encode();
        assertTrue(f.jdbc.logContaining("exec " + f.sql.sending().resend(Q)).get(0).endsWith(", bytes" + java.util.Arrays.toString(body) + "]"),
                "same id and enqueue time");
        assertEquals(999, deadIds(f).size(), "998 of jobs and the other queue's");
        assertTrue(deadIds(f).contains(2000L) && !deadIds(f).contains(3L) && !deadIds(f).contains(700L));
        assertTrue(f.jdbc.logContaining(f.sql.deadLetters().listDeadLetters()).isEmpty(), "nothing lists the whole table");
    }

    @Test
    void requeueOfEverythingGoesPageByPageOneTransactionEach() {
        Fixture f = new Fixture("broker.dialogPoolSize", "1");
        TableSpec t = dead(f);
        for (long i = 1; i <= 1200; i++) {
            row(t, i, 100 + i, "jobs", i == 5 ? "order-9" : null);
        }
        f.jdbc.labelled(f.sql.deadLetters().lastDeadId(), List.of("last_id"), new Object[] {1200L});
        f.broker.nextDialogs(H1);
        assertEquals(1200, f.backend().requeueDeadLetters(Q, List.of()));
        assertEquals(List.of(), deadIds(f));
        List<String> pages = f.jdbc.logContaining("exec " + f.sql.deadLetters().deadLetterPage());
        assertEquals(3, pages.size(), "500 + 500 + 200");
        assertTrue(pages.get(1).endsWith(" <-- [500, jobs, 500, 1200]"), pages.get(1));
        assertEquals(3, f.jdbc.logContaining(" commit").size(), "one transaction per page");
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.sending().resendGrouped(Q)).size(), "a group's message on its group's dialog");
        assertEquals(1199, f.jdbc.logContaining("exec " + f.sql.sending().resend(Q)).size());
    }
}
