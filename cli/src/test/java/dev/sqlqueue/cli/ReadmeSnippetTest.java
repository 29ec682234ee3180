package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README.md's library example compiles as printed: its {@code java} block is taken out of the README and compiled
 * with javax.tools against this module's class path (which holds core and the dialects), warnings included.
 */
class ReadmeSnippetTest {
    @TempDir
    Path dir;

    static String snippet() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("(?s)```java\\n(.*?)```").matcher(readme);
        assertTrue(m.find(), "README.md has no ```java block");
        String code = m.group(1);
        assertFalse(m.find(), "README.md has more than one ```java block; this test compiles the first only");
        return code;
    }

    @Test
    void theJavaBlockCompilesAsPrinted() throws Exception {
        String code = snippet();
        assertFalse(code.contains("Thread.sleep"), "the snippet waits with the API, not with Thread.sleep");
        assertFalse(code.contains(".getBytes()"), "the snippet names its charset");
        assertFalse(code.contains(", null)"), "the snippet passes no positional null");
        Matcher cls = Pattern.compile("public class (\\w+)").matcher(code);
        assertTrue(cls.find(), "the snippet is a whole class");
        Path src = dir.resolve(cls.group(1) + ".java");
        Files.writeString(src, code, StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter out = new StringWriter();
        boolean ok = javac.getTask(out, null, null,
                List.of("-Xlint:all", "-Werror", "-proc:none", "-encoding", "UTF-8", "-d", dir.toString(),
                        "-cp", System.getProperty("java.class.path")),
                null, javac.getStandardFileManager(null, null, StandardCharsets.UTF_8).getJavaFileObjects(src)).call();
        assertTrue(ok, () -> "README.md's snippet does not compile:\n" + out + "\n" + code);
        assertEquals("", out.toString().trim());
    }
}
