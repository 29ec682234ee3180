package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.spi.HeaderCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The body of a data message (message type VALIDATION = NONE, so any bytes pass): version byte
 * ({@code 0x01} without a message group, {@code 0x02} with one), message id (8 bytes, big-endian),
 * enqueue time in ms since 1970-01-01 UTC (8 bytes, big-endian, taken from the database clock by the
 * send statement), header length in bytes (4 bytes, big-endian), the headers as UTF-8 text in the
 * {@link HeaderCodec} form; in version 2 only, the group's length in bytes (2 bytes, big-endian) and
 * the group as UTF-8; then the payload bytes. The first 17 bytes are written by the server
 * ({@link SendStatements#send}, {@link SendStatements#sendGrouped}); the adapter writes the rest
 * ({@link #rest}). The header length sits at bytes 18..21 in both versions. Decoding happens in Java,
 * never inside RECEIVE.
 *
 * @param messageId the 64-bit id
 * @param enqueuedMillis enqueue time, ms since 1970 on the database clock
 * @param rawHeaders the headers as stored (may be malformed if a foreign sender wrote the body)
 * @param group the message group (1..128 characters), or null
 * @param payload the payload bytes
 */
public record Envelope(long messageId, long enqueuedMillis, String rawHeaders, String group, byte[] payload) {
    /** The version byte of a message without a group. */
    public static final byte VERSION = 1;
    /** The version byte of a message with a group. */
    public static final byte VERSION_GROUPED = 2;
    /** Bytes before the header text. */
    public static final int FIXED = 21;

    /**
     * A message without a group (version 1).
     *
     * @param messageId the message's id
     * @param enqueuedMillis the enqueue time, in milliseconds since the epoch
     * @param rawHeaders the headers as sent, which may be malformed
     * @param payload the payload bytes
     */
    public Envelope(long messageId, long enqueuedMillis, String rawHeaders, byte[] payload) {
        this(messageId, enqueuedMillis, rawHeaders, null, payload);
    }

    /** Thrown by {@link #decode} for a body that is not an envelope; the message names the defect. */
    public static final class UndecodableException extends Exception {
        /**
         * A body that is not an envelope.
         *
         * @param message the defect, for example the length found
         */
        public UndecodableException(String message) {
            super(message);
        }
    }

    /**
     * The part the adapter writes without a group: header length, header bytes, payload.
     *
     * @param headers the headers, in order
     * @param payload the payload bytes
     * @return the part the adapter writes without a group
     */
    public static byte[] rest(Map<String, String> headers, byte[] payload) {
        return rest(headers, null, payload);
    }

    /**
     * The part the adapter writes: header length, header bytes, [group length, group bytes when
     * {@code group} is not null], payload. The server's first byte must then be {@link #VERSION_GROUPED}.
     *
     * @param headers the headers, in order
     * @param group the message group
     * @param payload the payload bytes
     * @return the part the adapter writes
     */
    public static byte[] rest(Map<String, String> headers, String group, byte[] payload) {
        byte[] h = HeaderCodec.encode(headers).getBytes(StandardCharsets.UTF_8);
        byte[] g = groupBytes(group);
        ByteBuffer b = ByteBuffer.allocate(4 + h.length + g.length + payload.length).putInt(h.length).put(h);
        return b.put(g).put(payload).array();
    }

    private static byte[] groupBytes(String group) {
        if (group == null) {
            return new byte[0];
        }
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + g.length).putShort((short) g.length).put(g).array();
    }

    /**
     * The whole body, for sending a message again with its id, enqueue time and group.
     *
     * @return the whole body, for sending a message again with its id, enqueue time and group
     */
    public byte[] encode() {
        byte[] h = rawHeaders.getBytes(StandardCharsets.UTF_8);
        byte[] g = groupBytes(group);
        return ByteBuffer.allocate(FIXED + h.length + g.length + payload.length)
                .put(group == null ? VERSION : VERSION_GROUPED).putLong(messageId)
                .putLong(enqueuedMillis).putInt(h.length).put(h).put(g).put(payload).array();
    }

    /**
     * @param body the message body as received
     * @return the envelope
     * @throws UndecodableException if the body is null, too short, of another version, or its header
     *     length runs past the end
     */
    public static Envelope decode(byte[] body) throws UndecodableException {
        if (body == null || body.length < FIXED) {
            throw new UndecodableException("message body of " + (body == null ? 0 : body.length)
                    + " bytes is shorter than the " + FIXED + "-byte envelope header");
        }
        ByteBuffer b = ByteBuffer.wrap(body);
        byte version = b.get();
        if (version != VERSION && version != VERSION_GROUPED) {
            throw new UndecodableException("unknown envelope version " + version);
        }
        long id = b.getLong();
        long enqueued = b.getLong();
        int hlen = b.getInt();
        if (hlen < 0 || hlen > body.length - FIXED) {
            throw new UndecodableException("header length " + hlen + " runs past the end of the body");
        }
        String headers = new String(body, FIXED, hlen, StandardCharsets.UTF_8);
        int at = FIXED + hlen;
        String group = null;
        if (version == VERSION_GROUPED) {
            if (body.length - at < 2) {
                throw new UndecodableException("version 2 body ends before its group length");
            }
            int glen = ((body[at] & 0xff) << 8) | (body[at + 1] & 0xff);
            if (glen < 1 || glen > body.length - at - 2) {
                throw new UndecodableException("group length " + glen + " is empty or runs past the end of the body");
            }
            group = new String(body, at + 2, glen, StandardCharsets.UTF_8);
            at += 2 + glen;
        }
        byte[] payload = Arrays.copyOfRange(body, at, body.length);
        return new Envelope(id, enqueued, headers, group, payload);
    }

    /**
     * Best effort for dead letters of broken bodies: the id if the first 9 bytes hold one, else 0.
     *
     * @param body the message body as received
     * @return the message id, or 0
     */
    public static long idOrZero(byte[] body) {
        return body != null && body.length >= 9 && (body[0] == VERSION || body[0] == VERSION_GROUPED) ? ByteBuffer.wrap(body, 1, 8).getLong() : 0L;
    }
}
