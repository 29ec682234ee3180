package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The process side of 'work': argument passing, stdin, bounded output capture, time-outs. */
class ShellCommandTest {
    @Test
    void theMessageIsOneArgumentNeverShellSyntax() throws Exception {
        ShellCommand c = new ShellCommand("printf '%s|' {} \"$#\"", null, 4096);
        String evil = "a b; echo injected $(echo sub) `echo tick` \"q\" 'q' \\";
        ShellCommand.Result r = c.run(evil, new byte[0], Map.of());
        assertEquals(0, r.exitCode());
        assertEquals(evil + "|1|", r.stdoutTail());
    }

    @Test
    void megabytesOfOutputKeepOnlyTheTail() throws Exception {
        ShellCommand c = new ShellCommand("head -c 20000000 /dev/zero | tr '\\0' x; echo END; echo oops >&2; exit 4", null, 4096);
        ShellCommand.Result r = c.run("m", new byte[0], Map.of());
        assertEquals(4, r.exitCode());
        assertEquals(20_000_004L, r.stdoutBytes());
        assertEquals(4096 - 1, r.stdoutTail().length(), "the tail is 4 KB, stripped of its new line");
        assertTrue(r.stdoutTail().endsWith("xxxEND"), r.stdoutTail().substring(4000));
        assertEquals("oops", r.stderrTail());
    }

    @Test
    void aLargeStandardInputThatIsNotReadDoesNotBlock() throws Exception {
        ShellCommand c = new ShellCommand("exit 0", null, 4096);
        byte[] big = new byte[5_000_000];
        assertTrue(c.run("m", big, Map.of()).ok());
        ShellCommand wc = new ShellCommand("wc -c", null, 4096);
        assertEquals("5000000", wc.run("m", big, Map.of()).stdoutTail());
    }

    @Test
    void aTimeOutKillsTheCommand() throws Exception {
        ShellCommand c = new ShellCommand("echo started >&2; sleep 30", Duration.ofMillis(300), 4096);
        long t0 = System.nanoTime();
        ShellCommand.Result r = c.run("m", "x".getBytes(StandardCharsets.UTF_8), Map.of());
        assertTrue(r.timedOut());
        assertFalse(r.ok());
        assertEquals("started", r.stderrTail());
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
    }
}
