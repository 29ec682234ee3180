package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.QueueName;
import java.util.Collections;

/**
 * Consume and settle: WAITFOR (RECEIVE ...), attempt counts, and the end of a claim. Run by {@link
 * BrokerReceiver} and {@link BrokerClaim}.
 *
 * <p>Written from the SQL Server documentation; the rules every statement keeps are those of
 * {@link BrokerStatements}. None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only. Immutable and thread-safe.
 */
public final class ClaimStatements {
    private final BrokerNames n;

    ClaimStatements(BrokerNames names) {
        this.n = names;
    }

    /**
     * Waits up to the time-out for messages of one conversation group and removes them inside the
     * caller's open transaction. Parameters: how many (TOP), time-out in ms. Columns are returned as
     * stored; nothing is cast.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String receive(QueueName q) {
        return "WAITFOR (RECEIVE TOP (?) conversation_group_id, conversation_handle, message_sequence_number,"
                + " message_type_name, message_body FROM " + n.qualified(n.queue(q)) + "), TIMEOUT ?";
    }

    /**
     * Receives more messages of a conversation group the open transaction already holds (it received
     * from it), without waiting. Parameters: how many (TOP), conversation group id. Columns as
     * {@link #receive}. Used to fill a batch claim from a pooled dialog; never for a message group's
     * dialog, whose messages are claimed one at a time.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String receiveMore(QueueName q) {
        return "RECEIVE TOP (?) conversation_group_id, conversation_handle, message_sequence_number,"
                + " message_type_name, message_body FROM " + n.qualified(n.queue(q)) + " WHERE conversation_group_id = ?";
    }

    /**
     * Receives the messages left on a conversation that ended with an Error, inside the caller's open
     * transaction, so they can be dead-lettered before END CONVERSATION removes them. Parameter: the
     * conversation handle. Columns: message_type_name, message_body.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String receiveRest(QueueName q) {
        return "RECEIVE message_type_name, message_body FROM " + n.qualified(n.queue(q)) + " WHERE conversation_handle = ?";
    }

    /**
     * Parameters: queue name, then {@code count} message ids. Result: message_id, attempts.
     *
     * @param count how many message ids the statement takes as parameters, 1 or more
     * @return the T-SQL text
     * @throws IllegalArgumentException if {@code count} is below 1
     */
    public String attemptsOf(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1");
        }
        return "SELECT message_id, attempts FROM " + n.attemptsTable() + " WITH (READCOMMITTEDLOCK) WHERE queue_name = ?"
                + " AND message_id IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
    }

    /**
     * Ends a claim that acked and dead-lettered nothing, inside its open transaction: rolls back to the
     * savepoint taken before its RECEIVE ({@code sqlq_receive}), which returns the messages to the queue
     * in place, then raises the attempt count of each nacked message, in one batch. The nacks are first
     * kept in a table variable, which a rollback does not touch. Rolling back to a savepoint releases
     * the locks taken after it (Transact-SQL reference, ROLLBACK TRANSACTION), so another consumer may
     * receive a message as soon as the rollback ran, and read its count ({@link #attemptsOf}) before this
     * batch's raise: for a first nack there is no row yet to wait on. The count can then be one low, and
     * {@code broker.maxAttempts} exceeded by one delivery (review m1: the limit is approximate by one;
     * raising the count first on a second connection would cost a connection per nack while every
     * consumer already holds one). Parameters: queue name, then message id and last error per nack. The
     * caller commits.
     *
     * @param nacks how many nacked messages (0 for a claim that only released)
     * @return the T-SQL text
     */
    public String releaseClaim(int nacks) {
        if (nacks < 0 || nacks > 1000) {
            throw new IllegalArgumentException("nacks must be 0..1000");
        }
        String rollback = "ROLLBACK TRANSACTION [" + BrokerReceiver.SAVEPOINT + "];";
        if (nacks == 0) {
            return "DECLARE @q nvarchar(48) = ?; " + rollback;
        }
        return "DECLARE @q nvarchar(48) = ?; DECLARE @n TABLE (message_id bigint NOT NULL PRIMARY KEY, last_error nvarchar(4000) NULL);"
                + " INSERT INTO @n (message_id, last_error) VALUES " + String.join(", ", Collections.nCopies(nacks, "(?, ?)")) + "; "
                + rollback
                + " UPDATE a SET attempts = a.attempts + 1, last_error = x.last_error, updated_at = SYSUTCDATETIME() FROM "
                + n.attemptsTable() + " AS a JOIN @n AS x ON a.queue_name = @q AND a.message_id = x.message_id;"
                + " INSERT INTO " + n.attemptsTable() + " (queue_name, message_id, attempts, last_error)"
                + " SELECT @q, x.message_id, 1, x.last_error FROM @n AS x WHERE NOT EXISTS (SELECT 1 FROM " + n.attemptsTable()
                + " AS a WHERE a.queue_name = @q AND a.message_id = x.message_id);";
    }

    /**
     * Fails (error 51000) unless the connection's transaction is still open and committable: a claim
     * whose transaction the server ended (deadlock victim, killed session) must not commit what its
     * settlements would run in a fresh implicit transaction.
     *
     * @return the T-SQL text
     */
    public String requireOpenTransaction() {
        return "IF XACT_STATE() <> 1 THROW 51000, N'sqlqueue: the claim''s transaction is no longer open', 1;";
    }

    /**
     * Raises a message's attempt count. Parameters: queue name, message id, last error.
     *
     * @return the T-SQL text
     */
    public String raiseAttempts() {
        return "DECLARE @q nvarchar(48) = ?, @id bigint = ?, @err nvarchar(4000) = ?;"
                + " UPDATE " + n.attemptsTable() + " SET attempts = attempts + 1, last_error = @err,"
                + " updated_at = SYSUTCDATETIME() WHERE queue_name = @q AND message_id = @id;"
                + " IF @@ROWCOUNT = 0 INSERT INTO " + n.attemptsTable()
                + " (queue_name, message_id, attempts, last_error) VALUES (@q, @id, 1, @err);";
    }

    /**
     * Parameters: queue name, message id.
     *
     * @return the T-SQL text
     */
    public String clearAttempts() {
        return "DELETE FROM " + n.attemptsTable() + " WHERE queue_name = ? AND message_id = ?";
    }

    /**
     * A message left the queue for good (acked, dead-lettered, purged, or consumed and sent again,
     * which records it again); a no-op for a message without a group. Parameters: queue name, message id.
     *
     * @return the T-SQL text
     */
    public String groupSettled() {
        return "DELETE FROM " + n.groupPendingTable() + " WHERE queue_name = ? AND message_id = ?";
    }

    /**
     * One row: now_ms, the database clock in ms since 1970.
     *
     * @return the T-SQL text
     */
    public String clockMillis() {
        return "SELECT DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", SYSUTCDATETIME()) AS now_ms";
    }
}
