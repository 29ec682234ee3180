package dev.sqlqueue.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class ConvertersTest {
    @Test
    void durations() {
        assertEquals(Duration.ofMillis(250), DurationConverter.parse("250ms"));
        assertEquals(Duration.ofSeconds(30), DurationConverter.parse("30s"));
        assertEquals(Duration.ofMinutes(5), DurationConverter.parse("5m"));
        assertEquals(Duration.ofSeconds(90), DurationConverter.parse("1m30s"));
        assertEquals(Duration.ofDays(2), DurationConverter.parse("2d"));
        assertEquals(Duration.ofSeconds(-5), DurationConverter.parse("-5s"));
        assertEquals(Duration.ofSeconds(12), DurationConverter.parse("PT12S"));
        assertThrows(TypeConversionException.class, () -> DurationConverter.parse("30"));
        assertThrows(TypeConversionException.class, () -> DurationConverter.parse("5 minutes"));
        assertThrows(TypeConversionException.class, () -> DurationConverter.parse(""));
        assertEquals("250ms", DurationConverter.format(Duration.ofMillis(250)));
        assertEquals("1.5s", DurationConverter.format(Duration.ofMillis(1500)));
        assertEquals("4m 05s", DurationConverter.format(Duration.ofSeconds(245)));
    }

    @Test
    void tailBufferKeepsTheLastBytesInOrder() {
        TailBuffer t = new TailBuffer(8);
        byte[] data = "0123456789abcdefghij".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < data.length; i += 3) {
            t.write(data, i, Math.min(3, data.length - i));
        }
        assertEquals("cdefghij", t.text());
        t.write("KLMNOPQRSTUVWXYZ".getBytes(StandardCharsets.US_ASCII), 0, 16);
        assertEquals("STUVWXYZ", t.text());
        t.write("!".getBytes(StandardCharsets.US_ASCII), 0, 1);
        assertEquals("TUVWXYZ!", t.text());
        assertEquals(37, t.totalBytes());
    }

    @Test
    void previews() {
        assertEquals("a\\nb", TextTable.preview("a\nb", 10));
        assertEquals("abcdefg...", TextTable.preview("abcdefghijkl", 10));
        // bidirectional and other format characters (category Cf) would reorder the text on a terminal
        assertEquals("?RTL override gnp.exe", TextTable.preview("\u202eRTL override gnp.exe", 40));
        assertEquals("a?b?c?d?e?f?g", TextTable.preview("a\u202ab\u2066c\u2069d\u200ee\u200ff\u061cg", 40));
        assertEquals("שלום", TextTable.preview("שלום", 40));
    }
}
