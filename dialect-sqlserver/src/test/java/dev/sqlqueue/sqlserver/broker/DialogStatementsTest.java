package dev.sqlqueue.sqlserver.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sqlqueue.QueueName;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact text of the statements of {@link DialogStatements} (dialog pool and sweeper) for
 * prefix {@code sqlq_} and queue {@code jobs}. These tests show only that the text is what was reviewed
 * against the SQL Server documentation; none of it has been run against a SQL Server.
 */
class DialogStatementsTest {
    private final BrokerStatements s = new BrokerStatements(new BrokerNames("sqlq_"));
    private final QueueName q = QueueName.of("jobs");

    @Test
    void textFillDialogs() {
        assertEquals("SET NOCOUNT ON; DECLARE @want int = ?, @spread int = ?, @queue nvarchar(48) = ?, @owner uniqueidenti"
                + "fier = ?, @i int = 1, @h uniqueidentifier, @fill bigint; DECLARE @kept TABLE (conversation_handle un"
                + "iqueidentifier NOT NULL); SET @fill = NEXT VALUE FOR [dbo].[sqlq_bk_ids]; WHILE @i <= @want * @sprea"
                + "d BEGIN BEGIN DIALOG CONVERSATION @h FROM SERVICE [sqlq_bk:jobs:iservice] TO SERVICE N'sqlq_bk:jobs:"
                + "service', N'CURRENT DATABASE' ON CONTRACT [sqlq_bk:jobs:contract] WITH LIFETIME = 604800, ENCRYPTION"
                + " = OFF; INSERT INTO [dbo].[sqlq_bk_dialogs] (conversation_handle, queue_name, fill_id, is_spacer, ow"
                + "ner_id) VALUES (@h, @queue, @fill, CASE WHEN @i % @spread = 0 THEN 0 ELSE 1 END, CASE WHEN @i % @spr"
                + "ead = 0 THEN @owner ELSE NULL END); IF @i % @spread = 0 INSERT INTO @kept (conversation_handle) VALU"
                + "ES (@h); SET @i += 1; END; IF @spread > 1 INSERT INTO [dbo].[sqlq_bk_fills] (queue_name, fill_id) VALUES"
                + " (@queue, @fill); SELECT conversation_handle FROM @kept;",
                s.dialogs().fillDialogs(q, 604800));
    }

    @Test
    void textAdoptDialogs() {
        assertEquals("UPDATE TOP (?) [dbo].[sqlq_bk_dialogs] WITH (ROWLOCK, READPAST) SET owner_id = ? OUTPUT inserted.con"
                + "versation_handle, DATEDIFF_BIG(millisecond, inserted.created_at, SYSUTCDATETIME()) AS age_ms WHERE q"
                + "ueue_name = ? AND owner_id IS NULL AND is_spacer = 0",
                s.dialogs().adoptDialogs());
    }

    @Test
    void textReleaseOwnedDialogs() {
        assertEquals("UPDATE [dbo].[sqlq_bk_dialogs] SET owner_id = NULL WHERE owner_id = ?",
                s.dialogs().releaseOwnedDialogs());
    }

    @Test
    void textRetireDialog() {
        assertEquals("DECLARE @h uniqueidentifier = ?; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:jobs:eos]; DELETE F"
                + "ROM [dbo].[sqlq_bk_dialogs] WHERE conversation_handle = @h;",
                s.dialogs().retireDialog(q));
    }

    @Test
    void textDiscardDialog() {
        assertEquals("DECLARE @h uniqueidentifier = ?; END CONVERSATION @h; DELETE FROM [dbo].[sqlq_bk_dialogs] WHERE conv"
                + "ersation_handle = @h;",
                s.dialogs().discardDialog());
    }

    @Test
    void textInTransitOf() {
        assertEquals("SELECT message_body FROM sys.transmission_queue WHERE conversation_handle = ? AND message_type_name = N'sqlq_bk:jobs:msg'",
                s.dialogs().inTransitOf(q));
    }

    @Test
    void textProbeStatics() {
        assertEquals("SELECT @@TRANCOUNT AS trancount", ProbeStatements.probeTranCount());
        assertEquals("SET LOCK_TIMEOUT 5000", ProbeStatements.probeLockTimeout());
        assertEquals(s.dialogs().endConversation(), s.probes().probeEnd());
    }

    @Test
    void textReceiveInitiator() {
        assertEquals("RECEIVE TOP (?) conversation_handle, message_type_name, message_body FROM [dbo].[sqlq_bk:jobs:iqueue"
                + "]",
                s.dialogs().receiveInitiator(q));
    }

    @Test
    void textEndConversation() {
        assertEquals("DECLARE @h uniqueidentifier = ?; END CONVERSATION @h;",
                s.dialogs().endConversation());
    }

    @Test
    void textForgetDialog() {
        assertEquals("DECLARE @h uniqueidentifier = ?; DELETE FROM [dbo].[sqlq_bk_dialogs] WHERE conversation_handle = @h;"
                + " DELETE FROM [dbo].[sqlq_bk_groups] WHERE conversation_handle = @h;",
                s.dialogs().forgetDialog());
    }

    @Test
    void inlinedNumbersAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> s.dialogs().fillDialogs(q, 0));
        assertThrows(IllegalArgumentException.class, () -> s.claims().attemptsOf(0));
    }

    @Test
    void textRetireIdleGroups() {
        assertEquals("DECLARE @queue nvarchar(48) = ?, @idle int = ?, @age int = ?, @max int = ?, @g nvarchar(128), @h uni"
                + "queidentifier, @n int = 0; BEGIN TRY WHILE @n < @max BEGIN SET @h = NULL; SELECT TOP (1) @g = gr.gro"
                + "up_key, @h = gr.conversation_handle FROM [dbo].[sqlq_bk_groups] AS gr WITH (UPDLOCK, ROWLOCK, READPA"
                + "ST) WHERE gr.queue_name = @queue AND (gr.last_send_at < DATEADD(millisecond, -@idle, SYSUTCDATETIME("
                + ")) OR gr.created_at < DATEADD(second, -@age, SYSUTCDATETIME())) AND NOT EXISTS (SELECT 1 FROM [dbo]."
                + "[sqlq_bk_group_pending] AS p WITH (READCOMMITTEDLOCK, NOWAIT) WHERE p.queue_name = gr.queue_name AND"
                + " p.group_key = gr.group_key); IF @h IS NULL BREAK; SEND ON CONVERSATION (@h) MESSAGE TYPE [sqlq_bk:j"
                + "obs:eos]; DELETE FROM [dbo].[sqlq_bk_groups] WHERE queue_name = @queue AND group_key = @g; SET @n +="
                + " 1; END; END TRY BEGIN CATCH IF ERROR_NUMBER() <> 1222 THROW; END CATCH; SELECT @n AS retired;",
                s.dialogs().retireIdleGroups(q));
    }
}
