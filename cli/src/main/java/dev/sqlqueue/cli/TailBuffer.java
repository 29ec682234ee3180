package dev.sqlqueue.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Keeps only the last {@code capacity} bytes written to it (a ring buffer), so draining a command that
 * prints megabytes uses a fixed amount of memory. Thread-safe.
 */
final class TailBuffer {
    private final byte[] ring;
    private long written;

    /** @param capacity bytes kept, at least 1 */
    TailBuffer(int capacity) {
        this.ring = new byte[capacity];
    }

    synchronized void write(byte[] b, int off, int len) {
        if (len >= ring.length) {
            System.arraycopy(b, off + len - ring.length, ring, 0, ring.length);
            written += len;
            int start = (int) (written % ring.length);
            rotate(start);
            return;
        }
        for (int i = 0; i < len; i++) {
            ring[(int) ((written + i) % ring.length)] = b[off + i];
        }
        written += len;
    }

    /** After a full overwrite at position 0, shift so that logical order is kept for {@link #bytes()}. */
    private void rotate(int start) {
        if (start == 0) {
            return;
        }
        byte[] copy = ring.clone();
        for (int i = 0; i < ring.length; i++) {
            ring[(start + i) % ring.length] = copy[i];
        }
    }

    /** Read {@code in} to its end into this buffer; I/O errors end the read quietly. */
    void drain(InputStream in) {
        byte[] chunk = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(chunk)) > 0) {
                write(chunk, 0, n);
            }
        } catch (IOException e) {
            // the process went away; keep what was read
        }
    }

    /** Total bytes ever written. */
    synchronized long totalBytes() {
        return written;
    }

    /** The kept bytes, oldest first. */
    synchronized byte[] bytes() {
        int n = (int) Math.min(written, ring.length);
        byte[] out = new byte[n];
        long first = written - n;
        for (int i = 0; i < n; i++) {
            out[i] = ring[(int) ((first + i) % ring.length)];
        }
        return out;
    }

    /** The kept bytes as UTF-8 text (a character cut at the start becomes U+FFFD), stripped. */
    String text() {
        return new String(bytes(), StandardCharsets.UTF_8).strip();
    }
}
