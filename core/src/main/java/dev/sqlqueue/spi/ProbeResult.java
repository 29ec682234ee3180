package dev.sqlqueue.spi;

import java.util.Objects;

/**
 * The outcome of one {@link Probe}.
 *
 * @param verdict whether the server behaved as the project's documentation says
 * @param observed what the probe saw, in one or a few lines of plain text (row counts, error numbers,
 *     option values, plan operators); never null
 */
public record ProbeResult(Verdict verdict, String observed) {
    /** How the observation compares with {@link Probe#documented()}. */
    public enum Verdict {
        /** The server did what the documentation says. */
        AS_DOCUMENTED,
        /** The server did something else: the docs (and maybe the code) must change. */
        DIFFERS,
        /** The experiment ran but could not decide (for example a privilege was missing). */
        INCONCLUSIVE,
        /** The experiment could not run (an unexpected error). */
        ERROR
    }

    /**
     * Checks the components.
     *
     * @param verdict whether the server behaved as the project's documentation says
     * @param observed what the probe saw, in one or a few lines of plain text (row counts, error numbers,
     *     option values, plan operators); never null
     * @throws NullPointerException if {@code verdict} or {@code observed} is null
     */
    public ProbeResult {
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(observed, "observed");
    }

    /**
     * {@link Verdict#AS_DOCUMENTED} with what was observed.
     *
     * @param observed what the probe saw
     * @return a result with verdict {@link Verdict#AS_DOCUMENTED}
     */
    public static ProbeResult asDocumented(String observed) {
        return new ProbeResult(Verdict.AS_DOCUMENTED, observed);
    }

    /**
     * {@link Verdict#DIFFERS} with what was observed.
     *
     * @param observed what the probe saw
     * @return a result with verdict {@link Verdict#DIFFERS}
     */
    public static ProbeResult differs(String observed) {
        return new ProbeResult(Verdict.DIFFERS, observed);
    }

    /**
     * {@link Verdict#INCONCLUSIVE} with what was observed.
     *
     * @param observed what the probe saw
     * @return a result with verdict {@link Verdict#INCONCLUSIVE}
     */
    public static ProbeResult inconclusive(String observed) {
        return new ProbeResult(Verdict.INCONCLUSIVE, observed);
    }
}
