package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The process side of 'work': argument passing, stdin, bounded output capture, time-outs. */
class ShellCommandTest {
    @TempDir
    Path dir;

    /** An executable shell script in the temporary directory (whose path has only simple-word characters). */
    private Path script(String name, String body) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    private static final long JVM = ProcessHandle.current().pid();

    @Test
    void aSimpleCommandStartsTheProgramDirectlyNoShellBetween() throws Exception {
        Path ppid = script("ppid.sh", "echo \"$PPID|$#|$1|$2\" >&2");
        ShellCommand c = new ShellCommand(ppid + " {} --x={}.bak", null, 4096, false);
        assertTrue(c.direct());
        String msg = "a b; $(x) 'q' \"q\" * ~ \\ ünï";
        ShellCommand.Result r = c.run(msg.getBytes(StandardCharsets.UTF_8), Map.of());
        assertEquals(0, r.exitCode(), r::stderrTail);
        assertEquals(JVM + "|2|" + msg + "|--x=" + msg + ".bak", r.stderrTail(),
                "the program's parent is this JVM, with the arguments sh would have given it");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "echo {}", "printf %s {}", "test -f {}", "[ -f {} ]", "kill -0 1", "exit 3", "cd {}", ". {}", ": {}",
        "read x", "true", "pwd", "if", "FOO=1 sha256sum {}", "{} x", "sha256sum \"$1\"", "sha256sum '{}'",
        "sha256sum {} | wc", "sha256sum {} > out", "sha256sum {}; true", "sha256sum {} &", "sha256sum *.txt",
        "sha256sum ~/x", "sha256sum $HOME", "sha256sum {} # note", "sha256sum\n{}", "sha256sum {a,b}",
        "sha256sum a}", "sha256sum `x`", "sha256sum (x)", "", "  "})
    void whatTheShellWouldTreatOtherwiseGoesThroughTheShell(String command) {
        assertNull(ShellCommand.simpleWords(command), command);
    }

    @Test
    void simpleCommandsAreSplitIntoTheirWords() {
        assertEquals(List.of("sha256sum", "{}"), ShellCommand.simpleWords("sha256sum {}"));
        assertEquals(List.of("/usr/bin/env", "A=1", "cp", "-p", "{}", "/tmp/x/{}.bak,v2:@%^+"),
                ShellCommand.simpleWords("  /usr/bin/env\tA=1 cp -p {}  /tmp/x/{}.bak,v2:@%^+ "));
        assertEquals(List.of("/bin/echo", "{}"), ShellCommand.simpleWords("/bin/echo {}"), "a path is not the builtin");
        assertNotNull(ShellCommand.simpleWords("no-such-program {}"));
    }

    @Test
    void builtinsQuotingAndPipesKeepTheShellsResults() throws Exception {
        ShellCommand exit = new ShellCommand("exit 3", null, 4096, false);
        assertFalse(exit.direct());
        assertEquals(3, exit.run("m".getBytes(StandardCharsets.UTF_8), Map.of()).exitCode(), "dash's builtin exit");
        ShellCommand read = new ShellCommand("read x", null, 4096, false);
        assertEquals(0, read.run("line\n".getBytes(StandardCharsets.UTF_8), Map.of()).exitCode(), "dash's builtin read");
        Path seen = dir.resolve("seen");
        ShellCommand pipe = new ShellCommand("printf %s \"$1\" | wc -c > " + seen + "; echo {} >&2", null, 4096, false);
        assertFalse(pipe.direct());
        ShellCommand.Result r = pipe.run("x\\ty".getBytes(StandardCharsets.UTF_8), Map.of());
        assertEquals(0, r.exitCode());
        assertEquals("4", Files.readString(seen).strip());
        assertEquals("x\ty", r.stderrTail(), "dash's echo turns \\t into a tab, /bin/echo would not");
    }

    @Test
    void aProgramThatCannotStartGetsTheShellsExitCodeAndMessage() throws Exception {
        ShellCommand missing = new ShellCommand("no-such-program-sqlqueue {}", null, 4096, false);
        assertTrue(missing.direct());
        ShellCommand.Result r = missing.run("m".getBytes(StandardCharsets.UTF_8), Map.of());
        assertEquals(127, r.exitCode());
        assertEquals("sqlqueue: 1: no-such-program-sqlqueue: not found", r.stderrTail());

        Path notExecutable = dir.resolve("plain");
        Files.writeString(notExecutable, "echo hi\n");
        ShellCommand denied = new ShellCommand(notExecutable + " {}", null, 4096, false);
        assertTrue(denied.direct());
        ShellCommand.Result d = denied.run("m".getBytes(StandardCharsets.UTF_8), Map.of());
        assertEquals(126, d.exitCode());
        assertEquals("sqlqueue: 1: " + notExecutable + ": Permission denied", d.stderrTail());
    }

    @Test
    void aProgramKilledBySignalExitsWith128PlusTheSignalAsUnderTheShell() throws Exception {
        Path self = script("selfkill.sh", "kill -TERM $$");
        for (String command : List.of(self + " {}", self + " {}; exit $?")) {
            ShellCommand c = new ShellCommand(command, null, 4096, false);
            ShellCommand.Result r = c.run("m".getBytes(StandardCharsets.UTF_8), Map.of());
            assertEquals(143, r.exitCode(), command);
            assertFalse(r.ok());
        }
    }

    @Test
    void aTimeOutKillsADirectlyStartedProgram() throws Exception {
        ShellCommand c = new ShellCommand("sleep 30", Duration.ofMillis(300), 4096, false);
        assertTrue(c.direct());
        long t0 = System.nanoTime();
        ShellCommand.Result r = c.run("x".getBytes(StandardCharsets.UTF_8), Map.of());
        assertTrue(r.timedOut());
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
    }

    @Test
    void aMessageThatIsNotUtf8GoesThroughTheShellAndArrivesExactly() throws Exception {
        Path args = script("args.sh", "printf '%s' \"$1\" > \"$0.out\"; echo \"$PPID\" >&2");
        ShellCommand c = new ShellCommand(args + " {}", null, 4096, false);
        assertTrue(c.direct());
        byte[] latin1 = {'c', 'a', 'f', (byte) 0xe9, ' ', (byte) 0xff, '\\', 'n', '\n'};
        ShellCommand.Result r = c.run(latin1, Map.of());
        assertEquals(0, r.exitCode(), r::stderrTail);
        assertEquals(Arrays.toString(latin1), Arrays.toString(Files.readAllBytes(Path.of(args + ".out"))));
        assertNotEquals(Long.toString(JVM), r.stderrTail(), "escaped: decoded by sh, which started the script");
        byte[] ascii = "plain \\n text".getBytes(StandardCharsets.US_ASCII);
        r = c.run(ascii, Map.of());
        assertEquals(Arrays.toString(ascii), Arrays.toString(Files.readAllBytes(Path.of(args + ".out"))));
        assertEquals(Long.toString(JVM), r.stderrTail(), "passes as it is: started directly");
    }

    @Test
    void aDirectlyStartedProgramGetsTheEnvironmentTheShellWouldGiveIt() throws Exception {
        Path direct = dir.resolve("env-direct");
        Path viaSh = dir.resolve("env-sh");
        Map<String, String> env = Map.of("SQLQUEUE_MESSAGE_ID", "42", "SQLQUEUE_RUN", "tok");
        ShellCommand d = new ShellCommand("cp /proc/self/environ " + direct, null, 4096, false);
        assertTrue(d.direct());
        assertEquals(0, d.run("m".getBytes(StandardCharsets.UTF_8), env).exitCode());
        ShellCommand s = new ShellCommand("cp /proc/self/environ " + viaSh + " && :", null, 4096, false);
        assertFalse(s.direct());
        assertEquals(0, s.run("m".getBytes(StandardCharsets.UTF_8), env).exitCode());
        Set<String> a = entries(direct);
        Set<String> b = entries(viaSh);
        assertEquals(b, a);
        assertTrue(a.contains("SQLQUEUE_MESSAGE_ID=42"), a::toString);
    }

    /**
     * Ignored signals are the shell's; of the blocked ones only SIGQUIT may differ: the JVM blocks it in its
     * threads and Java passes the mask on to a program it starts, where dash clears it (docs/cli.md).
     */
    @Test
    void aDirectlyStartedProgramIgnoresWhatTheShellsWouldAndBlocksAtMostSigquit() throws Exception {
        Path direct = dir.resolve("status-direct");
        Path viaSh = dir.resolve("status-sh");
        new ShellCommand("cp /proc/self/status " + direct, null, 4096, false).run(new byte[] {'m'}, Map.of());
        new ShellCommand("cp /proc/self/status " + viaSh + " && :", null, 4096, false).run(new byte[] {'m'}, Map.of());
        assertEquals(field(viaSh, "SigIgn"), field(direct, "SigIgn"));
        long sigquit = 1L << (3 - 1);
        assertEquals(Long.parseLong(field(viaSh, "SigBlk"), 16) & ~sigquit, Long.parseLong(field(direct, "SigBlk"), 16) & ~sigquit);
    }

    private static String field(Path status, String name) throws Exception {
        return Files.readAllLines(status).stream().filter(l -> l.startsWith(name + ":")).findFirst().orElseThrow()
                .substring(name.length() + 1).strip();
    }

    private static Set<String> entries(Path environ) throws Exception {
        return new HashSet<>(Arrays.asList(Files.readString(environ).split("\0")));
    }

    @Test
    void theShellsPwdIsTheInheritedOneWhenItNamesTheWorkingDirectory() throws Exception {
        Path real = dir.toRealPath();
        Path link = Files.createSymbolicLink(dir.resolve("link"), real);
        assertNull(ShellCommand.pwdForShell(real.toString(), real));
        assertNull(ShellCommand.pwdForShell(link.toString(), real), "a logical path to the same directory stays");
        assertEquals(real.toString(), ShellCommand.pwdForShell("/", real));
        assertEquals(real.toString(), ShellCommand.pwdForShell(null, real));
        assertEquals(real.toString(), ShellCommand.pwdForShell("relative", real));
        assertEquals(real.toString(), ShellCommand.pwdForShell(dir.resolve("gone").toString(), real));
    }

    @Test
    void underItsOwnSessionACommandStillGoesThroughTheShell() throws Exception {
        ShellCommand c = new ShellCommand("sha256sum {}", null, 4096, true);
        assertFalse(c.direct());
    }
    @Test
    void theMessageIsOneArgumentNeverShellSyntax() throws Exception {
        ShellCommand c = new ShellCommand("printf '%s|' {} \"$#\" >&2", null, 4096);
        String evil = "a b; echo injected $(echo sub) `echo tick` \"q\" 'q' \\";
        ShellCommand.Result r = c.run(evil.getBytes(StandardCharsets.UTF_8), Map.of());
        assertEquals(0, r.exitCode());
        assertEquals(evil + "|1|", r.stderrTail());
    }

    @Test
    void megabytesOfOutputKeepOnlyTheTail() throws Exception {
        ShellCommand c = new ShellCommand("head -c 20000000 /dev/zero | tr '\\0' x; echo END; "
                + "(head -c 20000000 /dev/zero | tr '\\0' x; echo oops) >&2; exit 4", null, 4096);
        ShellCommand.Result r = c.run("m".getBytes(StandardCharsets.UTF_8), Map.of());
        assertEquals(4, r.exitCode());
        assertEquals(20_000_005L, r.stderrBytes());
        assertEquals(4096 - 1, r.stderrTail().length(), "the tail is 4 KB, stripped of its new line");
        assertTrue(r.stderrTail().endsWith("xxxoops"), r.stderrTail().substring(4000));
    }

    @Test
    void aLargeStandardInputThatIsNotReadDoesNotBlock() throws Exception {
        ShellCommand c = new ShellCommand("exit 0", null, 4096);
        byte[] big = new byte[100_000]; // over the 64 KiB of a pipe, under the 128 KiB of an argument
        java.util.Arrays.fill(big, (byte) 'x');
        assertTrue(c.run(big, Map.of()).ok());
        ShellCommand all = new ShellCommand("wc -c >&2", null, 4096);
        assertEquals("100000", all.run(big, Map.of()).stderrTail());
    }

    @Test
    void aTimeOutKillsTheCommand() throws Exception {
        ShellCommand c = new ShellCommand("echo started >&2; sleep 30", Duration.ofMillis(300), 4096);
        long t0 = System.nanoTime();
        ShellCommand.Result r = c.run("x".getBytes(StandardCharsets.UTF_8), Map.of());
        assertTrue(r.timedOut());
        assertFalse(r.ok());
        assertEquals("started", r.stderrTail());
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
    }

    /**
     * {@code "{}"} is how users of GNU parallel and {@code find -exec} write it: inside double quotes the message
     * must still be one word, not split nor expanded as a file name pattern (a message {@code *} given to
     * {@code rm "{}"} removed every file of the directory when {@code {}} became {@code "$1"}, which there closes
     * the quotes).
     */
    @ParameterizedTest
    @ValueSource(strings = {
        "printf '[%s]' {} > OUT", "printf '[%s]' \"{}\" > OUT", "printf '[%s]' \"x{}y\" > OUT",
        "printf '[%s]' \"$(printf '<%s>' {})\" > OUT", "printf '[%s]' \"a $(printf '<%s>' \"{}\") b\" > OUT"})
    void theMessageIsOneWordInsideDoubleQuotesToo(String command) throws Exception {
        Files.writeString(dir.resolve("keep1"), "");
        Files.writeString(dir.resolve("keep2"), "");
        Path out = dir.resolve("out");
        ShellCommand c = new ShellCommand("cd '" + dir + "' && " + command.replace("OUT", "'" + out + "'"), null, 4096, false);
        String msg = "a  b *";
        ShellCommand.Result r = c.run(msg.getBytes(StandardCharsets.UTF_8), Map.of());
        assertEquals(0, r.exitCode(), r::stderrTail);
        String expected = command.contains("x{}y") ? "[xa  b *y]" : command.contains("a $(") ? "[a <a  b *> b]"
                : command.contains("<%s>") ? "[<a  b *>]" : "[a  b *]";
        assertEquals(expected, Files.readString(out), command);
    }

    /**
     * A password written in {@code SQLQUEUE_URL} reached every command {@code work} ran (env showed it), while
     * {@code SQLQUEUE_PASSWORD} was removed.
     */
    @Test
    void theCommandsEnvironmentHoldsNoDatabasePassword() {
        for (String url : List.of("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&password=EnvLeak77",
                "jdbc:sqlserver://db:1433;databaseName=q;user=sa;password=EnvLeak77",
                "jdbc:mariadb://root:EnvLeak77@127.0.0.1:3306/test")) {
            Map<String, String> env = new java.util.HashMap<>(Map.of("SQLQUEUE_URL", url, "SQLQUEUE_PASSWORD", "x", "KEEP", "1"));
            ShellCommand.withoutCredentials(env);
            assertEquals(Map.of("KEEP", "1"), env, url);
        }
        Map<String, String> plain = new java.util.HashMap<>(Map.of("SQLQUEUE_URL", "jdbc:h2:file:./q", "SQLQUEUE_USER", "sa"));
        ShellCommand.withoutCredentials(plain);
        assertEquals(Map.of("SQLQUEUE_URL", "jdbc:h2:file:./q", "SQLQUEUE_USER", "sa"), plain, "a URL without a password stays");
    }
}
