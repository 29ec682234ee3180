package dev.sqlqueue.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The open-loop schedule and the percentiles of {@link LatencyBench}: arithmetic only, no clock, no database. */
class LatencyBenchTest {

    @Test
    void messagesAreDueEvenlyFromTheStart() {
        assertEquals(1_000, LatencyBench.due(1_000, 0, 100));
        assertEquals(1_000 + 10_000_000, LatencyBench.due(1_000, 1, 100));
        assertEquals(1_000 + 1_000_000_000, LatencyBench.due(1_000, 100, 100));
        // a rate that does not divide a second: 3 msg/s
        assertEquals(333_333_333, LatencyBench.due(0, 1, 3));
        assertEquals(666_666_666, LatencyBench.due(0, 2, 3));
    }

    @Test
    void dueCountAgreesWithDueAtEveryBoundary() {
        assertEquals(0, LatencyBench.dueCount(100, 99, 1_000));
        assertEquals(1, LatencyBench.dueCount(100, 100, 1_000)); // message 0 is due at the start
        for (double rate : new double[] {3, 7.5, 1_000, 12_359.4}) {
            for (long i = 0; i < 2_000; i += 37) {
                long due = LatencyBench.due(5_000, i, rate);
                assertEquals(i + 1, LatencyBench.dueCount(5_000, due, rate), "rate " + rate + ", message " + i);
                assertEquals(i, LatencyBench.dueCount(5_000, due - 1, rate), "rate " + rate + ", before message " + i);
            }
        }
    }

    @Test
    void percentilesAreNearestRank() {
        long[] hundred = new long[100];
        for (int i = 0; i < 100; i++) {
            hundred[i] = i + 1; // 1..100
        }
        assertEquals(50, LatencyBench.percentile(hundred, 0.50));
        assertEquals(99, LatencyBench.percentile(hundred, 0.99));
        assertEquals(100, LatencyBench.percentile(hundred, 0.999));
        assertEquals(1, LatencyBench.percentile(hundred, 0.001));
        long[] one = {42};
        assertEquals(42, LatencyBench.percentile(one, 0.5));
        assertEquals(42, LatencyBench.percentile(one, 0.999));
        long[] thousand = new long[1_000];
        for (int i = 0; i < 1_000; i++) {
            thousand[i] = i;
        }
        assertEquals(998, LatencyBench.percentile(thousand, 0.999)); // the 999th smallest
        assertTrue(LatencyBench.percentile(thousand, 0.99) == 989);
        assertThrows(IllegalArgumentException.class, () -> LatencyBench.percentile(new long[0], 0.5));
    }

    @Test
    void maximumOptionTakesOneNumberOrOnePerDatabase() {
        assertEquals(0, BenchMain.maxFor("", "h2"));
        assertEquals(2_500, BenchMain.maxFor("2500", "mariadb"));
        assertEquals(9_000, BenchMain.maxFor("h2:3000,postgresql:9000", "postgresql"));
        assertEquals(0, BenchMain.maxFor("h2:3000", "mariadb"));
    }
}
