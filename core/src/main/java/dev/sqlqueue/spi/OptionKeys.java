package dev.sqlqueue.spi;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import java.util.Set;
import java.util.TreeSet;

/**
 * The check every backend makes of {@link QueueConfig#options()} before it connects: a key it does not read is
 * refused, since a misspelt key (say {@code broker.spreadfactor}) was ignored and the backend ran on the
 * default it was meant to change. Stateless; thread-safe.
 */
public final class OptionKeys {
    private OptionKeys() {
    }

    /**
     * @param backend the backend's name, for the message
     * @param config the configuration whose option keys are checked
     * @param known the keys the backend reads; empty when it reads none
     * @throws InvalidInputException rule {@code option.unknown}, naming the key and the keys the backend reads,
     *     for the first key of {@code config.options()} not in {@code known}
     */
    public static void requireKnown(String backend, QueueConfig config, Set<String> known) {
        for (String key : config.options().keySet()) {
            if (!known.contains(key)) {
                throw new InvalidInputException("option.unknown", "backend '" + backend + "' has no option '" + key
                        + "'; " + (known.isEmpty() ? "it takes none" : "its options are " + String.join(", ", new TreeSet<>(known))));
            }
        }
    }
}
