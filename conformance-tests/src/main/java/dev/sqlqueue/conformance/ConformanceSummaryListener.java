package dev.sqlqueue.conformance;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints, at the end of a test run, how many conformance cases ran, passed, failed and were skipped
 * per backend test class, with the reason of every skip. Registered through
 * {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}, so any build that has
 * the kit on its test class path prints it.
 */
public final class ConformanceSummaryListener implements TestExecutionListener {
    private static final Pattern CASE = Pattern.compile("C\\d\\d .*");

    private static final class Tally {
        int passed;
        int failed;
        final Map<String, String> skipped = new TreeMap<>();
        final Map<String, String> failures = new TreeMap<>();
    }

    private final Map<String, Tally> tallies = new TreeMap<>();

    private static String suiteOf(TestIdentifier id) {
        if (id.getSource().orElse(null) instanceof MethodSource m && CASE.matcher(id.getDisplayName()).matches()) {
            String cls = m.getClassName();
            return cls.substring(cls.lastIndexOf('.') + 1).replace('$', ' ');
        }
        return null;
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        String suite = suiteOf(id);
        if (suite != null) {
            tallies.computeIfAbsent(suite, k -> new Tally()).skipped.put(id.getDisplayName(), reason);
        }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        String suite = suiteOf(id);
        if (suite == null) {
            return;
        }
        Tally t = tallies.computeIfAbsent(suite, k -> new Tally());
        switch (result.getStatus()) {
            case SUCCESSFUL -> t.passed++;
            case ABORTED -> t.skipped.put(id.getDisplayName(),
                    result.getThrowable().map(Throwable::getMessage).orElse("aborted").replace("Assumption failed: ", ""));
            case FAILED -> {
                t.failed++;
                t.failures.put(id.getDisplayName(), result.getThrowable().map(Throwable::toString).orElse("failed"));
            }
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        if (tallies.isEmpty()) {
            return;
        }
        StringBuilder b = new StringBuilder("\n=== sqlqueue conformance summary ===\n");
        tallies.forEach((suite, t) -> {
            b.append(String.format("%-45s ran %2d: %2d passed, %d failed; %2d skipped%n", suite,
                    t.passed + t.failed, t.passed, t.failed, t.skipped.size()));
            t.skipped.forEach((c, why) -> b.append("    skipped ").append(c).append(": ").append(why).append('\n'));
            t.failures.forEach((c, why) -> b.append("    FAILED  ").append(c).append(": ").append(why).append('\n'));
        });
        System.out.print(b);
        System.out.flush();
        tallies.clear();
    }
}
