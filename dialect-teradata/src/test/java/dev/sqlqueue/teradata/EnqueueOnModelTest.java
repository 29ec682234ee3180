package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.ModelFixture.JOBS;
import static dev.sqlqueue.teradata.ModelFixture.N;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Message;
import dev.sqlqueue.teradata.model.TeradataModel;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Review V1: ids come back right whatever the driver answers to getGeneratedKeys. */
class EnqueueOnModelTest {
    private static List<Message> messages(int n) {
        return IntStream.range(0, n).mapToObj(i -> Message.ofText("m" + i)).toList();
    }

    private static List<Long> storedIds(ModelFixture f) {
        return f.queueRows().stream().map(r -> (Long) r.get("seq")).toList();
    }

    @Test
    void aBatchWhoseDriverReturnsOnlyTheFirstKeyFallsBackToOneRowPerRequest() {
        TeradataModel m = new TeradataModel("qdb");
        m.keys = TeradataModel.Keys.FIRST_OF_BATCH_ONLY;
        ModelFixture f = new ModelFixture(m);
        List<Long> ids = f.queue.enqueueAll(JOBS, messages(9));
        assertEquals(storedIds(f), ids, "one id per stored row, in order, nothing stored twice");
        assertEquals(List.of("m0", "m1"), f.queue.consume(JOBS, ModelFixture.claim(2)).stream().map(d -> d.text()).toList());
    }

    @Test
    void aDriverAnsweringWithWholeRowsStillGivesTheSequence() throws Exception {
        TeradataModel m = new TeradataModel("qdb");
        m.keys = TeradataModel.Keys.WHOLE_ROWS;
        ModelFixture f = new ModelFixture(m);
        long one = f.queue.enqueue(JOBS, Message.ofText("x"));
        List<Long> more = f.queue.enqueueAll(JOBS, messages(3));
        long caller;
        try (Connection c = m.dataSource().getConnection()) {
            c.setAutoCommit(false);
            caller = f.queue.enqueue(c, JOBS, Message.ofText("y"));
            c.commit();
        }
        List<Long> all = new java.util.ArrayList<>(List.of(one));
        all.addAll(more);
        all.add(caller);
        assertEquals(storedIds(f), all);
    }

    @Test
    void aSingleMessageIsOneExecuteUpdateNotABatch() {
        ModelFixture f = new ModelFixture();
        f.model.log.clear();
        f.queue.enqueue(JOBS, Message.ofText("x"));
        String insert = TeradataStatements.insertMessage(N);
        assertTrue(f.model.log.stream().anyMatch(s -> s.endsWith(" " + insert)), f.model.log.toString());
        assertTrue(f.model.log.stream().noneMatch(s -> s.contains(insert + " x")), "no batch for one message");
        Map<String, Object> row = f.queueRows().get(0);
        assertEquals(0, row.get("attempts"));
    }
}
