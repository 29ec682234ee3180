package dev.sqlqueue.spi;

/**
 * One experiment that settles, on a real server, a question that reading the vendor documentation
 * could not (for example "does {@code ROLLBACK TRANSACTION} to a savepoint taken before
 * {@code WAITFOR (RECEIVE ...)} put the messages back without counting toward the poison limit?").
 *
 * <p>A backend lists its probes through {@link BackendProvider#probes()}; {@code sqlqueue probe}
 * runs them one after another and prints one {@link ProbeResult} per probe, so a DBA with such a server
 * can paste the output into an issue.
 *
 * <p>Rules for an implementation: every object it creates is named with {@link ProbeContext#prefix()}
 * and dropped before {@link #run} returns, whatever happens (as the conformance kit does); it never
 * touches objects it did not create; it reports what it observed, not what it expected. Its statements
 * live in the dialect's statements class and are pinned by text like every other statement.
 * Implementations need not be thread-safe: the runner calls one probe at a time.
 */
public interface Probe {
    /**
     * A short stable id, unique within the backend, as the review names the question: {@code V1}.
     *
     * @return the id
     */
    String id();

    /**
     * The question the probe settles, one line.
     *
     * @return the question
     */
    String question();

    /**
     * What the project's documentation currently claims the answer is (the point in
     * {@code docs/backends/NAME.md}), one line, printed beside what the probe measured.
     *
     * @return the claim
     */
    String documented();

    /**
     * Run the experiment and clean up after it.
     *
     * @param context connections to the server under test and the prefix for every object created
     * @return the verdict and what was observed; never null
     * @throws Exception when the experiment could not be carried out (the runner reports
     *     {@link ProbeResult.Verdict#ERROR} with the message and goes on with the next probe)
     */
    ProbeResult run(ProbeContext context) throws Exception;
}
