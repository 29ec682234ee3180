package dev.sqlqueue.sqlserver;

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
 * each seek or scan of a table used, and which columns a spool carries. Element and attribute names per
 * the manual "Showplan logical and physical operators reference" and the published showplan schema
 * ({@code RelOp/@PhysicalOp}, {@code IndexScan/Object/@Table}, {@code @Index}, {@code OutputList/ColumnReference/@Column}).
 *
 * @param operators every {@code PhysicalOp}, in document order
 * @param accesses one line per table access: operator, table and index ({@code Index Seek [t].[i]})
 * @param spoolColumns columns output by any spool operator
 */
record PlanSummary(List<String> operators, List<String> accesses, Set<String> spoolColumns) {

    /**
     * Parse a showplan document. External entities are refused.
     *
     * @throws IllegalArgumentException if the text is not a showplan XML document
     */
    static PlanSummary of(String showplanXml) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(false);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Element root = f.newDocumentBuilder().parse(new InputSource(new StringReader(showplanXml))).getDocumentElement();
            List<String> ops = new ArrayList<>();
            List<String> accesses = new ArrayList<>();
            Set<String> spool = new LinkedHashSet<>();
            NodeList relOps = root.getElementsByTagName("RelOp");
            for (int i = 0; i < relOps.getLength(); i++) {
                Element op = (Element) relOps.item(i);
                String physical = op.getAttribute("PhysicalOp");
                ops.add(physical);
                for (Node c = op.getFirstChild(); c != null; c = c.getNextSibling()) {
                    if (c instanceof Element e && (e.getTagName().equals("IndexScan") || e.getTagName().equals("TableScan"))) {
                        Element obj = child(e, "Object");
                        if (obj != null) {
                            accesses.add(physical + " " + obj.getAttribute("Table")
                                    + (obj.getAttribute("Index").isEmpty() ? "" : "." + obj.getAttribute("Index")));
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
                }
            }
            if (!root.getTagName().equals("ShowPlanXML")) {
                throw new IllegalArgumentException("not a showplan document: root element " + root.getTagName());
            }
            return new PlanSummary(List.copyOf(ops), List.copyOf(accesses), Set.copyOf(spool));
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalArgumentException("not a showplan document: " + e.getMessage(), e);
        }
    }

    private static Element child(Element parent, String tag) {
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
        return accesses.stream().anyMatch(a -> a.contains("Scan") && a.contains(" " + tableQuoted));
    }

    /** True when {@code indexQuoted} ({@code [sqlq_messages_claim]}) is read by an Index Seek. */
    boolean seeksOn(String indexQuoted) {
        return accesses.stream().anyMatch(a -> a.startsWith("Index Seek") && a.endsWith("." + indexQuoted));
    }

    /** True when a spool carries the payload or headers column. */
    boolean spoolsLobs() {
        return spoolColumns.contains("payload") || spoolColumns.contains("headers");
    }

    /** One line: accesses, whether it sorts, spool columns. */
    String line() {
        return "accesses " + accesses + "; sort " + (sorts() ? "yes" : "no") + "; spool columns "
                + (spoolColumns.isEmpty() ? "none" : spoolColumns);
    }
}
