package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.BrokerNames.literal;
import static dev.sqlqueue.sqlserver.broker.BrokerNames.quote;

import dev.sqlqueue.QueueName;

/**
 * Enqueue: deduplication keys, SEND on a pooled dialog, on a message group's dialog or on a dialog of
 * its own, and the resend of whole envelopes. Run by {@link BrokerSender}.
 *
 * <p>Written from the SQL Server documentation; the rules every statement keeps are those of
 * {@link BrokerStatements}. None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only. Immutable and thread-safe.
 */
public final class SendStatements {
    private final BrokerNames n;

    SendStatements(BrokerNames names) {
        this.n = names;
    }

    /**
     * Takes a deduplication key for the open transaction, or names the message holding it. Binds: queue,
     * stored key, window seconds, window milliseconds part. One row: message_id, NULL when this transaction
     * took the key (its row then holds message id 0 until {@link #recordKey} writes the real one).
     *
     * <p>No key-range lock (re-review N1): a read of a missing key under UPDLOCK, HOLDLOCK locked the gap up
     * to the next key ("Key-range locking", singleton fetch of nonexistent data: RangeS-U, incompatible with
     * RangeS-U and RangeI-N), so unrelated keys of one gap waited for each other and keyed batches deadlocked.
     * Instead: delete the key's expired row; read the key with READCOMMITTEDLOCK (a locking read at READ
     * COMMITTED whatever READ_COMMITTED_SNAPSHOT or the caller's isolation level is; it waits for a holder that
     * has not committed yet); if it is missing, insert it, which locks that key only ("Insert operation": X on
     * the new key, RangeI-N only tested). Two transactions that both found it missing: the second insert waits
     * for the first's X lock and then fails with 2627 (2601 for a unique index), which the CATCH block takes
     * as "duplicate" and answers with the holder's id. An error that left the transaction uncommittable (a
     * caller's session with XACT_ABORT ON) is raised again: the caller must roll back. Reading first means a
     * plain duplicate raises no error at all. No SET: it also runs on the caller's connection.
     *
     * @return the T-SQL text
     */
    public String takeKey() {
        String read = "SELECT @id = message_id FROM " + n.keysTable() + " WITH (READCOMMITTEDLOCK) WHERE queue_name = @q AND dedupe_key = @k;";
        return "DECLARE @q nvarchar(48) = ?, @k nvarchar(129) = ?, @s int = ?, @ms int = ?, @id bigint;"
                + " DELETE FROM " + n.keysTable() + " WITH (ROWLOCK) WHERE queue_name = @q AND dedupe_key = @k"
                + " AND expires_at <= SYSUTCDATETIME(); " + read
                + " IF @id IS NULL BEGIN BEGIN TRY INSERT INTO " + n.keysTable() + " (queue_name, dedupe_key, message_id, expires_at)"
                + " VALUES (@q, @k, 0, DATEADD(second, @s, DATEADD(millisecond, @ms, SYSUTCDATETIME()))); END TRY"
                + " BEGIN CATCH IF ERROR_NUMBER() NOT IN (2601, 2627) OR XACT_STATE() <> 1 THROW; " + read + " END CATCH END;"
                + " SELECT @id AS message_id;";
    }

    /**
     * Writes the message id into the key this transaction took ({@link #takeKey}). Binds: message id, queue, stored key.
     *
     * @return the T-SQL text
     */
    public String recordKey() {
        return "UPDATE " + n.keysTable() + " SET message_id = ? WHERE queue_name = ? AND dedupe_key = ?";
    }

    /**
     * Sends one new message on a pooled dialog. The body is the envelope ({@link Envelope}): version
     * byte, the id from the sequence, the database-clock enqueue time in ms since 1970, then the rest
     * built by the adapter. Parameters: conversation handle, rest of the envelope. One row: message_id.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String send(QueueName q) {
        return "SET NOCOUNT ON; DECLARE @h uniqueidentifier = ?, @rest varbinary(max) = ?, @id bigint;"
                + " SET @id = NEXT VALUE FOR " + n.idSequence() + ";"
                + " DECLARE @body varbinary(max) = 0x01 + CAST(@id AS binary(8))"
                + " + CAST(DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", SYSUTCDATETIME()) AS binary(8)) + @rest;"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.messageType(q)) + " (@body);"
                + " SELECT @id AS message_id;";
    }

    /**
     * Sends one new message of a message group on the group's dialog, inside the caller's transaction
     * (the backend's own, or the caller's for an enqueue in the caller's transaction). The group's row
     * is read with {@code UPDLOCK, HOLDLOCK}, so concurrent senders of one group queue behind each other
     * until commit (every SEND locks its conversation anyway) and two first sends of a new group cannot
     * both begin a dialog. The first message of a group (or the first after its dialog was retired)
     * begins the dialog, with the longest LIFETIME (a group's dialog is always ended explicitly, and a
     * LIFETIME that ran out would end it with its messages). Records the message as pending. No
     * {@code SET} options are changed, because this may run on the caller's connection. Parameters:
     * queue name, group, rest of the envelope (version 2). One row: message_id.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String sendGrouped(QueueName q) {
        return "DECLARE @queue nvarchar(48) = ?, @g nvarchar(128) = ?, @rest varbinary(max) = ?, @id bigint;"
                + groupDialog(q)
                + " SET @id = NEXT VALUE FOR " + n.idSequence() + ";"
                + " DECLARE @body varbinary(max) = 0x02 + CAST(@id AS binary(8))"
                + " + CAST(DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", SYSUTCDATETIME()) AS binary(8)) + @rest;"
                + pendingAndSend(q)
                + " SELECT @id AS message_id;";
    }

    /**
     * Sends a complete version-2 envelope again (same id, enqueue time and group) on its group's
     * dialog, as {@link #sendGrouped}. Parameters: queue name, group, message id, body.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String resendGrouped(QueueName q) {
        return "DECLARE @queue nvarchar(48) = ?, @g nvarchar(128) = ?, @id bigint = ?, @body varbinary(max) = ?;"
                + groupDialog(q) + pendingAndSend(q);
    }

    private String groupDialog(QueueName q) {
        return " DECLARE @h uniqueidentifier;"
                + " SELECT @h = conversation_handle FROM " + n.groupsTable() + " WITH (UPDLOCK, HOLDLOCK, ROWLOCK)"
                + " WHERE queue_name = @queue AND group_key = @g; " + requireTransaction()
                + " IF @h IS NULL BEGIN " + BrokerStatements.beginDialog(n, q, BrokerStatements.LONGEST_LIFETIME_SECONDS) + ";"
                + " INSERT INTO " + n.groupsTable() + " (queue_name, group_key, conversation_handle) VALUES (@queue, @g, @h); END"
                + " ELSE UPDATE " + n.groupsTable() + " SET last_send_at = SYSUTCDATETIME()"
                + " WHERE queue_name = @queue AND group_key = @g;";
    }

    /**
     * Fails (error 51000) when no transaction is open. Placed after a SELECT from a table, which opens
     * the implicit transaction ("SET IMPLICIT_TRANSACTIONS (Transact-SQL)", Remarks), and before the
     * first SEND or BEGIN DIALOG, which do not: so a send meant for a transaction never commits alone.
     */
    static String requireTransaction() {
        return "IF @@TRANCOUNT = 0 THROW 51000, N'sqlqueue: sending needs an open transaction', 1;";
    }

    private String pendingAndSend(QueueName q) {
        return " INSERT INTO " + n.groupPendingTable() + " (queue_name, message_id, group_key) VALUES (@queue, @id, @g);"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.messageType(q)) + " (@body);";
    }

    /**
     * Sends one message without a group on a dialog of its own, followed by the end-of-stream message,
     * inside the caller's transaction (enqueue in the caller's transaction: a pooled dialog cannot be
     * lent to a transaction whose end the backend does not see, because SEND locks the conversation
     * until then). The target ends the dialog after receiving end-of-stream; the sweeper ends the
     * initiator side on the EndDialog that follows. The dialog has the longest LIFETIME, so a long
     * consumer outage cannot end it with its message. Nothing is sent fire-and-forget. No {@code SET}
     * options are changed. Its first statement reads the queue registry, which opens the caller's
     * implicit transaction if nothing has yet (SEND and BEGIN DIALOG would not), and it fails (51000)
     * rather than send outside a transaction. Parameter: rest of the envelope (version 1). One row:
     * message_id.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String sendOnOwnDialog(QueueName q) {
        return "DECLARE @rest varbinary(max) = ?, @h uniqueidentifier, @id bigint, @reg int;"
                + " SELECT @reg = 1 FROM " + n.queuesTable() + " WHERE queue_name = " + literal(q.value()) + ";"
                + " " + requireTransaction() + " "
                + BrokerStatements.beginDialog(n, q, BrokerStatements.LONGEST_LIFETIME_SECONDS) + ";"
                + " SET @id = NEXT VALUE FOR " + n.idSequence() + ";"
                + " DECLARE @body varbinary(max) = 0x01 + CAST(@id AS binary(8))"
                + " + CAST(DATEDIFF_BIG(millisecond, " + BrokerStatements.EPOCH + ", SYSUTCDATETIME()) AS binary(8)) + @rest;"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.messageType(q)) + " (@body);"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.endOfStreamType(q)) + ";"
                + " SELECT @id AS message_id;";
    }

    /**
     * Sends a complete envelope again (same id). Parameters: conversation handle, body.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String resend(QueueName q) {
        return "DECLARE @h uniqueidentifier = ?, @body varbinary(max) = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE "
                + quote(n.messageType(q)) + " (@body);";
    }
}
