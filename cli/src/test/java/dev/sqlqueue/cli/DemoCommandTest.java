package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The demo on its own temporary H2 database. */
class DemoCommandTest {
    @Test
    void processesEveryMessageOnceAndReportsLatency() {
        Cli.Run run = Cli.raw("demo", "--messages", "3000", "--workers", "4", "--batch-size", "50");
        assertEquals(0, run.code(), run::toString);
        assertTrue(run.out().contains("processed   3,000 in"), run::toString);
        assertTrue(run.out().contains("lost        0"), run::toString);
        assertTrue(run.out().contains("duplicated  0"), run::toString);
        Matcher m = Pattern.compile("p50 ([0-9.]+) ms, p99 ([0-9.]+) ms").matcher(run.out());
        assertTrue(m.find(), run::toString);
        double p50 = Double.parseDouble(m.group(1));
        double p99 = Double.parseDouble(m.group(2));
        assertTrue(p50 > 0 && p99 >= p50, run::toString);
        // the latency line says what it measures: the wait behind the backlog, with both rates to judge it by
        assertTrue(Pattern.compile("(?m)^ +time from enqueue to ack, waiting behind the backlog included: enqueued at [0-9,]+ msg/s,"
                + " acked at [0-9,]+ msg/s$").matcher(run.out()).find(), run::toString);
    }

    @Test
    void helpOffersNoEnvironmentVariableTheDemoIgnores() {
        Cli.Run help = Cli.raw("demo", "--help");
        assertTrue(!help.out().contains("SQLQUEUE_URL"), help::toString);
        assertTrue(help.out().contains("--url"), help::toString);
    }

    @Test
    void transactionalModeToo() {
        Cli.Run run = Cli.raw("demo", "--messages", "500", "--workers", "2", "--mode", "transactional");
        assertEquals(0, run.code(), run::toString);
        assertTrue(run.out().contains("transactional mode"), run::toString);
        assertTrue(run.out().contains("lost        0"), run::toString);
    }
}
