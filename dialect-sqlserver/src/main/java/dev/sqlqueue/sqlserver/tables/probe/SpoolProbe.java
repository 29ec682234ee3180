package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerMigrator;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.tables.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;

/**
 * Probe V3 (review, "Halloween protection in the claim"): the claim updates {@code visible_at}, a key
 * of the index it reads, so its plan needs Halloween protection; does a spool in the fifo claim's plan
 * carry the {@code payload} and {@code headers} columns (up to 500 LOB values into tempdb per claim)?
 * Read from the actual plan ({@link ClaimRun}, review P6), with the rows that went through spools and any
 * spill. As documented when no spool carries them; no verdict for a layout whose plan could not be read.
 * Creates and drops two table sets; not thread-safe.
 */
final class SpoolProbe implements Probe {
    private final ProbeTables.Migration migration;
    private final int rows;

    SpoolProbe() {
        this(SqlServerMigrator::migrate, ClaimPlanProbe.ROWS);
    }

    SpoolProbe(ProbeTables.Migration migration, int rows) {
        this.migration = migration;
        this.rows = rows;
    }

    @Override
    public String id() {
        return "V3";
    }

    @Override
    public String question() {
        return "Does a spool in the claim's plan (Halloween protection) carry payload and headers?";
    }

    @Override
    public String documented() {
        return "docs/backends/sqlserver.md, 'What is settled, and by what' (V3): expected that no spool carries payload or"
                + " headers"
                + " (unverified; if one does, the claim should return ids and read payloads by id)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        ProbeObservations obs = new ProbeObservations();
        for (Layout l : Layout.values()) {
            ClaimRun r = ClaimRun.run(context, ClaimOrder.FIFO, l, rows, migration, obs);
            obs.point(r.line(), r.plan() == null ? null : !r.plan().spoolsLobs());
        }
        return obs.result();
    }
}
