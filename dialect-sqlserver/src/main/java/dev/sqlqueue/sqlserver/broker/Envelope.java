package dev.sqlqueue.sqlserver.broker;

import dev.sqlqueue.spi.HeaderCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * The body of a data message (message type VALIDATION = NONE, so any bytes pass): version byte
 * {@code 0x01}, message id (8 bytes, big-endian), enqueue time in ms since 1970-01-01 UTC (8 bytes,
 * big-endian, taken from the database clock by the send statement), header length in bytes (4 bytes,
 * big-endian), the headers as UTF-8 text in the {@link HeaderCodec} form, then the payload bytes.
 * The first 17 bytes are written by the server ({@link BrokerStatements#send}); the adapter writes the
 * rest ({@link #rest}). Decoding happens in Java, never inside RECEIVE.
 *
 * @param messageId the 64-bit id
 * @param enqueuedMillis enqueue time, ms since 1970 on the database clock
 * @param rawHeaders the headers as stored (may be malformed if a foreign sender wrote the body)
 * @param payload the payload bytes
 */
public record Envelope(long messageId, long enqueuedMillis, String rawHeaders, byte[] payload) {
    /** The version byte this code writes and reads. */
    public static final byte VERSION = 1;
    /** Bytes before the header text. */
    public static final int FIXED = 21;

    /** Thrown by {@link #decode} for a body that is not an envelope; the message names the defect. */
    public static final class UndecodableException extends Exception {
        public UndecodableException(String message) {
            super(message);
        }
    }

    /** The part the adapter writes: header length, header bytes, payload. */
    public static byte[] rest(Map<String, String> headers, byte[] payload) {
        byte[] h = HeaderCodec.encode(headers).getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + h.length + payload.length).putInt(h.length).put(h).put(payload).array();
    }

    /** The whole body, for sending a message again with its id and enqueue time. */
    public byte[] encode() {
        byte[] h = rawHeaders.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(FIXED + h.length + payload.length).put(VERSION).putLong(messageId)
                .putLong(enqueuedMillis).putInt(h.length).put(h).put(payload).array();
    }

    /**
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
        if (version != VERSION) {
            throw new UndecodableException("unknown envelope version " + version);
        }
        long id = b.getLong();
        long enqueued = b.getLong();
        int hlen = b.getInt();
        if (hlen < 0 || hlen > body.length - FIXED) {
            throw new UndecodableException("header length " + hlen + " runs past the end of the body");
        }
        String headers = new String(body, FIXED, hlen, StandardCharsets.UTF_8);
        byte[] payload = Arrays.copyOfRange(body, FIXED + hlen, body.length);
        return new Envelope(id, enqueued, headers, payload);
    }

    /** Best effort for dead letters of broken bodies: the id if the first 9 bytes hold one, else 0. */
    public static long idOrZero(byte[] body) {
        return body != null && body.length >= 9 && body[0] == VERSION ? ByteBuffer.wrap(body, 1, 8).getLong() : 0L;
    }
}
