package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.ModelFixture.JOBS;
import static dev.sqlqueue.teradata.ModelFixture.claim;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.Delivery;
import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.Message;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Review finding 1: text a UNICODE column refuses without Unicode Pass Through (model rule U, error
 * 6706). Headers are refused before anything is sent; the library's own texts (nack errors, dead-letter
 * reasons) are made storable, so no settle fails on them.
 */
class TextOnModelTest {
    private static final String CLEF = "\uD834\uDD1E";

    @Test
    void aHeaderOutsideTheUnicode60BmpIsRefusedAtEnqueueNamingTheCharacter() {
        ModelFixture f = new ModelFixture();
        Message m = Message.builder(new byte[] {1}).header("k", "note " + CLEF).build();
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> f.queue.enqueue(JOBS, m));
        assertEquals("headers.charset", e.rule());
        assertTrue(e.getMessage().contains("U+1D11E"), e.getMessage());
        assertTrue(f.queueRows().isEmpty(), "store unchanged");
        assertThrows(InvalidInputException.class, () -> f.queue.enqueueAll(JOBS,
                List.of(Message.ofText("fine"), Message.builder(new byte[0]).header("r\u20BD", "v").build())));
        assertTrue(f.queueRows().isEmpty(), "nothing of the batch was sent");
    }

    @Test
    void aHeaderOutsideTheBmpIsRefusedAlsoInTheCallersTransaction() throws Exception {
        ModelFixture f = new ModelFixture();
        try (Connection c = f.model.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Message m = Message.builder(new byte[] {1}).header("k", CLEF).build();
            assertEquals("headers.charset", assertThrows(InvalidInputException.class, () -> f.queue.enqueue(c, JOBS, m)).rule());
            c.commit();
        }
        assertTrue(f.queueRows().isEmpty());
    }

    @Test
    void aNackWhoseErrorHoldsACharacterOutsideTheBmpStillCountsTheAttemptAndKeepsTheSiblingAck() {
        ModelFixture f = new ModelFixture();
        f.queue.enqueueAll(JOBS, List.of(Message.ofText("a"), Message.ofText("b")));
        List<Delivery> got = f.queue.consume(JOBS, claim(2));
        assertEquals(2, got.size());
        f.queue.ack(got.get(0).receipt());
        f.queue.nack(got.get(1).receipt(), Duration.ZERO, "boom \uD83D\uDCA5 " + CLEF + " \u20BD");
        List<Map<String, Object>> rows = f.queueRows();
        assertEquals(1, rows.size(), "the acked message is gone, the nacked one is back");
        assertEquals(1, rows.get(0).get("attempts"), "the attempt was counted");
        assertEquals("boom ? ? ?", rows.get(0).get("last_error"), "each refused character replaced by '?'");
    }

    @Test
    void aDeadLetterReasonOutsideTheBmpIsStoredWithReplacedCharacters() {
        ModelFixture f = new ModelFixture();
        f.queue.enqueue(JOBS, Message.ofText("p"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.queue.deadLetter(d.receipt(), "poison " + CLEF);
        assertTrue(f.queueRows().isEmpty());
        assertEquals("poison ?", f.deadRows().get(0).get("reason"));
        assertEquals("poison ?", f.queue.deadLetters(JOBS, 10).get(0).reason());
    }

    @Test
    void storableTextReplacesEachRefusedCodePointByOneCharacterAndCutsToTheColumn() {
        assertEquals("a?b?c", TeradataText.storableText("a" + CLEF + "b\u20BDc", 2000));
        assertEquals("x?", TeradataText.storableText("x\uD800", 2000), "an unpaired surrogate is replaced too");
        assertEquals("日本語 ✓ € ü", TeradataText.storableText("日本語 ✓ € ü", 2000));
        assertEquals(2000, TeradataText.storableText("y".repeat(1999) + CLEF + "zz", 2000).length());
        assertEquals(-1, TeradataText.firstUnstorable("plain ✓"));
        assertEquals(2, TeradataText.firstUnstorable("ab" + CLEF));
    }

    @Test
    void privateUseNoncharactersAndTheReplacementCharacterAreRefusedInHeadersAndReplacedInTexts() {
        ModelFixture f = new ModelFixture();
        for (String bad : new String[] {"\uE000", "\uFFFD", "\uFDD0", "\uFFFF"}) {
            Message m = Message.builder(new byte[] {1}).header("k", "v" + bad).build();
            InvalidInputException e = assertThrows(InvalidInputException.class, () -> f.queue.enqueue(JOBS, m), bad);
            assertEquals("headers.charset", e.rule());
        }
        assertTrue(f.queueRows().isEmpty(), "store unchanged");
        f.queue.enqueue(JOBS, Message.ofText("n"));
        Delivery d = f.queue.consume(JOBS, claim(1)).get(0);
        f.queue.nack(d.receipt(), Duration.ZERO, "bad \uFFFD input \uE000");
        assertEquals("bad ? input ?", f.queueRows().get(0).get("last_error"), "each refused character replaced by '?'");
    }
}
