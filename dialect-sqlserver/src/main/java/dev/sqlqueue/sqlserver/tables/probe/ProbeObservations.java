package dev.sqlqueue.sqlserver.tables.probe;

import dev.sqlqueue.spi.ProbeResult;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one probe saw, line by line, and the verdict that follows from it. Each checked point is printed with
 * its raw observation and its own verdict ({@code -> as documented}, {@code -> DIFFERS}, {@code -> no verdict});
 * a value the probe could not read (a dynamic management view that is missing or not permitted, a statement
 * the server refuses) is printed as {@code could not read X: <error>} and decides nothing.
 *
 * <p>The probe's verdict: {@link ProbeResult.Verdict#DIFFERS} as soon as one measured point contradicts the
 * page; otherwise {@link ProbeResult.Verdict#INCONCLUSIVE} when a point could not be measured (or none was
 * checked at all); {@link ProbeResult.Verdict#AS_DOCUMENTED} only when every point was measured and agrees.
 * Not thread-safe.
 */
final class ProbeObservations {
    static final String AS_DOCUMENTED = " -> as documented";
    static final String DIFFERS = " -> DIFFERS";
    static final String NO_VERDICT = " -> no verdict";

    private final List<String> lines = new ArrayList<>();
    private int agreed;
    private int differed;
    private int unmeasured;

    /** A raw observation that decides nothing (context for the points). */
    void info(String observed) {
        lines.add(observed);
    }

    /**
     * A checked point: {@code matches} true when the observation agrees with the page, false when it contradicts
     * it, null when it could not be decided (then {@code observed} says why).
     */
    void point(String observed, Boolean matches) {
        if (matches == null) {
            unmeasured++;
            lines.add(observed + NO_VERDICT);
        } else if (matches) {
            agreed++;
            lines.add(observed + AS_DOCUMENTED);
        } else {
            differed++;
            lines.add(observed + DIFFERS);
        }
    }

    /** {@code could not read <what>: <error>}; counts as a point that could not be measured. */
    void couldNotRead(String what, Throwable e) {
        unmeasured++;
        lines.add("could not read " + what + ": " + describe(e) + NO_VERDICT);
    }

    /** A point the experiment could not measure, with the reason. */
    void notMeasured(String why) {
        point(why, null);
    }

    /** The lines so far, one per observation. */
    List<String> lines() {
        return List.copyOf(lines);
    }

    /** The verdict (see the class comment) with every line. */
    ProbeResult result() {
        String observed = String.join("\n", lines);
        if (differed > 0) {
            return ProbeResult.differs(observed);
        }
        if (unmeasured > 0 || agreed == 0) {
            return ProbeResult.inconclusive(observed.isEmpty() ? "nothing was measured" : observed);
        }
        return ProbeResult.asDocumented(observed);
    }

    /** An error as a DBA reads it: {@code error 1222 (S00051): Lock request time out period exceeded.}. */
    static String describe(Throwable e) {
        if (e instanceof SQLException s) {
            return "error " + s.getErrorCode() + (s.getSQLState() == null ? "" : " (" + s.getSQLState() + ")") + ": "
                    + oneLine(s.getMessage());
        }
        return e.getClass().getSimpleName() + ": " + oneLine(e.getMessage());
    }

    private static String oneLine(String s) {
        return s == null ? "(no message)" : s.replace('\n', ' ').replace('\r', ' ');
    }
}
