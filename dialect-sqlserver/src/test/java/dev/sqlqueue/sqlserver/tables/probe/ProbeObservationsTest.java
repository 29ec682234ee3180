package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.sqlserver.tables.SqlServerErrors;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import org.junit.jupiter.api.Test;

/** The verdict rules every probe shares ({@link ProbeObservations}) and how errors are counted ({@link ErrorTally}). */
class ProbeObservationsTest {
    @Test
    void aDifferenceWinsAnUnreadValueGivesNoVerdictAndOnlyAllAgreedIsAsDocumented() {
        ProbeObservations agreed = new ProbeObservations();
        agreed.point("a", true);
        assertEquals(ProbeResult.Verdict.AS_DOCUMENTED, agreed.result().verdict());
        assertEquals("a -> as documented", agreed.result().observed());

        ProbeObservations unread = new ProbeObservations();
        unread.point("a", true);
        unread.couldNotRead("locks", new SQLException("denied", "S0001", 300));
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, unread.result().verdict());
        assertEquals("a -> as documented\ncould not read locks: error 300 (S0001): denied -> no verdict", unread.result().observed());

        ProbeObservations differs = new ProbeObservations();
        differs.couldNotRead("locks", new IllegalStateException("x"));
        differs.point("b", false);
        assertEquals(ProbeResult.Verdict.DIFFERS, differs.result().verdict());

        ProbeObservations nothing = new ProbeObservations();
        nothing.info("only context");
        assertEquals(ProbeResult.Verdict.INCONCLUSIVE, nothing.result().verdict(), "no point checked is no verdict");
    }

    @Test
    void errorsAreCountedByKindFromTheCauseChain() {
        ErrorTally t = new ErrorTally();
        t.add(new RuntimeException("wrapped", new SQLException("Transaction was deadlocked", "40001", 1205)));
        t.add(new SQLException("Lock request time out period exceeded.", "S00051", 1222));
        // Babelfish 4.3 (seen on the shared build): a lock time-out is its unmapped error with PostgreSQL's text
        t.add(new SQLException("canceling statement due to lock timeout", "S0001", SqlServerErrors.BABELFISH_UNMAPPED));
        t.add(new RuntimeException(new SQLTimeoutException("The query has timed out.", "HY008", 0)));
        t.add(new SQLException("other", "S0001", 2627));
        t.add(new IllegalStateException("no SQL"));
        assertEquals(1, t.count(ErrorTally.DEADLOCK));
        assertEquals(2, t.count(ErrorTally.LOCK_TIMEOUT));
        assertEquals(1, t.count(ErrorTally.QUERY_TIMEOUT));
        assertEquals(1, t.count("error 2627"));
        assertEquals(1, t.count("IllegalStateException"));
        assertEquals(6, t.total());
        assertEquals("none", new ErrorTally().toString());
    }

    @Test
    void parameterMarkersAreCountedOutsideLiteralsNamesAndComments() {
        assertEquals(2, ProbeJdbc.markers("SELECT ?, '?''?' AS [a?] -- ?\n, ? /* ? */"));
    }
}
