package dev.sqlqueue.sqlserver.broker;

import static dev.sqlqueue.sqlserver.broker.BrokerNames.literal;
import static dev.sqlqueue.sqlserver.broker.BrokerNames.quote;

import dev.sqlqueue.QueueName;

/**
 * The dialog pool and the initiator side's housekeeping: filling, adopting, giving back and retiring
 * pooled dialogs, ending the 150 trick's spacers, draining the initiator queue, retiring idle group
 * dialogs, and the expired-key clean-up the sweeper runs. Run by {@link DialogPool} and {@link
 * BrokerSweeper}.
 *
 * <p>Written from the SQL Server documentation; the rules every statement keeps are those of
 * {@link BrokerStatements}. None of these statements has been run against a SQL Server: tests pin their
 * exact text and the JDBC call sequence only. Immutable and thread-safe.
 */
public final class DialogStatements {
    private final BrokerNames n;

    DialogStatements(BrokerNames names) {
        this.n = names;
    }

    /**
     * Begins {@code want * spread} dialogs and keeps every {@code spread}-th as a pooled dialog owned
     * by {@code owner}; the others stay open as spacers (seed 000, the "150 trick": handles created one
     * after another share a page of sys.sysdesend, so keeping every 150th gives each pooled handle its
     * own page). Spread 1 keeps all. With spread above 1, the fill writes its {@code fills} row after its
     * last dialog: only then may the sweeper end its spacers (a fill runs in auto-commit and writes its
     * spacers before its pooled rows, so a sweeper that looked only for "no pooled row" could end the spacers
     * of a fill still being built: re-review N5). Parameters: want, spread, queue name, owner id. Result: the
     * kept handles.
     *
     * @param q the queue whose objects the statement names
     * @param lifetimeSeconds explicit dialog LIFETIME, validated 1..2147483647
     * @return the T-SQL text
     */
    public String fillDialogs(QueueName q, int lifetimeSeconds) {
        return "SET NOCOUNT ON; DECLARE @want int = ?, @spread int = ?, @queue nvarchar(48) = ?,"
                + " @owner uniqueidentifier = ?, @i int = 1, @h uniqueidentifier, @fill bigint;"
                + " DECLARE @kept TABLE (conversation_handle uniqueidentifier NOT NULL);"
                + " SET @fill = NEXT VALUE FOR " + n.idSequence() + ";"
                + " WHILE @i <= @want * @spread BEGIN "
                + BrokerStatements.beginDialog(n, q, lifetimeSeconds) + ";"
                + " INSERT INTO " + n.dialogsTable() + " (conversation_handle, queue_name, fill_id, is_spacer, owner_id)"
                + " VALUES (@h, @queue, @fill, CASE WHEN @i % @spread = 0 THEN 0 ELSE 1 END,"
                + " CASE WHEN @i % @spread = 0 THEN @owner ELSE NULL END);"
                + " IF @i % @spread = 0 INSERT INTO @kept (conversation_handle) VALUES (@h);"
                + " SET @i += 1; END;"
                + " IF @spread > 1 INSERT INTO " + n.fillsTable() + " (queue_name, fill_id) VALUES (@queue, @fill);"
                + " SELECT conversation_handle FROM @kept;";
    }

    /**
     * Adopts pooled dialogs released by a process that closed cleanly. Parameters: how many, owner id,
     * queue name. Result: conversation_handle, age_ms (database clock).
     *
     * @return the T-SQL text
     */
    public String adoptDialogs() {
        return "UPDATE TOP (?) " + n.dialogsTable() + " WITH (ROWLOCK, READPAST) SET owner_id = ?"
                + " OUTPUT inserted.conversation_handle, DATEDIFF_BIG(millisecond, inserted.created_at, SYSUTCDATETIME()) AS age_ms"
                + " WHERE queue_name = ? AND owner_id IS NULL AND is_spacer = 0";
    }

    /**
     * Parameter: owner id. Gives this process's pooled dialogs back to the table on close.
     *
     * @return the T-SQL text
     */
    public String releaseOwnedDialogs() {
        return "UPDATE " + n.dialogsTable() + " SET owner_id = NULL WHERE owner_id = ?";
    }

    /**
     * Recycles a pooled dialog: sends the end-of-stream message (the target ends its side first, the
     * initiator ends on the EndDialog that follows) and removes it from the pool, inside the sender's
     * transaction. Its fill's spacers are ended later by the sweeper ({@link #endFillSpacers}), not here:
     * ending a fill's thousands of spacers in a sender's transaction held its locks for the whole
     * cleanup (M5). Parameter: the conversation handle.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String retireDialog(QueueName q) {
        return "DECLARE @h uniqueidentifier = ?;"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.endOfStreamType(q)) + ";"
                + " DELETE FROM " + n.dialogsTable() + " WHERE conversation_handle = @h;";
    }

    /**
     * Complete fills of a queue with no pooled dialog left (retired, discarded or forgotten): their spacers
     * can go. A plain read without locking hints, through the fills' key and {@code ix_fill}, so it keeps no
     * lock on any dialog (re-review N5: the scan before held U locks on every live fill's spacers).
     * Parameters: how many at most, queue name. Rows: fill_id.
     *
     * @return the T-SQL text
     */
    public String deadFills() {
        return "SELECT TOP (?) f.fill_id FROM " + n.fillsTable() + " AS f WHERE f.queue_name = ? AND NOT EXISTS (SELECT 1 FROM "
                + n.dialogsTable() + " AS d WHERE d.fill_id = f.fill_id AND d.is_spacer = 0)";
    }

    /**
     * Ends up to a batch of the spacers (the 150 trick's unused dialogs) of one dead fill ({@link #deadFills})
     * and deletes their rows, in the caller's transaction; when none is left, deletes the fill's row. The
     * spacers are found through {@code ix_fill} (fill_id, is_spacer), so only this fill's rows are locked;
     * rows another session holds are skipped ({@code READPAST}). An END CONVERSATION on a never-used dialog is
     * local (probe V4 asks a server to confirm it sends nothing). Parameters: how many at most, queue name,
     * fill id. One row: ended.
     *
     * @return the T-SQL text
     */
    public String endFillSpacers() {
        return "DECLARE @max int = ?, @queue nvarchar(48) = ?, @fill bigint = ?, @s uniqueidentifier, @n int = 0;"
                + " DECLARE @batch TABLE (conversation_handle uniqueidentifier NOT NULL PRIMARY KEY);"
                + " INSERT INTO @batch (conversation_handle) SELECT TOP (@max) conversation_handle FROM " + n.dialogsTable()
                + " WITH (UPDLOCK, ROWLOCK, READPAST) WHERE fill_id = @fill AND is_spacer = 1;"
                + " WHILE 1 = 1 BEGIN SET @s = NULL;"
                + " SELECT TOP (1) @s = conversation_handle FROM @batch; IF @s IS NULL BREAK;"
                + " END CONVERSATION @s; DELETE FROM " + n.dialogsTable() + " WHERE conversation_handle = @s;"
                + " DELETE FROM @batch WHERE conversation_handle = @s; SET @n += 1; END;"
                + " IF @n < @max AND NOT EXISTS (SELECT 1 FROM " + n.dialogsTable() + " WHERE fill_id = @fill)"
                + " DELETE FROM " + n.fillsTable() + " WHERE queue_name = @queue AND fill_id = @fill;"
                + " SELECT @n AS ended;";
    }

    /**
     * Drops a broken or errored dialog: ends our side (never WITH CLEANUP), then removes it from the
     * pool, so a failing END leaves the row for the sweeper's spacer/fill bookkeeping instead of a
     * dialog nobody knows (m10).
     * Parameter: the conversation handle.
     *
     * @return the T-SQL text
     */
    public String discardDialog() {
        return "DECLARE @h uniqueidentifier = ?; END CONVERSATION @h; DELETE FROM " + n.dialogsTable()
                + " WHERE conversation_handle = @h;";
    }

    /**
     * Receives from the initiator queue without waiting (EndDialog, Error, DialogTimer). Parameter: TOP.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String receiveInitiator(QueueName q) {
        return "RECEIVE TOP (?) conversation_handle, message_type_name, message_body FROM "
                + n.qualified(n.initiatorQueue(q));
    }

    /**
     * Ends our side of a conversation (never WITH CLEANUP). Parameter: conversation handle.
     *
     * @return the T-SQL text
     */
    public String endConversation() {
        return "DECLARE @h uniqueidentifier = ?; END CONVERSATION @h;";
    }

    /**
     * Removes an ended dialog from the pool or from its message group. Parameter: conversation handle.
     *
     * @return the T-SQL text
     */
    public String forgetDialog() {
        return "DECLARE @h uniqueidentifier = ?; DELETE FROM " + n.dialogsTable() + " WHERE conversation_handle = @h;"
                + " DELETE FROM " + n.groupsTable() + " WHERE conversation_handle = @h;";
    }

    /**
     * Retires group dialogs that have nothing pending and are idle or old: sends end-of-stream on each
     * and deletes its row, inside the caller's transaction. Group rows a sender holds are skipped
     * ({@code READPAST}); the pending check reads without {@code READPAST} but with {@code NOWAIT}, so a
     * consumer's uncommitted settlement is never skipped: it raises error 1222 at once, which ends the
     * round early (what was retired so far stays; the next sweep tries again). No {@code SET} option is
     * changed. Because nothing of the old dialog is queued or in
     * a consumer's hands, the group's next dialog cannot overtake it. Parameters: queue name, idle time
     * in ms (0..2147483647), maximum age in s, how many at most. One row: retired.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String retireIdleGroups(QueueName q) {
        return "DECLARE @queue nvarchar(48) = ?, @idle int = ?, @age int = ?, @max int = ?, @g nvarchar(128),"
                + " @h uniqueidentifier, @n int = 0;"
                + " BEGIN TRY WHILE @n < @max BEGIN SET @h = NULL;"
                + " SELECT TOP (1) @g = gr.group_key, @h = gr.conversation_handle FROM " + n.groupsTable()
                + " AS gr WITH (UPDLOCK, ROWLOCK, READPAST) WHERE gr.queue_name = @queue"
                + " AND (gr.last_send_at < DATEADD(millisecond, -@idle, SYSUTCDATETIME())"
                + " OR gr.created_at < DATEADD(second, -@age, SYSUTCDATETIME()))"
                + " AND NOT EXISTS (SELECT 1 FROM " + n.groupPendingTable() + " AS p WITH (READCOMMITTEDLOCK, NOWAIT)"
                + " WHERE p.queue_name = gr.queue_name AND p.group_key = gr.group_key);"
                + " IF @h IS NULL BREAK;"
                + " SEND ON CONVERSATION (@h) MESSAGE TYPE " + quote(n.endOfStreamType(q)) + ";"
                + " DELETE FROM " + n.groupsTable() + " WHERE queue_name = @queue AND group_key = @g;"
                + " SET @n += 1; END; END TRY"
                + " BEGIN CATCH IF ERROR_NUMBER() <> 1222 THROW; END CATCH;"
                + " SELECT @n AS retired;";
    }

    /**
     * The data messages of an initiator conversation still waiting in {@code sys.transmission_queue}
     * (for example while the target queue is disabled). When the conversation errors, END CONVERSATION
     * drops them ("END CONVERSATION (Transact-SQL)", Remarks), so the sweeper reads them first and
     * dead-letters them (L2). Parameter: the conversation handle. Column: message_body.
     *
     * @param q the queue whose objects the statement names
     * @return the T-SQL text
     */
    public String inTransitOf(QueueName q) {
        return "SELECT message_body FROM sys.transmission_queue WHERE conversation_handle = ? AND message_type_name = "
                + literal(n.messageType(q));
    }

    /**
     * Binds: batch size. Expired keys of any queue, through the expiry index, skipping locked ones. READPAST
     * needs READ COMMITTED or REPEATABLE READ (error 650 otherwise: "Table hints (Transact-SQL)"), so it runs
     * only on the sweeper's own connection at READ COMMITTED, each batch its own transaction (N2).
     *
     * @return the T-SQL text
     */
    public String deleteExpiredKeys() {
        return "DELETE TOP (?) FROM " + n.keysTable() + " WITH (ROWLOCK, READPAST) WHERE expires_at <= SYSUTCDATETIME()";
    }
}
