package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sqlqueue.HistoryEntry;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell conventions of issue 34, in-process on an H2 file database. */
class ConventionsTest {
    @TempDir
    Path dir;

    @Test
    void aMistypedCommandOrOptionGetsASuggestion() {
        Cli.Run command = Cli.raw("enqeue");
        assertEquals(ExitCodes.USAGE, command.code(), command::toString);
        assertTrue(command.err().contains("did you mean 'enqueue'?"), command::toString);
        Cli.Run option = Cli.raw("stats", "--queu", "x");
        assertTrue(option.err().contains("did you mean '--queue'?"), option::toString);
        assertEquals(1, option.errLines().size(), option::toString);
    }

    @Test
    void jobsIsTheWorkersOptionAndDashNIsDeprecated() throws Exception {
        Cli cli = new Cli(dir);
        Path f = dir.resolve("f.txt");
        Files.writeString(f, "a\nb\n");
        assertEquals(0, cli.run("enqueue", "-q", "jobs", f.toString()).code());
        Cli.Run p = cli.run("work", "-q", "jobs", "-P", "2", "--drain", "--exec", "true");
        assertEquals(0, p.code(), p::toString);
        assertFalse(p.err().contains("deprecated"), p::toString);
        assertEquals(0, cli.run("enqueue", "-q", "jobs", f.toString()).code());
        Cli.Run n = cli.run("work", "-q", "jobs", "-n", "2", "--drain", "--exec", "true");
        assertEquals(0, n.code(), n::toString);
        assertTrue(n.err().contains("-n is deprecated; use -P/--jobs"), n::toString);
        assertTrue(Cli.raw("work", "--help").out().contains("-P, --jobs"), "help names -P, --jobs");
    }

    @Test
    void enqueueReadsSeveralFilesAndStdin() throws Exception {
        Cli cli = new Cli(dir);
        Path a = dir.resolve("a.txt");
        Path b = dir.resolve("b.txt");
        Files.writeString(a, "a1\na2\n");
        Files.writeString(b, "b1\n");
        InputStream stdin = System.in;
        Cli.Run run;
        try {
            System.setIn(new ByteArrayInputStream("s1\ns2\n".getBytes(StandardCharsets.UTF_8)));
            run = cli.run("enqueue", "-q", "jobs", a.toString(), "-", b.toString());
        } finally {
            System.setIn(stdin);
        }
        assertEquals(0, run.code(), run::toString);
        assertTrue(run.out().contains("enqueued 5 messages"), run::toString);
        List<String> got = new java.util.ArrayList<>();
        try (SqlQueue q = cli.client()) {
            q.consume(QueueName.of("jobs"), dev.sqlqueue.ConsumeRequest.of(10)).forEach(d -> got.add(d.text()));
        }
        assertEquals(List.of("a1", "a2", "s1", "s2", "b1"), got);
    }

    @Test
    void historyListFilters() throws Exception {
        Cli cli = new Cli(dir);
        Path f = dir.resolve("f.txt");
        Files.writeString(f, "ok\nfail\n");
        assertEquals(0, cli.run("enqueue", "-q", "jobs", f.toString()).code());
        Cli.Run work = cli.run("work", "-q", "jobs", "--drain", "--max-attempts", "1", "--exec", "test {} = ok");
        assertEquals(ExitCodes.INCOMPLETE, work.code(), work::toString);
        Cli.Run all = cli.run("history", "list", "-q", "jobs");
        assertEquals(0, all.code(), all::toString);
        assertTrue(all.out().contains("acked") && all.out().contains("dead-lettered"), all::toString);
        Cli.Run dead = cli.run("history", "list", "-q", "jobs", "--outcome", "dead-lettered");
        assertEquals(0, dead.code(), dead::toString);
        assertTrue(dead.out().contains("dead-lettered") && !dead.out().contains(" acked"), dead::toString);
        Cli.Run bad = cli.run("history", "list", "-q", "jobs", "--outcome", "lost");
        assertEquals(ExitCodes.USAGE, bad.code(), bad::toString);
        assertTrue(bad.err().contains("rule: option.value"), bad::toString);
    }

    @Test
    void completionAndManPageAreGenerated() {
        Cli.Run bash = Cli.raw("completion", "bash");
        assertEquals(0, bash.code(), bash::toString);
        assertTrue(bash.out().contains("complete -F _complete_sqlqueue"), bash::toString);
        assertTrue(bash.out().contains("enqueue") && bash.out().contains("--jobs"), "subcommands and options completed");
        Cli.Run zsh = Cli.raw("completion", "zsh");
        assertEquals(0, zsh.code(), zsh::toString);
        assertTrue(zsh.out().contains("bashcompinit"), zsh::toString);
        Cli.Run man = Cli.raw("man", "work");
        assertEquals(0, man.code(), man::toString);
        assertTrue(man.out().contains(".TH") || man.out().contains("= sqlqueue-work(1)"), man::toString);
        assertTrue(man.out().contains("\\-\\-jobs"), man::toString);
    }
}
