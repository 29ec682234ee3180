package dev.sqlqueue.conformance.kit;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Which sqlqueue the report was made with: the version Maven wrote into {@code kit-build.properties}
 * at build time, and the git commit: from the same file when the build recorded one, else read from
 * the git metadata of the checkout the classes were loaded from (a run from a source tree), else
 * "unknown".
 */
final class KitBuild {
    private KitBuild() {
    }

    private static Properties properties() {
        Properties p = new Properties();
        try (InputStream in = KitBuild.class.getResourceAsStream("kit-build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // no build information: reported as unknown
        }
        return p;
    }

    /** The sqlqueue version, for example {@code 0.1.0-SNAPSHOT}. */
    static String version() {
        String v = properties().getProperty("version", "");
        return v.isBlank() || v.startsWith("${") ? "unknown" : v;
    }

    /** The git commit the kit was built from, or {@code unknown}. */
    static String commit() {
        String c = properties().getProperty("commit", "");
        if (!c.isBlank() && !c.startsWith("${")) {
            return c;
        }
        try {
            Path here = Path.of(KitBuild.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path d = here; d != null; d = d.getParent()) {
                Path git = d.resolve(".git");
                if (Files.exists(git)) {
                    String head = headOf(git);
                    return head == null ? "unknown" : head;
                }
            }
        } catch (URISyntaxException | RuntimeException | IOException e) {
            // not from a checkout
        }
        return "unknown";
    }

    /** The commit HEAD names in a {@code .git} directory or a worktree's {@code .git} file. */
    private static String headOf(Path git) throws IOException {
        Path dir = git;
        if (Files.isRegularFile(git)) {
            String line = Files.readString(git, StandardCharsets.UTF_8).trim();
            if (!line.startsWith("gitdir:")) {
                return null;
            }
            dir = git.getParent().resolve(line.substring("gitdir:".length()).trim());
        }
        String head = Files.readString(dir.resolve("HEAD"), StandardCharsets.UTF_8).trim();
        if (!head.startsWith("ref:")) {
            return head;
        }
        String ref = head.substring(4).trim();
        Path common = dir;
        Path commonFile = dir.resolve("commondir");
        if (Files.exists(commonFile)) {
            common = dir.resolve(Files.readString(commonFile, StandardCharsets.UTF_8).trim()).normalize();
        }
        for (Path base : new Path[] {dir, common}) {
            Path loose = base.resolve(ref);
            if (Files.exists(loose)) {
                return Files.readString(loose, StandardCharsets.UTF_8).trim();
            }
        }
        Path packed = common.resolve("packed-refs");
        if (Files.exists(packed)) {
            for (String l : Files.readAllLines(packed, StandardCharsets.UTF_8)) {
                if (l.endsWith(" " + ref)) {
                    return l.substring(0, l.indexOf(' '));
                }
            }
        }
        return null;
    }
}
