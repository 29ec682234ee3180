package dev.sqlqueue.teradata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.QueueName;
import org.junit.jupiter.api.Test;

/** Pins the exact text of every statement the backend sends. */
class TeradataStatementsTest {
    private static final TeradataNames N = TeradataNames.of("sqlq_", "qdb", QueueName.of("jobs"));
    private static final String Q = "\"qdb\".\"sqlq_jobs\"";
    private static final String D = "\"qdb\".\"sqlq_jobs$dl\"";
    private static final String TS = "CAST(? AS TIMESTAMP(6) FORMAT 'YYYY-MM-DDBHH:MI:SS.S(6)')";

    private static String text(String expression) {
        return "CAST(CAST(" + expression + " AS FORMAT 'YYYY-MM-DDBHH:MI:SS.S(6)') AS CHAR(26))";
    }

    @Test
    void names() {
        assertEquals(Q, N.queueTable());
        assertEquals(D, N.deadLetterTable());
        assertEquals("sqlq_jobs", N.queueTableName());
        assertEquals("sqlq_jobs$dl", N.deadLetterTableName());
    }

    @Test
    void createQueueTable() {
        assertEquals("CREATE MULTISET TABLE " + Q + ", QUEUE, FALLBACK (\n"
                + "  qits TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "  seq BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1 NO CYCLE),\n"
                + "  msg_id BIGINT,\n"
                + "  attempts INTEGER NOT NULL DEFAULT 0,\n"
                + "  enqueued_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "  last_error VARCHAR(2000) CHARACTER SET UNICODE,\n"
                + "  headers VARCHAR(8000) CHARACTER SET UNICODE NOT NULL,\n"
                + "  payload VARBYTE(64000) NOT NULL\n"
                + ") UNIQUE PRIMARY INDEX (seq) INDEX (qits)", TeradataStatements.createQueueTable(N));
        assertTrue(TeradataStatements.createQueueTable(N, false).startsWith("CREATE MULTISET TABLE " + Q + ", QUEUE, NO FALLBACK (\n"));
        assertEquals(TeradataStatements.createQueueTable(N), TeradataStatements.createQueueTable(N, true));
    }

    @Test
    void createDeadLetterTable() {
        assertEquals("CREATE MULTISET TABLE " + D + ", FALLBACK (\n"
                + "  dl_seq BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 1 INCREMENT BY 1 NO CYCLE),\n"
                + "  msg_id BIGINT NOT NULL,\n"
                + "  attempts INTEGER NOT NULL,\n"
                + "  reason VARCHAR(2000) CHARACTER SET UNICODE NOT NULL,\n"
                + "  enqueued_at TIMESTAMP(6) NOT NULL,\n"
                + "  dead_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                + "  headers VARCHAR(8000) CHARACTER SET UNICODE NOT NULL,\n"
                + "  payload VARBYTE(64000) NOT NULL\n"
                + ") PRIMARY INDEX (msg_id)", TeradataStatements.createDeadLetterTable(N));
        assertTrue(TeradataStatements.createDeadLetterTable(N, false).startsWith("CREATE MULTISET TABLE " + D + ", NO FALLBACK (\n"));
    }

    @Test
    void dictionaryAndSession() {
        assertEquals("DROP TABLE " + Q, TeradataStatements.dropTable(N.queueTable()));
        assertEquals("SELECT 1 FROM DBC.TablesV WHERE UPPER(DatabaseName) = UPPER(?) AND UPPER(TableName) = UPPER(?)",
                TeradataStatements.tableExists());
        assertEquals("SELECT TableName FROM DBC.TablesV WHERE UPPER(DatabaseName) = UPPER(?) AND UPPER(TableName) LIKE UPPER(?)"
                + " ESCAPE '\\' ORDER BY TableName", TeradataStatements.listTables());
        assertEquals("SELECT DATABASE", TeradataStatements.currentDatabase());
        assertEquals("HELP SESSION", TeradataStatements.helpSession());
        assertEquals("SELECT InfoData FROM DBC.DBCInfoV WHERE InfoKey = 'VERSION'", TeradataStatements.serverVersion());
    }

    @Test
    void producerAndConsumer() {
        assertEquals("INSERT INTO " + Q + " (headers, payload) VALUES (?, ?)", TeradataStatements.insertMessage(N));
        assertEquals("LOCKING TABLE " + Q + " FOR ACCESS SELECT TOP 1 qits FROM " + Q, TeradataStatements.peek(N));
        assertEquals("SELECT AND CONSUME TOP 1 " + text("qits") + ", seq, msg_id, attempts, " + text("enqueued_at")
                + ", last_error, headers, payload FROM " + Q, TeradataStatements.consume(N));
        assertEquals("INSERT INTO " + Q + " (msg_id, attempts, enqueued_at, last_error, headers, payload) VALUES (?, ?, " + TS
                + ", ?, ?, ?)", TeradataStatements.reinsert(N));
        assertEquals("INSERT INTO " + Q + " (qits, msg_id, attempts, enqueued_at, last_error, headers, payload)"
                + " VALUES (" + TS + ", ?, ?, " + TS + ", ?, ?, ?)", TeradataStatements.restore(N));
        assertEquals("INSERT INTO " + D + " (msg_id, attempts, reason, enqueued_at, headers, payload) VALUES (?, ?, ?, " + TS
                + ", ?, ?)", TeradataStatements.insertDeadLetter(N));
    }

    @Test
    void admin() {
        assertEquals("LOCKING TABLE " + Q + " FOR ACCESS SELECT COUNT(*), " + text("MIN(enqueued_at)") + ", "
                + text("CAST(CURRENT_TIMESTAMP(6) AS TIMESTAMP(6))") + " FROM " + Q, TeradataStatements.queueStats(N));
        assertEquals("LOCKING TABLE " + D + " FOR ACCESS SELECT COUNT(*) FROM " + D, TeradataStatements.deadLetterCount(N));
        assertEquals("DELETE FROM " + Q, TeradataStatements.purge(N));
        assertEquals("LOCKING TABLE " + D + " FOR ACCESS SELECT TOP 25 msg_id, attempts, reason, " + text("enqueued_at") + ", "
                + text("dead_at") + ", headers, payload FROM " + D + " ORDER BY dead_at, dl_seq", TeradataStatements.listDeadLetters(N, 25));
        assertThrows(IllegalArgumentException.class, () -> TeradataStatements.listDeadLetters(N, 0));
        assertEquals("LOCKING TABLE " + D + " FOR ACCESS SELECT msg_id FROM " + D + " ORDER BY dl_seq",
                TeradataStatements.listDeadLetterIds(N));
        assertEquals("SELECT msg_id, " + text("enqueued_at") + ", headers, payload FROM " + D + " WHERE msg_id = ?",
                TeradataStatements.selectDeadLetter(N));
        assertEquals("INSERT INTO " + Q + " (msg_id, attempts, enqueued_at, headers, payload) VALUES (?, 0, " + TS + ", ?, ?)",
                TeradataStatements.requeueDeadLetter(N));
        assertEquals("DELETE FROM " + D + " WHERE msg_id = ?", TeradataStatements.deleteDeadLetter(N));
        assertEquals("DELETE FROM " + D, TeradataStatements.purgeDeadLetters(N));
    }

    @Test
    void probes() {
        assertEquals("SELECT LogonRedrive FROM DBC.SessionInfoV WHERE SessionNo = SESSION", TeradataStatements.sessionRedrive());
    }

    @Test
    void queueNamesWithHyphenStayInsideTheQuotes() {
        TeradataNames n = TeradataNames.of("p_", "My$Db#1", QueueName.of("a-b_C"));
        assertEquals("\"My$Db#1\".\"p_a-b_C\"", n.queueTable());
        assertEquals("\"My$Db#1\".\"p_a-b_C$dl\"", n.deadLetterTable());
    }
}
