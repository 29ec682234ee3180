package dev.sqlqueue.skiplocked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Nothing in the project's code, tests or scripts ends a process by name or stops a server it did not
 * start: no kill by process name (p-kill, kill-all), no cluster stop through the distribution's wrapper or immediate shutdown of a
 * cluster. (The patterns are split so that this file does not match itself.)
 */
class NoProcessEndedByNameTest {
    private static final Pattern FORBIDDEN = Pattern.compile(String.join("|", "\\bp" + "kill\\b", "\\bkill" + "all\\b",
            "stop -m imm" + "ediate", "pg_ctl" + "cluster[^\\n]*\\bstop\\b", "pg_ctl" + "cluster[^\\n]*\\brestart\\b"));

    @Test
    void noSourceFileEndsAProcessByName() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        assertTrue(Files.exists(root.resolve("pom.xml")) && Files.isDirectory(root.resolve("core")),
                "run from a module directory of the repository: " + root);
        List<String> hits = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String rel = root.relativize(p).toString();
                if (!Files.isRegularFile(p) || rel.contains("/target/") || rel.startsWith(".git") || rel.endsWith(".md")) {
                    continue;
                }
                String name = p.getFileName().toString();
                if (!(name.endsWith(".java") || name.endsWith(".sh") || name.endsWith(".xml") || rel.startsWith(".ci/")
                        || name.equals("sqlqueue"))) {
                    continue;
                }
                String text = Files.readString(p);
                if (FORBIDDEN.matcher(text).find()) {
                    hits.add(rel);
                }
            }
        }
        assertEquals(List.of(), hits, "files that end a process by name or stop a shared server");
    }
}
