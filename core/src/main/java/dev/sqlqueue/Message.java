package dev.sqlqueue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message to enqueue: payload bytes plus options. Immutable and thread-safe; build one with
 * {@link #of(byte[])} or {@link #builder(byte[])}.
 *
 * <ul>
 *   <li>{@code payload}: never null; may be empty; at most the backend's
 *       {@link Capabilities#maxPayloadBytes()}.</li>
 *   <li>{@code headers}: string keys and values, in insertion order; keys 1 to
 *       {@value #MAX_HEADER_KEY_LENGTH} characters with no control characters; values any text except
 *       U+0000 (PostgreSQL cannot store it). Keys and values must be well-formed UTF-16: a lone surrogate
 *       (U+D800..U+DFFF without its pair) has no UTF-8 encoding and would be stored changed. All keys and
 *       values together at most {@value #MAX_HEADERS_LENGTH} UTF-16 code units (rule {@code headers.size});
 *       a backend may allow less (Teradata: 8,000 characters in their stored form, rule
 *       {@code headers.max-length}).</li>
 *   <li>{@code delay}: how long the message stays invisible after enqueue, measured on the database
 *       clock; zero to {@link #MAX_DELAY} (365 days), millisecond resolution.</li>
 *   <li>{@code priority}: {@value #MIN_PRIORITY}..{@value #MAX_PRIORITY}; higher is consumed first
 *       where the backend has {@link Capability#PRIORITY}. Default 0.</li>
 *   <li>{@code group}: optional message group (strict order within a group where the backend has
 *       {@link Capability#MESSAGE_GROUPS}); 1 to 128 UTF-16 code units, no U+0000, no lone surrogate.</li>
 *   <li>{@code deduplicationKey}: optional; where the backend has {@link Capability#DEDUPLICATION}, an
 *       enqueue whose key was seen on the same queue within {@link QueueConfig#deduplicationWindow()}
 *       enqueues nothing and returns the first message's id ({@link Producer#enqueueDeduplicated}).
 *       1 to {@value #MAX_DEDUPLICATION_KEY_LENGTH} UTF-16 code units, no U+0000, no lone surrogate;
 *       compared exactly (case, trailing spaces and Unicode normal form all count).</li>
 * </ul>
 */
public final class Message {
    /**
     * The lowest priority: -1000.
     */
    public static final int MIN_PRIORITY = -1000;
    /**
     * The highest priority: 1000.
     */
    public static final int MAX_PRIORITY = 1000;
    /**
     * The longest header key: 128 characters (rule {@code header.key}).
     */
    public static final int MAX_HEADER_KEY_LENGTH = 128;
    /**
     * The most UTF-16 code units that all header keys and values of one message may hold together:
     * 1,048,576 (rule {@code headers.size}). Stored escaped, that is at most 2 MiB characters, which every
     * backend's header column holds (MariaDB's {@code MEDIUMTEXT} holds 16 MiB bytes).
     */
    public static final int MAX_HEADERS_LENGTH = 1 << 20;
    /** The longest deduplication key, in UTF-16 code units. */
    public static final int MAX_DEDUPLICATION_KEY_LENGTH = 128;
    /** The longest delay of an enqueue or a nack: 365 days (rule {@code delay.max}). */
    public static final Duration MAX_DELAY = Duration.ofDays(365);

    /** Index of the first lone surrogate in {@code s}, or -1 when {@code s} is well-formed UTF-16. */
    static int loneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Checks that {@code text} can be stored unchanged in a text column of every backend: no U+0000 and
     * no lone surrogate. @throws InvalidInputException with {@code rule} naming what was broken
     */
    static void checkStorableText(String rule, String what, String text) {
        int nul = text.indexOf(0);
        if (nul >= 0) {
            throw new InvalidInputException(rule, what + " contains U+0000 at index " + nul
                    + "; text columns cannot store it (PostgreSQL rejects it)");
        }
        int lone = loneSurrogate(text);
        if (lone >= 0) {
            throw new InvalidInputException(rule, what + " contains a lone surrogate U+"
                    + Integer.toHexString(text.charAt(lone)).toUpperCase() + " at index " + lone
                    + "; it is not well-formed UTF-16 and would be stored changed");
        }
    }

    /** @throws InvalidInputException (rule {@code delay.negative} or {@code delay.max}) */
    static void checkDelay(String what, Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new InvalidInputException("delay.negative", what + " must be zero or positive, was "
                    + (delay == null ? "null" : delay));
        }
        if (delay.compareTo(MAX_DELAY) > 0) {
            throw new InvalidInputException("delay.max", what + " must be at most " + MAX_DELAY.toDays() + " days, was " + delay);
        }
    }

    private final byte[] payload;
    private final Map<String, String> headers;
    private final Duration delay;
    private final int priority;
    private final String group;
    private final String deduplicationKey;

    private Message(Builder b) {
        this.payload = b.payload;
        this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
        this.delay = b.delay;
        this.priority = b.priority;
        this.group = b.group;
        this.deduplicationKey = b.deduplicationKey;
    }

    /**
     * A message with this payload and default options.
     *
     * @param payload the payload bytes, 0 or more; the array is copied
     * @return the message
     * @throws InvalidInputException (rule {@code payload.null}) if payload is null
     */
    public static Message of(byte[] payload) {
        return builder(payload).build();
    }

    /**
     * A message whose payload is the UTF-8 encoding of {@code text}.
     *
     * @param text the payload's text; null is refused (rule {@code payload.null})
     * @return the message, with default options
     * @throws InvalidInputException (rule {@code payload.text}) if the text has a lone surrogate, which
     *     UTF-8 cannot encode (it would become {@code ?})
     */
    public static Message ofText(String text) {
        if (text == null) {
            throw new InvalidInputException("payload.null", "payload must not be null");
        }
        int lone = loneSurrogate(text);
        if (lone >= 0) {
            throw new InvalidInputException("payload.text", "the payload text contains a lone surrogate U+"
                    + Integer.toHexString(text.charAt(lone)).toUpperCase() + " at index " + lone
                    + "; it has no UTF-8 encoding and would be changed");
        }
        return of(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * @param payload the payload bytes, 0 or more; the array is copied
     * @return a builder with default options
     * @throws InvalidInputException if payload is null
     */
    public static Builder builder(byte[] payload) {
        return new Builder(payload);
    }

    /**
     * The payload; the returned array is a copy.
     *
     * @return a copy of the payload bytes
     */
    public byte[] payload() {
        return payload.clone();
    }

    /**
     * Payload length in bytes, without copying.
     *
     * @return the payload's length in bytes
     */
    public int payloadLength() {
        return payload.length;
    }

    /**
     * For backends: the payload array itself, which must not be modified.
     *
     * @return the payload array itself
     */
    public byte[] payloadUnsafe() {
        return payload;
    }

    /**
     * The headers, in the order they were set.
     *
     * @return the headers by key, unmodifiable; empty when none
     */
    public Map<String, String> headers() {
        return headers;
    }

    /**
     * How long the message stays invisible after enqueue (database clock).
     *
     * @return the delay, zero to {@link #MAX_DELAY}; zero by default
     */
    public Duration delay() {
        return delay;
    }

    /**
     * The priority; higher is consumed first where the backend has {@link Capability#PRIORITY}.
     *
     * @return {@value #MIN_PRIORITY}..{@value #MAX_PRIORITY}; 0 by default
     */
    public int priority() {
        return priority;
    }

    /**
     * The message group, or null.
     *
     * @return the group, or null
     */
    public String group() {
        return group;
    }

    /**
     * The deduplication key, or null.
     *
     * @return the key, or null
     */
    public String deduplicationKey() {
        return deduplicationKey;
    }

    /** Builder for {@link Message}; every setter validates at once and throws {@link InvalidInputException}. */
    public static final class Builder {
        private final byte[] payload;
        private final Map<String, String> headers = new LinkedHashMap<>();
        /** UTF-16 code units of every key and value in {@link #headers}. */
        private long headersLength;
        private Duration delay = Duration.ZERO;
        private int priority;
        private String group;
        private String deduplicationKey;

        private Builder(byte[] payload) {
            if (payload == null) {
                throw new InvalidInputException("payload.null", "payload must not be null");
            }
            this.payload = payload.clone();
        }

        /**
         * Sets one header (a key already set takes the new value).
         *
         * @param key the header's key
         * @param value the header's value
         * @return this builder
         * @throws InvalidInputException (rule {@code header.key}) if the key is null, empty, longer than
         *     {@value #MAX_HEADER_KEY_LENGTH} characters, or holds a control character, U+0000 or a lone
         *     surrogate; (rule {@code header.value}) if the value is null or holds U+0000 or a lone surrogate;
         *     (rule {@code headers.size}) if the headers would hold more than {@value #MAX_HEADERS_LENGTH}
         *     UTF-16 code units in all. The builder is unchanged when it throws.
         */
        public Builder header(String key, String value) {
            if (key == null || key.isEmpty() || key.length() > MAX_HEADER_KEY_LENGTH) {
                throw new InvalidInputException("header.key",
                        "header key must be 1 to " + MAX_HEADER_KEY_LENGTH + " characters");
            }
            if (key.chars().anyMatch(Character::isISOControl)) {
                throw new InvalidInputException("header.key", "header key must not contain control characters");
            }
            checkStorableText("header.key", "header key", key);
            if (value == null) {
                throw new InvalidInputException("header.value", "header '" + key + "' has a null value");
            }
            checkStorableText("header.value", "the value of header '" + key + "'", value);
            String old = headers.get(key);
            long length = headersLength - (old == null ? 0 : key.length() + old.length()) + key.length() + value.length();
            if (length > MAX_HEADERS_LENGTH) {
                throw new InvalidInputException("headers.size", "header keys and values together must be at most "
                        + MAX_HEADERS_LENGTH + " UTF-16 code units; with header '" + key + "' they would be " + length);
            }
            headers.put(key, value);
            headersLength = length;
            return this;
        }

        /**
         * Adds every entry, checked as {@link #header} (a key already set takes the new value); all or none:
         * on an invalid entry nothing is added.
         *
         * @param all the headers to add
         * @return this builder
         * @throws InvalidInputException (rule {@code headers.null}) if {@code all} is null; (rule
         *     {@code headers.size}) if the headers would hold more than {@value #MAX_HEADERS_LENGTH} UTF-16 code
         *     units in all
         */
        public Builder headers(Map<String, String> all) {
            if (all == null) {
                throw new InvalidInputException("headers.null", "headers must not be null (pass an empty map for none)");
            }
            Builder check = new Builder(new byte[0]);
            check.headers.putAll(headers);
            check.headersLength = headersLength;
            all.forEach(check::header);
            headers.putAll(check.headers);
            headersLength = check.headersLength;
            return this;
        }

        /**
         * @param delay how long the message stays invisible after enqueue (database clock), zero to {@link #MAX_DELAY}
         * @return this builder
         * @throws InvalidInputException if delay is null, negative (rule {@code delay.negative}) or over {@link #MAX_DELAY} ({@code delay.max})
         */
        public Builder delay(Duration delay) {
            checkDelay("delay", delay);
            this.delay = delay;
            return this;
        }

        /**
         * @param priority higher is consumed first where the backend has {@link Capability#PRIORITY}
         * @return this builder
         * @throws InvalidInputException if outside {@value #MIN_PRIORITY}..{@value #MAX_PRIORITY}
         */
        public Builder priority(int priority) {
            if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
                throw new InvalidInputException("priority.range",
                        "priority must be between " + MIN_PRIORITY + " and " + MAX_PRIORITY + ", was " + priority);
            }
            this.priority = priority;
            return this;
        }

        /**
         * @param group the message group, or null for none
         * @return this builder
         * @throws InvalidInputException (rule {@code group.length}) if the group is empty or longer than 128
         *     UTF-16 code units (H2 and SQL Server measure a column in them, so an emoji counts as 2); (rule
         *     {@code group.text}) if it contains U+0000 or a lone surrogate
         */
        public Builder group(String group) {
            if (group != null && (group.isEmpty() || group.length() > 128)) {
                throw new InvalidInputException("group.length", "message group must be 1 to 128 UTF-16 code units"
                        + " (a character outside the Basic Multilingual Plane, such as an emoji, counts as 2), was " + group.length());
            }
            if (group != null) {
                checkStorableText("group.text", "the message group", group);
            }
            this.group = group;
            return this;
        }

        /**
         * A key that makes a repeated enqueue a no-op within the queue's window (null for none). Keys are
         * compared exactly, as stored: {@code "A"}, {@code "a"} and {@code "a "} are three keys.
         *
         * @param key the key, or null for none
         * @return this builder
         * @throws InvalidInputException (rule {@code dedupe.length}) if the key is empty or longer than
         *     {@value #MAX_DEDUPLICATION_KEY_LENGTH} UTF-16 code units (an emoji counts as 2); (rule
         *     {@code dedupe.text}) if it contains U+0000 or a lone surrogate
         */
        public Builder deduplicationKey(String key) {
            if (key != null && (key.isEmpty() || key.length() > MAX_DEDUPLICATION_KEY_LENGTH)) {
                throw new InvalidInputException("dedupe.length", "deduplication key must be 1 to "
                        + MAX_DEDUPLICATION_KEY_LENGTH + " UTF-16 code units (a character outside the Basic Multilingual"
                        + " Plane, such as an emoji, counts as 2), was " + key.length());
            }
            if (key != null) {
                checkStorableText("dedupe.text", "the deduplication key", key);
            }
            this.deduplicationKey = key;
            return this;
        }

        /**
         * The message.
         *
         * @return the message, immutable; the builder can go on to build others
         */
        public Message build() {
            return new Message(this);
        }
    }
}
