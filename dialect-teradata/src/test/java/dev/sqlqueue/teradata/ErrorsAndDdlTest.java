package dev.sqlqueue.teradata;

import static dev.sqlqueue.teradata.RecordingJdbc.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueueException;
import dev.sqlqueue.TransientBackendException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Error classification and the DBA's DDL entry point. */
class ErrorsAndDdlTest {
    @Test
    void retryableNumbers() {
        for (int code : new int[] {2631, 2639, 2641, 3111, 3120, 3128}) {
            assertTrue(TeradataErrors.retryable(error(code, "HY000")), "retryable " + code);
        }
        assertFalse(TeradataErrors.retryable(error(2826, "HY000")));
        assertFalse(TeradataErrors.retryable(error(3807, "42S02")));
        SQLException chained = error(1, "HY000");
        chained.setNextException(error(3128, "HY000"));
        assertTrue(TeradataErrors.retryable(chained), "found in the chain");
    }

    @Test
    void connectionLoss() {
        assertTrue(TeradataErrors.connectionLost(error(0, "08S01")));
        assertTrue(TeradataErrors.connectionLost(new SQLRecoverableException("gone")));
        assertFalse(TeradataErrors.connectionLost(error(2631, "40001")));
        assertTrue(TeradataErrors.translate("x", error(0, "08006"), false) instanceof TransientBackendException);
        assertTrue(TeradataErrors.translate("x", error(5, "HY000"), true) instanceof TransientBackendException);
    }

    @Test
    void surfacedErrorsSayWhatToDo() {
        SqlQueueException lost = TeradataErrors.translate("consume", error(2826, "HY000"), false);
        assertFalse(lost instanceof TransientBackendException);
        assertTrue(lost.getMessage().contains("not retried"));
        assertTrue(TeradataErrors.translate("create", error(3933, "HY000"), false).getMessage().contains("1 MB"));
    }

    @Test
    void ddlForADba() {
        List<String> ddl = TeradataDdl.forQueue("sqlq_", "qdb", "jobs");
        TeradataNames n = TeradataNames.of("sqlq_", "qdb", QueueName.of("jobs"));
        assertEquals(List.of(TeradataStatements.createQueueTable(n), TeradataStatements.createDeadLetterTable(n),
                TeradataStatements.createKeysTable(n, true)), ddl);
        assertTrue(ddl.get(0).startsWith("CREATE MULTISET TABLE \"qdb\".\"sqlq_jobs\", QUEUE,"));
    }

    @Test
    void ddlRejectsBadNames() {
        assertEquals("queue-name.pattern",
                assertThrows(InvalidInputException.class, () -> TeradataDdl.forQueue("sqlq_", "qdb", "a\";DROP")).rule());
        assertEquals("table-prefix.pattern",
                assertThrows(InvalidInputException.class, () -> TeradataDdl.forQueue("Bad", "qdb", "jobs")).rule());
        assertEquals("teradata.database",
                assertThrows(InvalidInputException.class, () -> TeradataDdl.forQueue("sqlq_", "1db", "jobs")).rule());
        assertEquals("teradata.database",
                assertThrows(InvalidInputException.class, () -> TeradataDdl.forQueue("sqlq_", "d\"b", "jobs")).rule());
    }

    @Test
    void reasonsAreCutToTheColumn() {
        assertEquals(2000, RowWriter.storableText("x".repeat(5000)).length());
        assertEquals("short", RowWriter.storableText("short"));
        String surrogateAtEdge = "x".repeat(1999) + "\uD83D\uDE00";
        assertEquals("x".repeat(1999) + "?", RowWriter.storableText(surrogateAtEdge),
                "a character outside the BMP becomes one '?', never half a surrogate pair");
    }

    @Test
    void whatThePinnedDriverReportsForACancelATimeoutAndAnUnansweredAbortEndsTheTransaction() {
        for (int code : new int[] {751, 802, 3110}) {
            assertTrue(TeradataErrors.endsTransaction(error(code, "HY000")), "ends the transaction: " + code);
        }
        for (int code : new int[] {1475, 1476}) {
            assertTrue(TeradataErrors.endsTransaction(error(code, "08S01")), "ends the transaction: " + code);
        }
        assertFalse(TeradataErrors.endsTransaction(error(6706, "HY000")), "a refused text undoes its request only");
        assertTrue(TeradataErrors.untranslatable(error(6706, "HY000")));
        for (int code : new int[] {802, 751, 3996, 3807, 2631, 5}) {
            assertFalse(TeradataErrors.untranslatable(error(code, "HY000")), "not a text error, no ASCII retry: " + code);
        }
    }
}
