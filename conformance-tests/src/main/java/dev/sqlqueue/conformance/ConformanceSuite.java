package dev.sqlqueue.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sqlqueue.ClaimMode;
import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.SqlQueue;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The conformance suite: every behaviour of {@code shared/notes/conformance.md}, one test per case
 * (C01..C21), grouped in {@link DeliveryCases}, {@link LeaseCases}, {@link ConcurrencyCases} and
 * {@link AdminCases}, plus C22 (message groups) in {@link GroupCases} and C23 (text outside the BMP) in
 * {@link TextCases}, C24..C26 (deduplication keys) in {@link DeduplicationCases}, and C27 (ack and claim in one call) in
 * {@link LeaseCases}, and C28 (pause and resume) in {@link PauseCases}. A backend's test class extends this, supplies its {@link ConformanceTarget} and a
 * {@link ClaimMode}, and inherits every case. A case whose capability or fault hook is missing aborts
 * with an assumption naming what is missing, so it is reported as skipped, never as passed.
 *
 * <p>Each case runs on a fresh backend opened under a unique table prefix, removed afterwards by
 * {@link ConformanceTarget#cleanUp}, also after a failure.
 */
public abstract class ConformanceSuite implements SuiteContext, DeliveryCases, LeaseCases, ConcurrencyCases, AdminCases,
        GroupCases, TextCases, DeduplicationCases, PauseCases {
    /**
     * The backend under test. Called once per case.
     *
     * @return the target; the suite calls it once per case and may get the same instance each time
     */
    protected abstract ConformanceTarget target();


    private ConformanceTarget current;
    private String prefix;
    private QueueConfig config;
    private SqlQueue queue;
    private final List<SqlQueue> others = new ArrayList<>();

    /**
     * The claim mode every case of this class uses.
     *
     * @return {@link ClaimMode#LEASE} or {@link ClaimMode#TRANSACTIONAL}
     */
    protected abstract ClaimMode mode();

    @Override
    public final ClaimMode claimMode() {
        return mode();
    }

    @Override
    public final FaultHooks hooks() {
        return current.faults();
    }

    @Override
    public final SqlQueue queue() {
        return queue;
    }

    @Override
    public final QueueConfig config() {
        return config;
    }

    @Override
    public final SqlQueue openAnother() {
        return openAnother(config);
    }

    @Override
    public final SqlQueue openAnother(QueueConfig c) {
        SqlQueue q = SqlQueue.open(c);
        others.add(q);
        return q;
    }

    /**
     * The unique prefix of the running case.
     *
     * @return the table (or queue-name) prefix the running case's backend was opened with, unique to the case
     */
    protected final String prefix() {
        return prefix;
    }

    @BeforeEach
    final void openBackend(org.junit.jupiter.api.TestInfo info) {
        current = target();
        Optional<String> why = current.unavailableReason();
        assumeTrue(why.isEmpty(), () -> "backend unavailable: " + why.orElse(""));
        String caseId = info.getDisplayName().split(" ", 2)[0];
        Optional<String> gap = current.knownGap(caseId, mode());
        assumeTrue(gap.isEmpty(), () -> "known gap of " + current.name() + ": " + gap.orElse(""));
        prefix = "kt" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36) + "_";
        config = current.config(prefix);
        queue = SqlQueue.open(config);
        assumeTrue(queue.capabilities().supports(mode()),
                () -> "missing capability: " + mode().name().toLowerCase() + " claim mode");
        Optional<String> gapOfThisBackend = current.knownGap(caseId, mode(), queue.capabilities());
        assumeTrue(gapOfThisBackend.isEmpty(), () -> "known gap of " + current.name() + ": " + gapOfThisBackend.orElse(""));
    }

    @AfterEach
    final void closeBackend() {
        try {
            for (SqlQueue q : others) {
                q.close();
            }
            others.clear();
            if (queue != null) {
                queue.close();
            }
        } finally {
            if (current != null && prefix != null) {
                current.cleanUp(prefix);
            }
        }
    }
}
