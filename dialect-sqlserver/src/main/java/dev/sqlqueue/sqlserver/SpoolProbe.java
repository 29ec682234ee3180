package dev.sqlqueue.sqlserver;

import dev.sqlqueue.sqlserver.SqlServerOptions.ClaimOrder;
import dev.sqlqueue.sqlserver.SqlServerOptions.Layout;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Probe V3 (review, "Halloween protection in the claim"): the claim updates {@code visible_at}, a key
 * of the index it reads, so its plan needs Halloween protection; does a spool in the fifo claim's plan
 * carry the {@code payload} and {@code headers} columns (up to 500 LOB values into tempdb per claim)?
 * As documented when no spool carries them. Creates and drops two table sets; not thread-safe.
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
        return "docs/backends/sqlserver.md, 'Open questions' V3: expected that no spool carries payload or headers"
                + " (unverified; if one does, the claim should return ids and read payloads by id)";
    }

    @Override
    public ProbeResult run(ProbeContext context) throws SQLException {
        List<String> lines = new ArrayList<>();
        boolean known = true;
        boolean lobs = false;
        for (Layout l : Layout.values()) {
            ClaimRun r = ClaimRun.run(context, ClaimOrder.FIFO, l, rows, migration);
            lines.add(r.line());
            known &= r.plan() != null;
            lobs |= r.plan() != null && r.plan().spoolsLobs();
        }
        String observed = String.join("\n", lines);
        return lobs ? ProbeResult.differs(observed) : known ? ProbeResult.asDocumented(observed) : ProbeResult.inconclusive(observed);
    }
}
