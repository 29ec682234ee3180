package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.HistoryRetention;
import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.sqlserver.model.TableSpec;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * History pruning (re-review N3) on the model with the history table kept: batches of at most 500 rows,
 * each its own transaction, from a cutoff read once; the rows that stay are the ones the retention keeps.
 */
class BrokerHistoryTest {
    private static TableSpec history(Fixture f) {
        return f.jdbc.track(f.sql.names().historyTable(), "history_id").index("ix_finished", "queue_name", "finished_at");
    }

    private static List<Object> ids(Fixture f, String queue) {
        return f.jdbc.committedRows(f.sql.names().historyTable()).stream().filter(r -> r.get("queue_name").equals(queue))
                .map(r -> r.get("history_id")).toList();
    }

    @Test
    void pruneByAgeDeletesBatchesOfAtMost500EachInItsOwnTransaction() {
        Fixture f = new Fixture();
        TableSpec h = history(f);
        LocalDateTime old = f.jdbc.clock().minusHours(2);
        for (long i = 1; i <= 1200; i++) {
            h.row("history_id", i, "queue_name", "jobs", "finished_at", old);
        }
        for (long i = 1201; i <= 1210; i++) {
            h.row("history_id", i, "queue_name", "jobs", "finished_at", f.jdbc.clock());
        }
        for (long i = 2001; i <= 2005; i++) {
            h.row("history_id", i, "queue_name", "other", "finished_at", old);
        }
        assertEquals(1200, f.backend().pruneHistory(Q, HistoryRetention.ofAge(Duration.ofHours(1))));
        assertEquals(10, ids(f, "jobs").size(), "the newer rows stay");
        assertEquals(5, ids(f, "other").size(), "other queues are untouched");
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.deadLetters().historyAgeCutoff()).size(), "the cutoff is read once");
        List<String> batches = f.jdbc.logContaining("exec " + f.sql.deadLetters().pruneHistoryBefore());
        assertEquals(3, batches.size(), "500 + 500 + 200");
        List<Effect> deletes = f.jdbc.effects("DELETE", "sqlq_bk_history");
        assertEquals(1200, deletes.size());
        assertTrue(deletes.stream().noneMatch(Effect::inTransaction), "each batch committed on its own (auto-commit)");
    }

    @Test
    void pruneByRowsKeepsTheNewestFromACutoffReadOnce() {
        Fixture f = new Fixture();
        TableSpec h = history(f);
        for (long i = 1; i <= 700; i++) {
            h.row("history_id", i, "queue_name", "jobs", "finished_at", f.jdbc.clock());
        }
        f.jdbc.labelled(f.sql.deadLetters().historyRowsCutoff(), List.of("keep_from"), new Object[] {601L});
        assertEquals(600, f.backend().pruneHistory(Q, HistoryRetention.ofRows(100)));
        assertEquals(100, ids(f, "jobs").size());
        assertEquals(601L, ids(f, "jobs").get(0));
        assertEquals(1, f.jdbc.logContaining("exec " + f.sql.deadLetters().historyRowsCutoff()).size());
        assertEquals(2, f.jdbc.logContaining("exec " + f.sql.deadLetters().pruneHistoryRowsBelow()).size(), "500 + 100");
    }

    @Test
    void keepingZeroRowsDeletesTheQueuesWholeHistory() {
        Fixture f = new Fixture();
        TableSpec h = history(f);
        for (long i = 1; i <= 3; i++) {
            h.row("history_id", i, "queue_name", "jobs", "finished_at", f.jdbc.clock());
        }
        assertEquals(3, f.backend().pruneHistory(Q, HistoryRetention.ofRows(0)));
        assertEquals(List.of(), ids(f, "jobs"));
    }
}
