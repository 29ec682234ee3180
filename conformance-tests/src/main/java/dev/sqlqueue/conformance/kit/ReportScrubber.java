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
 * {@code hostname} attribute. This removes the properties block, blanks the host name, and replaces the
 * password, wherever else it might appear in a report file, with {@code ***}.
 */
final class ReportScrubber {
    private static final Pattern PROPERTIES = Pattern.compile("\\s*<properties>.*?</properties>", Pattern.DOTALL);
    private static final Pattern HOSTNAME = Pattern.compile("hostname=\"[^\"]*\"");

    private ReportScrubber() {
    }

    static String scrub(String text, String password) {
        String s = PROPERTIES.matcher(text).replaceAll("");
        s = HOSTNAME.matcher(s).replaceAll("hostname=\"\"");
        if (password != null && !password.isEmpty()) {
            s = s.replace(password, "***");
        }
        return s;
    }

    /** Scrubs every file of {@code dir} (not its subdirectories); problems are reported on {@code err}. */
    static void scrub(Path dir, String password, PrintStream err) {
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
                String clean = scrub(text, password);
                if (!clean.equals(text)) {
                    Files.writeString(f, clean, StandardCharsets.UTF_8);
                }
            } catch (IOException e) {
                err.println("conformance kit: cannot scrub " + f + " (delete it before publishing the report): " + e.getMessage());
            }
        }
    }
}
