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
 *       {@value #MAX_HEADER_KEY_LENGTH} characters with no control characters; values any text.</li>
 *   <li>{@code delay}: how long the message stays invisible after enqueue, measured on the database
 *       clock; zero or positive, millisecond resolution.</li>
 *   <li>{@code priority}: {@value #MIN_PRIORITY}..{@value #MAX_PRIORITY}; higher is consumed first
 *       where the backend has {@link Capability#PRIORITY}. Default 0.</li>
 *   <li>{@code group}: optional message group (strict order within a group where the backend has
 *       {@link Capability#MESSAGE_GROUPS}).</li>
 * </ul>
 */
public final class Message {
    public static final int MIN_PRIORITY = -1000;
    public static final int MAX_PRIORITY = 1000;
    public static final int MAX_HEADER_KEY_LENGTH = 128;

    private final byte[] payload;
    private final Map<String, String> headers;
    private final Duration delay;
    private final int priority;
    private final String group;

    private Message(Builder b) {
        this.payload = b.payload;
        this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
        this.delay = b.delay;
        this.priority = b.priority;
        this.group = b.group;
    }

    /** A message with this payload and default options. @throws InvalidInputException if payload is null */
    public static Message of(byte[] payload) {
        return builder(payload).build();
    }

    /** A message whose payload is the UTF-8 encoding of {@code text}. */
    public static Message ofText(String text) {
        if (text == null) {
            throw new InvalidInputException("payload.null", "payload must not be null");
        }
        return of(text.getBytes(StandardCharsets.UTF_8));
    }

    /** @throws InvalidInputException if payload is null */
    public static Builder builder(byte[] payload) {
        return new Builder(payload);
    }

    /** The payload; the returned array is a copy. */
    public byte[] payload() {
        return payload.clone();
    }

    /** Payload length in bytes, without copying. */
    public int payloadLength() {
        return payload.length;
    }

    /** For backends: the payload array itself, which must not be modified. */
    public byte[] payloadUnsafe() {
        return payload;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public Duration delay() {
        return delay;
    }

    public int priority() {
        return priority;
    }

    /** The message group, or null. */
    public String group() {
        return group;
    }

    /** Builder for {@link Message}; every setter validates at once and throws {@link InvalidInputException}. */
    public static final class Builder {
        private final byte[] payload;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private Duration delay = Duration.ZERO;
        private int priority;
        private String group;

        private Builder(byte[] payload) {
            if (payload == null) {
                throw new InvalidInputException("payload.null", "payload must not be null");
            }
            this.payload = payload.clone();
        }

        public Builder header(String key, String value) {
            if (key == null || key.isEmpty() || key.length() > MAX_HEADER_KEY_LENGTH) {
                throw new InvalidInputException("header.key",
                        "header key must be 1 to " + MAX_HEADER_KEY_LENGTH + " characters");
            }
            if (key.chars().anyMatch(Character::isISOControl)) {
                throw new InvalidInputException("header.key", "header key must not contain control characters");
            }
            if (value == null) {
                throw new InvalidInputException("header.value", "header '" + key + "' has a null value");
            }
            headers.put(key, value);
            return this;
        }

        public Builder headers(Map<String, String> all) {
            Objects.requireNonNull(all, "headers");
            all.forEach(this::header);
            return this;
        }

        /** @throws InvalidInputException if delay is null or negative */
        public Builder delay(Duration delay) {
            if (delay == null || delay.isNegative()) {
                throw new InvalidInputException("delay.negative", "delay must be zero or positive, was "
                        + (delay == null ? "null" : delay.toMillis() + " ms"));
            }
            this.delay = delay;
            return this;
        }

        /** @throws InvalidInputException if outside {@value #MIN_PRIORITY}..{@value #MAX_PRIORITY} */
        public Builder priority(int priority) {
            if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
                throw new InvalidInputException("priority.range",
                        "priority must be between " + MIN_PRIORITY + " and " + MAX_PRIORITY + ", was " + priority);
            }
            this.priority = priority;
            return this;
        }

        /**
         * @throws InvalidInputException (rule {@code group.length}) if the group is empty or longer than 128
         *     UTF-16 code units (H2 and SQL Server measure a column in them, so an emoji counts as 2)
         */
        public Builder group(String group) {
            if (group != null && (group.isEmpty() || group.length() > 128)) {
                throw new InvalidInputException("group.length", "message group must be 1 to 128 UTF-16 code units"
                        + " (a character outside the Basic Multilingual Plane, such as an emoji, counts as 2), was " + group.length());
            }
            this.group = group;
            return this;
        }

        public Message build() {
            return new Message(this);
        }
    }
}
