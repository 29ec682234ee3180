package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.Fixture.JOBS;
import static dev.sqlqueue.teradata.Fixture.N;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.UnsupportedCapabilityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Enqueue call sequences on the recording double: chunking, ids, limits checked before anything is sent. */
class EnqueueSequenceTest {
    private static final String INSERT = TeradataStatements.insertMessage(N);

    private static List<Message> messages(int n) {
        return IntStream.range(0, n).mapToObj(i -> Message.ofText("m" + i)).toList();
    }

    @Test
    void batchesAreChunkedIntoFourRowIteratedInsertsInOneTransaction() {
        Fixture f = new Fixture();
        List<Long> ids = f.queue.enqueueAll(JOBS, messages(9));
        assertEquals(List.of(1000L, 1001L, 1002L, 1003L, 1004L, 1005L, 1006L, 1007L, 1008L), ids);
        List<String> calls = f.jdbc.calls();
        assertEquals(4, calls.size(), calls.toString());
        assertTrue(calls.get(0).startsWith("B " + INSERT + " x4 "), calls.get(0));
        assertTrue(calls.get(1).startsWith("B " + INSERT + " x4 "));
        assertTrue(calls.get(2).startsWith("U " + INSERT + " "), "a chunk of one row is one executeUpdate");
        assertEquals("commit", calls.get(3));
        assertTrue(calls.get(0).contains("[, bytes[2]]"), "headers text and payload bytes are the parameters");
    }

    @Test
    void oneRowPerRequestWhenConfigured() {
        Fixture f = new Fixture("teradata.insert-batch-rows", "1");
        assertEquals(List.of(1000L, 1001L), f.queue.enqueueAll(JOBS, messages(2)));
        assertEquals(List.of("U " + INSERT + " [, bytes[2]]", "U " + INSERT + " [, bytes[2]]", "commit"), f.jdbc.calls());
    }

    @Test
    void missingGeneratedKeysRollBackEverythingAfterTryingRowByRow() {
        Fixture f = new Fixture();
        f.jdbc.keysOverride = 0;
        SqlQueueException e = assertThrows(SqlQueueException.class, () -> f.queue.enqueueAll(JOBS, messages(3)));
        assertTrue(e.getMessage().contains("0 generated ids for one inserted row"), e.getMessage());
        assertEquals(List.of("rollback", "U " + INSERT + " [, bytes[2]]", "rollback"), f.jdbc.calls().subList(1, 4));
        assertTrue(f.jdbc.calls().get(0).startsWith("B " + INSERT + " x3 "));
        assertTrue(!f.jdbc.calls().contains("commit"));
    }

    @Test
    void aBatchAnsweredWithTooFewKeysIsSentAgainRowByRowAndLaterBatchesAreToo() {
        Fixture f = new Fixture();
        f.jdbc.keysOverride = 1;
        assertEquals(List.of(1001L, 1002L), f.queue.enqueueAll(JOBS, messages(2)));
        assertEquals(List.of("B " + INSERT + " x2 [ [, bytes[2]],  [, bytes[2]]]", "rollback", "U " + INSERT + " [, bytes[2]]",
                "U " + INSERT + " [, bytes[2]]", "commit"), f.jdbc.calls());
        f.jdbc.clear();
        f.queue.enqueueAll(JOBS, messages(2));
        assertTrue(f.jdbc.calls().get(0).startsWith("U "), "the instance remembers: " + f.jdbc.calls());
    }

    @Test
    void anOversizePayloadInABatchIsRejectedBeforeAnythingIsSent() {
        Fixture f = new Fixture();
        List<Message> batch = new ArrayList<>(messages(2));
        batch.add(Message.of(new byte[64_001]));
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> f.queue.enqueueAll(JOBS, batch));
        assertEquals("payload.max-size", e.rule());
        assertTrue(f.jdbc.log.isEmpty(), "no connection was even taken");
    }

    @Test
    void theBackendItselfGuardsThePayloadLimit() {
        InvalidInputException e = assertThrows(InvalidInputException.class,
                () -> TeradataEnqueue.check(Message.of(new byte[64_001])));
        assertTrue(e.getMessage().contains("64000"), e.getMessage());
        assertEquals("", TeradataEnqueue.check(Message.of(new byte[64_000])));
    }

    @Test
    void overlongHeadersAreRejected() {
        Fixture f = new Fixture();
        Message m = Message.builder(new byte[0]).header("k", "v".repeat(8000)).build();
        assertEquals("headers.max-length", assertThrows(InvalidInputException.class, () -> f.queue.enqueue(JOBS, m)).rule());
        assertTrue(f.jdbc.log.isEmpty());
    }

    @Test
    void delayAndPriorityAreNotOffered() {
        Fixture f = new Fixture();
        assertThrows(UnsupportedCapabilityException.class,
                () -> f.queue.enqueue(JOBS, Message.builder(new byte[1]).delay(Duration.ofSeconds(1)).build()));
        assertThrows(UnsupportedCapabilityException.class,
                () -> TeradataEnqueue.check(Message.builder(new byte[1]).priority(5).build()));
        assertTrue(f.jdbc.log.isEmpty());
    }

    @Test
    void enqueueInTheCallersTransactionNeitherCommitsNorTouchesAutoCommit() throws Exception {
        Fixture f = new Fixture();
        RecordingJdbc caller = new RecordingJdbc();
        try (var c = caller.dataSource().getConnection()) {
            assertEquals(1000L, f.queue.enqueue(c, JOBS, Message.ofText("t")));
        }
        assertEquals(List.of("U " + INSERT + " [, bytes[1]]", "close"), caller.log);
        assertTrue(f.jdbc.log.isEmpty());
    }
}
