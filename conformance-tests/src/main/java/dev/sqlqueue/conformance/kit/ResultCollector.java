package dev.sqlqueue.conformance.kit;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Collects one {@link CaseResult} per case and mode from the JUnit Platform, and prints a line per case
 * as it ends. Failures of a whole suite class (for example its set-up) become a row too.
 */
final class ResultCollector implements TestExecutionListener {
    private static final Pattern CASE = Pattern.compile("(C\\d\\d) (.*)");

    private final PrintStream console;
    private final List<CaseResult> results = new ArrayList<>();
    private final Map<String, Long> started = new ConcurrentHashMap<>();

    ResultCollector(PrintStream console) {
        this.console = console;
    }

    synchronized List<CaseResult> results() {
        return new ArrayList<>(results);
    }

    private static String modeOf(String className) {
        if (className.equals(KitLeaseSuite.class.getName())) {
            return "lease";
        }
        if (className.equals(KitTransactionalSuite.class.getName())) {
            return "transactional";
        }
        return className.substring(className.lastIndexOf('.') + 1);
    }

    @Override
    public void executionStarted(TestIdentifier id) {
        started.put(id.getUniqueId(), System.nanoTime());
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        add(id, "skipped", reason, 0);
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        Long t0 = started.remove(id.getUniqueId());
        long ms = t0 == null ? 0 : (System.nanoTime() - t0) / 1_000_000;
        switch (result.getStatus()) {
            case SUCCESSFUL -> add(id, "passed", "", ms);
            case ABORTED -> add(id, "skipped", result.getThrowable().map(Throwable::getMessage).orElse("aborted")
                    .replace("Assumption failed: ", ""), ms);
            case FAILED -> add(id, "failed", result.getThrowable().map(ResultCollector::describe).orElse("failed"), ms);
        }
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        String s = t instanceof AssertionError ? (m == null ? "assertion failed" : m)
                : t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        if (t.getCause() != null && t.getCause() != t && t.getCause().getMessage() != null
                && !s.contains(t.getCause().getMessage())) {
            s += " (cause: " + t.getCause().getMessage() + ")";
        }
        return s;
    }

    private void add(TestIdentifier id, String status, String detail, long ms) {
        Matcher m = CASE.matcher(id.getDisplayName());
        if (id.getSource().orElse(null) instanceof MethodSource src && m.matches()) {
            record(new CaseResult(m.group(1), m.group(2), modeOf(src.getClassName()), status, oneLine(detail), ms));
        } else if (!status.equals("passed") && id.isContainer() && id.getParentId().isPresent()) {
            // a whole class failed or was skipped outside any case
            record(new CaseResult("-", id.getDisplayName(), id.getDisplayName(), status, oneLine(detail), ms));
        }
    }

    private synchronized void record(CaseResult r) {
        results.add(r);
        console.printf("  %-4s %-14s %-8s %6.1f s  %s%s%n", r.caseId(), r.mode(), r.status(), r.millis() / 1000.0,
                r.title(), r.detail().isEmpty() ? "" : ": " + shorten(r.detail(), 140));
        console.flush();
    }

    static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s*\\R\\s*", " ").trim();
    }

    static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
