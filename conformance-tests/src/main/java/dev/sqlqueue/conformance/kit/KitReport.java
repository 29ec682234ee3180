package dev.sqlqueue.conformance.kit;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Renders a kit run: {@code conformance.md} (a header, then one row per case and mode with passed,
 * failed and the message, or skipped and the reason) and the short console table (one line per case,
 * one column per mode, then the reasons).
 */
final class KitReport {
    private KitReport() {
    }

    static String markdown(RunInfo info, List<CaseResult> results) {
        StringBuilder b = new StringBuilder();
        b.append("# sqlqueue conformance report: ").append(info.backend())
                .append(info.interrupted() == null ? "" : " (interrupted by " + info.interrupted() + ")").append("\n\n");
        b.append("| | |\n| --- | --- |\n");
        row(b, "sqlqueue", info.version() + " (commit " + info.commit() + ")");
        row(b, "backend", info.backend());
        row(b, "server", info.serverVersion());
        row(b, "server settings", info.serverSettings());
        row(b, "JDBC driver", info.driver());
        row(b, "Java", info.java());
        row(b, "OS", info.os());
        row(b, "date", info.date());
        row(b, "URL", info.url());
        row(b, "claim modes", String.join(", ", info.modes()));
        row(b, "cases", info.cases().isEmpty() ? "all" : String.join(", ", info.cases()));
        row(b, "case time limit", info.caseTimeout().toSeconds() + " s (--case-timeout)");
        row(b, "duration", String.format("%.1f s", info.duration().toMillis() / 1000.0));
        if (info.interrupted() != null) {
            row(b, "interrupted", "yes, by " + info.interrupted() + ": the cases after it were skipped");
        }
        row(b, "result", result(info, results));
        row(b, "objects left behind", info.leftovers().isEmpty()
                ? "none (" + info.prefixes().size() + " table prefixes used, all dropped)"
                : String.join(", ", info.leftovers()));
        b.append("\n| case | mode | result | time (s) | detail | what it checks |\n| --- | --- | --- | --- | --- | --- |\n");
        for (CaseResult r : sorted(results)) {
            b.append("| ").append(r.caseId()).append(' ').append(cell(r.title())).append(" | ").append(r.mode())
                    .append(" | ").append(r.failed() ? "**failed**" : r.status())
                    .append(" | ").append(String.format("%.1f", r.millis() / 1000.0))
                    .append(" | ").append(cell(r.detail()))
                    .append(" | ").append(cell(CaseCatalog.checks(r.caseId(), r.title()))).append(" |\n");
        }
        return b.toString();
    }

    /** The console table: one line per case, a column per mode, then every skip reason and failure. */
    static void console(PrintStream out, RunInfo info, List<CaseResult> results) {
        List<String> modes = new ArrayList<>();
        Map<String, Map<String, CaseResult>> byCase = new TreeMap<>();
        for (CaseResult r : sorted(results)) {
            if (!modes.contains(r.mode())) {
                modes.add(r.mode());
            }
            byCase.computeIfAbsent(r.caseId() + " " + r.title(), k -> new LinkedHashMap<>()).put(r.mode(), r);
        }
        out.println();
        if (info.interrupted() != null) {
            out.println("conformance kit: run interrupted by " + info.interrupted() + "; the cases after it were skipped");
        }
        out.println("sqlqueue " + info.version() + " (commit " + info.commit() + ") conformance: " + info.backend()
                + " (" + info.serverVersion() + "), " + info.driver());
        StringBuilder h = new StringBuilder(String.format("%-44s", "case"));
        modes.forEach(m -> h.append(String.format(" %-14s", m)));
        out.println(h.toString().stripTrailing());
        byCase.forEach((c, perMode) -> {
            StringBuilder line = new StringBuilder(String.format("%-44s", ResultCollector.shorten(c, 44)));
            for (String m : modes) {
                CaseResult r = perMode.get(m);
                line.append(String.format(" %-14s", r == null ? "-" : r.failed() ? "FAILED" : r.status()));
            }
            out.println(line.toString().stripTrailing());
        });
        for (CaseResult r : sorted(results)) {
            if (!r.status().equals("passed")) {
                out.println("  " + r.caseId() + " " + r.mode() + " " + r.status() + ": " + ResultCollector.shorten(r.detail(), 200));
            }
        }
        out.println(result(info, results) + "; " + String.format("%.1f s", info.duration().toMillis() / 1000.0)
                + "; objects left behind: " + (info.leftovers().isEmpty() ? "none" : String.join(", ", info.leftovers())));
        out.flush();
    }

    /** The totals, and "(interrupted by SIGTERM)" after them when a signal ended the run. */
    static String result(RunInfo info, List<CaseResult> results) {
        return totals(results) + (info.interrupted() == null ? "" : " (interrupted by " + info.interrupted() + ")");
    }

    static String totals(List<CaseResult> results) {
        long passed = results.stream().filter(r -> r.status().equals("passed")).count();
        long failed = results.stream().filter(CaseResult::failed).count();
        long skipped = results.stream().filter(r -> r.status().equals("skipped")).count();
        return passed + " passed, " + failed + " failed, " + skipped + " skipped";
    }

    private static List<CaseResult> sorted(List<CaseResult> results) {
        List<CaseResult> out = new ArrayList<>(results);
        out.sort((a, b) -> a.caseId().equals(b.caseId()) ? a.mode().compareTo(b.mode()) : a.caseId().compareTo(b.caseId()));
        return out;
    }

    private static void row(StringBuilder b, String k, String v) {
        b.append("| ").append(k).append(" | ").append(cell(v)).append(" |\n");
    }

    private static String cell(String s) {
        return s == null ? "" : s.replace("|", "\\|").replace("\n", " ");
    }
}
