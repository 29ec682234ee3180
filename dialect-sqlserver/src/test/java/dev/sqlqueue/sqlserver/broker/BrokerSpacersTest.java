package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.Fixture.Q;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.model.Effect;
import dev.sqlqueue.sqlserver.model.Lock;
import dev.sqlqueue.sqlserver.model.TableSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The spacers of the 150 trick (re-review N5) on the model with the dialogs and fills tables kept: a fill
 * records that it is complete after its loop, and the sweeper ends the spacers only of complete fills that
 * have no pooled dialog left, locking nothing of the other fills.
 */
class BrokerSpacersTest {
    private static String h(int fill, int n) {
        return new UUID(fill, n).toString();
    }

    private static TableSpec dialogs(Fixture f) {
        return f.jdbc.track(f.sql.names().dialogsTable(), "conversation_handle").index("ix_fill", "fill_id", "is_spacer")
                .defaultNow("created_at");
    }

    private static TableSpec fills(Fixture f) {
        return f.jdbc.track(f.sql.names().fillsTable(), "queue_name", "fill_id");
    }

    private static void spacers(TableSpec d, int fill, int count) {
        for (int i = 1; i <= count; i++) {
            d.row("conversation_handle", h(fill, i), "queue_name", "jobs", "fill_id", (long) fill, "is_spacer", 1L);
        }
    }

    @Test
    void theSweeperEndsOnlyTheSpacersOfCompleteFillsWithoutPooledDialogsAndLocksNoOtherFill() {
        Fixture f = new Fixture();
        TableSpec d = dialogs(f);
        TableSpec done = fills(f);
        spacers(d, 7, 3); // complete, its pooled dialog retired
        done.row("queue_name", "jobs", "fill_id", 7L);
        spacers(d, 8, 3); // complete, still pooled
        d.row("conversation_handle", h(8, 9), "queue_name", "jobs", "fill_id", 8L, "is_spacer", 0L);
        done.row("queue_name", "jobs", "fill_id", 8L);
        spacers(d, 9, 2); // being built: no pooled row yet and no fills row
        f.jdbc.rows(f.sql.provisioning().listQueues(), new Object[] {"jobs"});
        f.backend().sweepAll();
        Set<String> ended = f.jdbc.effects("END CONVERSATION", "").stream().filter(e -> e.state() == Effect.State.COMMITTED)
                .map(e -> e.text().substring(e.text().lastIndexOf(' ') + 1)).collect(Collectors.toSet());
        assertEquals(Set.of(h(7, 1), h(7, 2), h(7, 3)), ended);
        List<Map<String, Object>> left = f.jdbc.committedRows(f.sql.names().dialogsTable());
        assertEquals(Set.of(8L, 9L), left.stream().map(r -> r.get("fill_id")).collect(Collectors.toSet()));
        assertEquals(List.of(8L), f.jdbc.committedRows(f.sql.names().fillsTable()).stream().map(r -> r.get("fill_id")).toList(),
                "the dead fill's row goes with its last spacer");
        Set<String> otherFills = left.stream().map(r -> "[" + r.get("conversation_handle") + "]").collect(Collectors.toSet());
        List<Lock> held = f.jdbc.locksTaken().stream().filter(l -> l.heldToEnd() && otherFills.contains(l.key())).toList();
        assertEquals(List.of(), held, "no lock kept on a row of a live fill or of one being built");
    }

    @Test
    void aFillWritesItsFillsRowAfterItsLastDialog() {
        Fixture f = new Fixture("broker.dialogPoolSize", "2", "broker.spreadFactor", "3");
        dialogs(f);
        fills(f);
        f.jdbc.sequence(f.sql.names().idSequence(), 40);
        assertEquals(41L, f.backend().enqueue(Q, dev.sqlqueue.Message.ofText("x")), "the sequence gave the fill 40");
        List<Map<String, Object>> rows = f.jdbc.committedRows(f.sql.names().dialogsTable());
        assertEquals(6, rows.size(), "2 kept, 4 spacers");
        assertEquals(2, rows.stream().filter(r -> ((Number) r.get("is_spacer")).longValue() == 0).count());
        assertEquals(List.of(Map.of("queue_name", "jobs", "fill_id", 40L)), f.jdbc.committedRows(f.sql.names().fillsTable()));
        List<Effect> inserts = f.jdbc.effects("INSERT", "");
        assertTrue(inserts.get(inserts.size() - 1).text().contains("fills"), "the fills row is the last write of the fill");
    }
}
