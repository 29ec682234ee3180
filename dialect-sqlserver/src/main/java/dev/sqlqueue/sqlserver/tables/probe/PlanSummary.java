package dev.sqlqueue.sqlserver.tables.probe;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * What a probe needs to know about a showplan XML document (schema
 * {@code http://schemas.microsoft.com/sqlserver/2004/07/showplan}): the physical operators, which index
 * each seek or scan of a table used, which columns a spool carries, and, in an actual plan (one returned by
 * {@code SET STATISTICS XML ON}, review P6), how many rows each access returned and read and which operators
 * spilled to tempdb. Element and attribute names per the manual "Showplan logical and physical operators
 * reference" and the published showplan schema (showplanxml.xsd): {@code RelOp/@PhysicalOp},
 * {@code IndexScan/Object/@Table} and {@code @Index}, {@code IndexScan/Predicate} (a residual predicate, beside
 * {@code SeekPredicates}), {@code OutputList/ColumnReference/@Column},
 * {@code RelOp/RunTimeInformation/RunTimeCountersPerThread/@ActualRows}, {@code @ActualRowsRead} (SQL Server 2016
 * SP1 and later), {@code @ActualExecutions}, {@code RelOp/Warnings/SpillToTempDb}, {@code SortSpillDetails},
 * {@code HashSpillDetails}, {@code StmtSimple/@RetrievedFromCache}.
 *
 * @param operators every {@code PhysicalOp}, in document order
 * @param accesses one per table access, in document order
 * @param spoolColumns columns output by any spool operator
 * @param spoolRows rows that went through spool operators (actual plans; null in an estimated plan)
 * @param spills one line per spill warning: operator and warning ({@code Sort SpillToTempDb level 1})
 * @param retrievedFromCache {@code StmtSimple/@RetrievedFromCache} of the statement that accesses a table, null
 *     when absent
 * @param actual true when the document carries run-time counters (an actual plan), false for an estimated one
 */
record PlanSummary(List<String> operators, List<Access> accesses, Set<String> spoolColumns, Long spoolRows, List<String> spills,
                   Boolean retrievedFromCache, boolean actual) {

    /**
     * One access to a table: its operator, table and index, whether it carries a residual predicate, and in an
     * actual plan the rows it returned, read and its executions (summed over threads; null when not reported).
     */
    record Access(String operator, String table, String index, boolean residual, Long actualRows, Long actualRowsRead,
                  Long executions) {
        /**
         * Rows read and rejected by the residual predicate: rows read minus rows returned (0 without one); null when
         * unknown (an estimated plan, or a server that does not report ActualRowsRead).
         */
        Long rejected() {
            if (actualRows == null) {
                return null;
            }
            if (!residual) {
                return 0L;
            }
            return actualRowsRead == null ? null : actualRowsRead - actualRows;
        }

        String line() {
            String name = operator + " " + table + (index.isEmpty() ? "" : "." + index);
            if (actualRows == null) {
                return name + (residual ? " (residual predicate)" : "");
            }
            return name + ": " + actualRows + " rows returned of " + (actualRowsRead == null ? "?" : actualRowsRead)
                    + " read" + (residual ? ", " + (rejected() == null ? "?" : rejected()) + " rejected by its residual predicate"
                    : "") + ", " + executions + " execution(s)";
        }
    }

    /**
     * Parse a showplan document. External entities are refused.
     *
     * @throws IllegalArgumentException if the text is not a showplan XML document
     */
    static PlanSummary of(String showplanXml) {
        Element root;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(false);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            root = f.newDocumentBuilder().parse(new InputSource(new StringReader(showplanXml))).getDocumentElement();
        } catch (Exception e) {
            throw new IllegalArgumentException("not a showplan document: " + e.getMessage(), e);
        }
        if (!root.getTagName().equals("ShowPlanXML")) {
            throw new IllegalArgumentException("not a showplan document: root element " + root.getTagName());
        }
        List<String> ops = new ArrayList<>();
        List<Access> accesses = new ArrayList<>();
        Set<String> spool = new LinkedHashSet<>();
        List<String> spills = new ArrayList<>();
        Long spoolRows = null;
        boolean actual = false;
        Boolean cached = null;
        NodeList relOps = root.getElementsByTagName("RelOp");
        for (int i = 0; i < relOps.getLength(); i++) {
            Element op = (Element) relOps.item(i);
            String physical = op.getAttribute("PhysicalOp");
            ops.add(physical);
            long[] counters = counters(child(op, "RunTimeInformation"));
            actual |= counters != null;
            for (Node c = op.getFirstChild(); c != null; c = c.getNextSibling()) {
                if (c instanceof Element e && (e.getTagName().equals("IndexScan") || e.getTagName().equals("TableScan"))) {
                    Element obj = child(e, "Object");
                    if (obj != null) {
                        accesses.add(new Access(physical, obj.getAttribute("Table"), obj.getAttribute("Index"),
                                child(e, "Predicate") != null, counters == null ? null : counters[0],
                                counters == null || counters[1] < 0 ? null : counters[1], counters == null ? null : counters[2]));
                        if (cached == null) {
                            cached = retrievedFromCache(op);
                        }
                    }
                }
            }
            if (physical.contains("Spool")) {
                Element out = child(op, "OutputList");
                if (out != null) {
                    NodeList cols = out.getElementsByTagName("ColumnReference");
                    for (int j = 0; j < cols.getLength(); j++) {
                        spool.add(((Element) cols.item(j)).getAttribute("Column"));
                    }
                }
                if (counters != null) {
                    spoolRows = (spoolRows == null ? 0 : spoolRows) + counters[0];
                }
            }
            Element warnings = child(op, "Warnings");
            if (warnings != null) {
                for (Node w = warnings.getFirstChild(); w != null; w = w.getNextSibling()) {
                    if (w instanceof Element e && e.getTagName().matches("SpillToTempDb|SortSpillDetails|HashSpillDetails")) {
                        spills.add(physical + " " + e.getTagName() + (e.hasAttribute("SpillLevel") ? " level "
                                + e.getAttribute("SpillLevel") : "") + (e.hasAttribute("WritesToTempDb") ? " writes "
                                + e.getAttribute("WritesToTempDb") : ""));
                    }
                }
            }
        }
        return new PlanSummary(List.copyOf(ops), List.copyOf(accesses), Set.copyOf(spool), actual ? spoolRows : null,
                List.copyOf(spills), cached, actual);
    }

    /** ActualRows, ActualRowsRead (-1 when not reported) and ActualExecutions summed over threads; null without counters. */
    private static long[] counters(Element runtime) {
        if (runtime == null) {
            return null;
        }
        long rows = 0;
        long read = 0;
        boolean readReported = true;
        long executions = 0;
        boolean any = false;
        for (Node c = runtime.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e && e.getTagName().equals("RunTimeCountersPerThread")) {
                any = true;
                rows += number(e, "ActualRows");
                executions += number(e, "ActualExecutions");
                if (e.hasAttribute("ActualRowsRead")) {
                    read += number(e, "ActualRowsRead");
                } else {
                    readReported = false;
                }
            }
        }
        return any ? new long[] {rows, readReported ? read : -1, executions} : null;
    }

    private static long number(Element e, String attribute) {
        String v = e.getAttribute(attribute);
        try {
            return v.isEmpty() ? 0 : Long.parseLong(v);
        } catch (NumberFormatException x) {
            throw new IllegalArgumentException("showplan attribute " + attribute + " is not a number: " + v, x);
        }
    }

    /** {@code @RetrievedFromCache} of the statement element ({@code StmtSimple}) above {@code op}, null when absent. */
    private static Boolean retrievedFromCache(Element op) {
        for (Node n = op.getParentNode(); n instanceof Element e; n = e.getParentNode()) {
            if (e.getTagName().equals("StmtSimple")) {
                String v = e.getAttribute("RetrievedFromCache");
                return v.isEmpty() ? null : Boolean.valueOf(v.equalsIgnoreCase("true") || v.equals("1"));
            }
        }
        return null;
    }

    private static Element child(Element parent, String tag) {
        if (parent == null) {
            return null;
        }
        for (Node c = parent.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e && e.getTagName().equals(tag)) {
                return e;
            }
        }
        return null;
    }

    /** True when some operator sorts ({@code Sort}, {@code Top N Sort}). */
    boolean sorts() {
        return operators.stream().anyMatch(o -> o.contains("Sort"));
    }

    /** True when the table {@code tableQuoted} ({@code [sqlq_messages]}) is read by a scan, not a seek. */
    boolean scans(String tableQuoted) {
        return accesses.stream().anyMatch(a -> a.operator().contains("Scan") && a.table().equals(tableQuoted));
    }

    /** True when {@code indexQuoted} ({@code [sqlq_messages_claim]}) is read by an Index Seek. */
    boolean seeksOn(String indexQuoted) {
        return accesses.stream().anyMatch(a -> a.operator().equals("Index Seek") && a.index().equals(indexQuoted));
    }

    /** True when some access reads the table {@code tableQuoted}. */
    boolean reads(String tableQuoted) {
        return accesses.stream().anyMatch(a -> a.table().equals(tableQuoted));
    }

    /** Rows rejected by residual predicates of accesses to {@code tableQuoted}; null when unknown (estimated plan). */
    Long rejected(String tableQuoted) {
        long n = 0;
        for (Access a : accesses) {
            if (a.table().equals(tableQuoted)) {
                if (a.rejected() == null) {
                    return null;
                }
                n += a.rejected();
            }
        }
        return n;
    }

    /** True when a spool carries the payload or headers column. */
    boolean spoolsLobs() {
        return spoolColumns.contains("payload") || spoolColumns.contains("headers");
    }

    /** One line: the kind of plan, accesses, whether it sorts, spools, spills. */
    String line() {
        return (actual ? "actual plan (retrieved from cache: " + (retrievedFromCache == null ? "not reported"
                : retrievedFromCache ? "yes" : "no") + ")" : "estimated plan (no run-time counters)")
                + "; accesses " + accesses.stream().map(Access::line).toList() + "; sort " + (sorts() ? "yes" : "no")
                + "; spool columns " + (spoolColumns.isEmpty() ? "none" : spoolColumns)
                + (spoolRows == null ? "" : ", " + spoolRows + " rows through spools")
                + "; spills " + (spills.isEmpty() ? (actual ? "none" : "unknown") : spills);
    }
}
