package dev.sqlqueue.conformance.kit;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Keeps the report directory publishable. The JUnit Platform's legacy XML report copies every JVM system
 * property into each {@code TEST-*.xml} ({@code sun.java.command} holds the command line, password
 * included; {@code user.name}, {@code user.home}, {@code java.class.path}...) and the host name into the
 * {@code hostname} attribute. This removes the properties block, blanks the host name, and masks the
 * passwords (the {@code --password} and those of the URL) wherever else they stand as a token of their own,
 * as {@link KitMask} does: XML syntax and the prefixes in {@code prefixes.log} are never touched.
 */
final class ReportScrubber {
    private static final Pattern PROPERTIES = Pattern.compile("\\s*<properties>.*?</properties>", Pattern.DOTALL);
    private static final Pattern HOSTNAME = Pattern.compile("hostname=\"[^\"]*\"");

    private ReportScrubber() {
    }

    /** A JUnit XML report without its properties block and host name, masked by {@link KitMask#xml}. */
    static String scrubXml(String text, KitMask mask) {
        String s = PROPERTIES.matcher(text).replaceAll("");
        s = HOSTNAME.matcher(s).replaceAll("hostname=\"\"");
        return mask.xml(s);
    }

    /** One report file's text, scrubbed by its kind: XML, {@code prefixes.log}, or plain text. */
    static String scrub(String fileName, String text, KitMask mask) {
        if (fileName.endsWith(".xml")) {
            return scrubXml(text, mask);
        }
        return fileName.equals("prefixes.log") ? mask.ledger(text) : mask.text(text);
    }

    /** Scrubs every file of {@code dir} (not its subdirectories); problems are reported on {@code err}. */
    static void scrub(Path dir, KitMask mask, PrintStream err) {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            err.println("conformance kit: cannot list the report directory " + dir + ": " + e.getMessage());
            return;
        }
        for (Path f : files) {
            try {
                String text = Files.readString(f, StandardCharsets.UTF_8);
                String clean = scrub(f.getFileName().toString(), text, mask);
                if (!clean.equals(text)) {
                    Files.writeString(f, clean, StandardCharsets.UTF_8);
                }
            } catch (IOException e) {
                err.println("conformance kit: cannot scrub " + f + " (delete it before publishing the report): " + e.getMessage());
            }
        }
    }
}
