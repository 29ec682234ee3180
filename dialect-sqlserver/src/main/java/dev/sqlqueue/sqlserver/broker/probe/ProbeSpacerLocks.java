package dev.sqlqueue.sqlserver.broker.probe;

import dev.sqlqueue.sqlserver.broker.DialogStatements;
import dev.sqlqueue.sqlserver.broker.Sql;
import dev.sqlqueue.spi.ProbeResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * V14, the spacer clean-up's lock footprint (re-review N5, P7): a live fill (spread 50: 49 spacers and one
 * pooled dialog) and a dead one (spread 6: its pooled dialog discarded, 5 spacers left). In one transaction,
 * the sweeper's statements ({@link DialogStatements#deadFills}, {@link DialogStatements#endFillSpacers}), then
 * the locks the session holds on the dialogs table ({@code sys.dm_tran_locks}): only the dead fill's rows
 * (their clustered and ix_fill keys), none of the live fill's, and no table lock.
 */
final class ProbeSpacerLocks extends BrokerProbe {
    static final int DEAD_SPACERS = 5;

    ProbeSpacerLocks() {
        super("V14", "Does the spacer clean-up lock only the dead fill's rows (no row of a live fill, no escalation)?",
                "yes: dead fills are read without locking hints, then each one's spacers through ix_fill");
    }

    @Override
    ProbeResult experiment(Setup s) throws Exception {
        String owner = UUID.randomUUID().toString();
        try (Connection c = s.connect()) {
            Sql.query(c, s.sql.dialogs().fillDialogs(s.q, 600), 1, 50, s.q.value(), owner);
            List<Object[]> dead = Sql.query(c, s.sql.dialogs().fillDialogs(s.q, 600), 1, DEAD_SPACERS + 1, s.q.value(), owner);
            Sql.update(c, s.sql.dialogs().discardDialog(), String.valueOf(dead.get(0)[0]));
            Sql.begin(c);
            List<Object[]> fills = Sql.query(c, s.sql.dialogs().deadFills(), 10, s.q.value());
            long ended = 0;
            for (Object[] f : fills) {
                ended += Sql.asLong(Sql.query(c, s.sql.dialogs().endFillSpacers(), 100, s.q.value(), Sql.asLong(f[0])).get(0)[0]);
            }
            String locks;
            long keyLocks = 0;
            boolean table = false;
            try {
                StringBuilder b = new StringBuilder();
                for (Object[] r : Sql.query(c, s.sql.probes().probeDialogLocks())) {
                    b.append(b.length() == 0 ? "" : ", ").append(r[0]).append(' ').append(r[1]).append(' ').append(r[2]);
                    keyLocks += String.valueOf(r[1]).equals("KEY") ? Sql.asLong(r[2]) : 0;
                    table |= String.valueOf(r[1]).equals("OBJECT") && !String.valueOf(r[0]).startsWith("I");
                }
                locks = b.length() == 0 ? "no lock on the dialogs table" : b.toString();
            } catch (SQLException e) {
                c.rollback();
                c.setAutoCommit(true);
                return ProbeResult.inconclusive("dead fills " + fills.size() + ", spacers ended " + ended
                        + "; sys.dm_tran_locks not readable (error " + e.getErrorCode() + "): VIEW SERVER STATE needed");
            }
            c.rollback();
            c.setAutoCommit(true);
            String observed = "dead fills " + fills.size() + ", spacers ended " + ended + " (expected " + DEAD_SPACERS
                    + "); locks held then: " + locks;
            boolean ok = fills.size() == 1 && ended == DEAD_SPACERS && keyLocks <= 2L * DEAD_SPACERS && !table;
            return ok ? ProbeResult.asDocumented(observed) : ProbeResult.differs(observed);
        }
    }
}
