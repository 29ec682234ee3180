package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerProvider;
import dev.sqlqueue.sqlserver.tables.SqlServerStatements;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.spi.Probe;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the text of every probe statement (prefix {@code sqlq_}, schema {@code dbo}) and the plan reading
 * the probes rely on. Text only: none of it has run against SQL Server.
 */
class SqlServerProbeStatementsTest {
    private final SqlServerStatements sql = new SqlServerStatements("sqlq_", "dbo", ClaimOrder.FIFO);

    @Test
    void everyProbeStatementTextIsPinned() {
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("probeFill", "SET NOCOUNT ON; SET XACT_ABORT ON; INSERT INTO [dbo].[sqlq_messages] ([queue_name], [priority], "
                + "[visible_at], [enqueued_at], [payload], [headers]) SELECT ?, CASE WHEN [n] % 2 = 0 THEN 5 ELSE 0 END, "
                + "DATEADD(second, CASE WHEN [n] % 2 = 0 THEN 3600 ELSE -1 END, SYSUTCDATETIME()), SYSUTCDATETIME(), "
                + "CAST(REPLICATE('x', 200) AS varbinary(max)), N'' FROM (SELECT TOP (?) ROW_NUMBER() OVER (ORDER BY "
                + "(SELECT NULL)) AS [n] FROM sys.all_columns AS [a] CROSS JOIN sys.all_columns AS [b]) AS [t];");
        expected.put("probeAutostatsOff", "EXEC sp_autostats @tblname = ?, @flagc = 'OFF';");
        expected.put("probeLocks", "SELECT [l].[resource_type], [l].[request_mode], COALESCE([i].[name], N'-') AS [index_name], "
                + "COUNT_BIG(*) AS [n] FROM sys.dm_tran_locks AS [l] LEFT JOIN sys.partitions AS [p] ON "
                + "[l].[resource_type] IN (N'KEY', N'PAGE', N'RID', N'HOBT') AND [p].[hobt_id] = "
                + "[l].[resource_associated_entity_id] LEFT JOIN sys.indexes AS [i] ON [i].[object_id] = [p].[object_id] AND "
                + "[i].[index_id] = [p].[index_id] WHERE [l].[request_session_id] = @@SPID AND [l].[resource_database_id] = "
                + "DB_ID() GROUP BY [l].[resource_type], [l].[request_mode], [i].[name] ORDER BY [l].[resource_type], "
                + "[l].[request_mode], [index_name];");
        expected.put("probeStatisticsXmlOn", "SET STATISTICS XML ON;");
        expected.put("probeStatisticsXmlOff", "SET STATISTICS XML OFF;");
        expected.put("probeOptions", "SELECT @@OPTIONS AS [options], [transaction_isolation_level] AS [isolation] FROM "
                + "sys.dm_exec_sessions WHERE [session_id] = @@SPID;");
        expected.put("probeSerializable", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;");
        expected.put("probeReadUncommitted", "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED;");
        expected.put("probeLatches", "SELECT COALESCE([i].[name], N'(heap)') AS [index_name], SUM([s].[page_latch_wait_count]) "
                + "AS [waits], SUM([s].[page_latch_wait_in_ms]) AS [wait_ms] FROM "
                + "sys.dm_db_index_operational_stats(DB_ID(), OBJECT_ID(?), NULL, NULL) AS [s] JOIN sys.indexes AS [i] ON "
                + "[i].[object_id] = [s].[object_id] AND [i].[index_id] = [s].[index_id] GROUP BY [i].[name] ORDER BY "
                + "[index_name];");
        expected.put("probeGhosts", "SELECT COALESCE([i].[name], N'(heap)') AS [index_name], SUM([s].[ghost_record_count]) AS "
                + "[ghosts], SUM([s].[version_ghost_record_count]) AS [version_ghosts], SUM([s].[page_count]) AS [pages] FROM "
                + "sys.dm_db_index_physical_stats(DB_ID(), OBJECT_ID(?), NULL, NULL, 'DETAILED') AS [s] JOIN sys.indexes AS "
                + "[i] ON [i].[object_id] = [s].[object_id] AND [i].[index_id] = [s].[index_id] GROUP BY [i].[name] ORDER BY "
                + "[index_name];");
        expected.put("probeIndexStats", "SELECT COALESCE([i].[name], N'(heap)') AS [index_name], SUM([s].[row_lock_wait_count]) "
                + "AS [row_lock_waits], SUM([s].[row_lock_wait_in_ms]) AS [row_lock_wait_ms], SUM([s].[page_lock_wait_count]) AS "
                + "[page_lock_waits], SUM([s].[page_latch_wait_count]) AS [page_latch_waits], SUM([s].[page_latch_wait_in_ms]) AS "
                + "[page_latch_wait_ms], SUM([s].[index_lock_promotion_attempt_count]) AS [promotion_attempts], "
                + "SUM([s].[index_lock_promotion_count]) AS [promotions] FROM sys.dm_db_index_operational_stats(DB_ID(), "
                + "OBJECT_ID(?), NULL, NULL) AS [s] JOIN sys.indexes AS [i] ON [i].[object_id] = [s].[object_id] AND "
                + "[i].[index_id] = [s].[index_id] GROUP BY [i].[name] ORDER BY [index_name];");
        expected.put("probeLockCounters", "SELECT RTRIM([counter_name]) AS [counter_name], [cntr_value] AS [value] FROM "
                + "sys.dm_os_performance_counters WHERE RTRIM([object_name]) LIKE N'%:Locks' AND [instance_name] = N'_Total' AND "
                + "[counter_name] IN (N'Number of Deadlocks/sec', N'Lock Timeouts/sec', N'Lock Timeouts (timeout > 0)/sec', "
                + "N'Lock Waits/sec') ORDER BY [counter_name];");
        expected.put("probeDatabaseVersioning", "SELECT [is_read_committed_snapshot_on], [snapshot_isolation_state] FROM "
                + "sys.databases WHERE [database_id] = DB_ID();");
        expected.put("probeTouchQueues", "SELECT COUNT_BIG(*) AS [n] FROM [dbo].[sqlq_queues];");
        expected.put("probeHoldQueueRow", "UPDATE [dbo].[sqlq_queues] WITH (ROWLOCK) SET [created_at] = [created_at] WHERE "
                + "[name] = ?;");
        expected.put("probeTrancount", "SELECT @@TRANCOUNT AS [trancount];");
        expected.put("probeWaitXactAbortOff", "SET NOCOUNT ON; SET XACT_ABORT OFF; WAITFOR DELAY '00:00:05';");
        expected.put("probeWaitXactAbortOn", "SET NOCOUNT ON; SET XACT_ABORT ON; WAITFOR DELAY '00:00:05';");
        expected.put("probeLockTimeout", "SET LOCK_TIMEOUT 5000;");
        expected.put("probeExpiredKeys", "SET NOCOUNT ON; SET XACT_ABORT ON; INSERT INTO [dbo].[sqlq_dedupe_keys] ([queue_name], "
                + "[dedupe_key], [message_id], [expires_at]) SELECT ?, CONCAT(N'probe-expired-', [n], N'.'), 0, "
                + "DATEADD(second, -60, SYSUTCDATETIME()) FROM (SELECT TOP (?) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS [n] "
                + "FROM sys.all_columns) AS [t];");
        expected.put("probeExpiredKeysWithoutLockHint", "SET NOCOUNT ON; SET XACT_ABORT ON; DELETE TOP (?) FROM "
                + "[dbo].[sqlq_dedupe_keys] WITH (ROWLOCK, READPAST) WHERE [expires_at] <= SYSUTCDATETIME(); SELECT @@ROWCOUNT "
                + "AS [n];");
        assertEquals(expected.keySet(), sql.allProbes().keySet(), "every probe statement is pinned, none unpinned");
        expected.forEach((name, text) -> assertEquals(text, sql.probe(name), "probe statement " + name));
        assertThrows(IllegalArgumentException.class, () -> sql.probe("claim"));
    }

    @Test
    void theProbeListIsV1ToV10WithTheirQuestionsAndWhatTheDocsSay() {
        List<Probe> probes = new SqlServerProvider().probes();
        assertEquals(List.of("V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8", "V9", "V10"), probes.stream().map(Probe::id).toList());
        for (Probe p : probes) {
            assertTrue(p.question().endsWith("?"), p.id());
            assertTrue(p.documented().startsWith("docs/backends/sqlserver.md"), p.id());
        }
    }

    @Test
    void planSummaryFindsSeeksScansSortsAndSpooledLobs() {
        PlanSummary seek = PlanSummary.of(ProbeModel.seekPlan("[sqlq_messages]", "[sqlq_messages_claim]"));
        assertTrue(seek.seeksOn("[sqlq_messages_claim]"));
        assertFalse(seek.sorts() || seek.scans("[sqlq_messages]") || seek.spoolsLobs());
        String scan = "<ShowPlanXML><BatchSequence><Batch><Statements><StmtSimple><QueryPlan>"
                + "<RelOp PhysicalOp=\"Sort\"><Sort><RelOp PhysicalOp=\"Table Spool\"><OutputList>"
                + "<ColumnReference Column=\"id\"/><ColumnReference Column=\"payload\"/></OutputList><Spool>"
                + "<RelOp PhysicalOp=\"Clustered Index Scan\"><IndexScan><Object Table=\"[sqlq_messages]\" Index=\"[sqlq_messages_pk]\"/>"
                + "</IndexScan></RelOp></Spool></RelOp></Sort></RelOp></QueryPlan></StmtSimple></Statements></Batch>"
                + "</BatchSequence></ShowPlanXML>";
        PlanSummary bad = PlanSummary.of(scan);
        assertTrue(bad.sorts() && bad.scans("[sqlq_messages]") && bad.spoolsLobs());
        assertFalse(bad.seeksOn("[sqlq_messages_claim]"));
        assertFalse(bad.actual(), "no run-time counters: an estimated plan");
        assertEquals(null, bad.rejected("[sqlq_messages]"), "an estimated plan says nothing about rows read");
        assertThrows(IllegalArgumentException.class, () -> PlanSummary.of("<html/>"));
        assertThrows(IllegalArgumentException.class, () -> PlanSummary.of("<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><ShowPlanXML/>"));
    }

    @Test
    void anActualPlanGivesRowsReturnedReadRejectedByTheResidualPredicateSpoolRowsAndSpills() {
        String xml = ProbeModel.plan(true, ProbeModel.op("Clustered Index Update", 10,
                "<SpillToTempDb SpillLevel=\"1\" SpilledThreadCount=\"1\"/><SortSpillDetails WritesToTempDb=\"8\"/>",
                ProbeModel.op("Table Spool", 10, "", ProbeModel.access("Index Seek", "[sqlq_messages]", "[sqlq_messages_claim]", true,
                        10, 1010))));
        PlanSummary p = PlanSummary.of(xml);
        assertTrue(p.actual());
        assertEquals(Boolean.TRUE, p.retrievedFromCache());
        assertEquals(1000L, p.rejected("[sqlq_messages]"));
        assertEquals(10L, p.spoolRows());
        assertEquals(List.of("Clustered Index Update SpillToTempDb level 1", "Clustered Index Update SortSpillDetails writes 8"),
                p.spills());
        assertTrue(p.line().contains("Index Seek [sqlq_messages].[sqlq_messages_claim]: 10 rows returned of 1010 read, 1000 rejected"
                + " by its residual predicate, 1 execution(s)"), p.line());
        assertTrue(p.line().startsWith("actual plan (retrieved from cache: yes)"), p.line());
        assertEquals(Boolean.FALSE, PlanSummary.of(ProbeModel.plan(false, ProbeModel.access("Index Seek", "[t]", "[i]", false, 1, 1)))
                .retrievedFromCache());
    }
}
