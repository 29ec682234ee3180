package dev.sqlqueue.spi;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Finds a {@link BackendProvider} through {@link ServiceLoader}, by name or by JDBC URL.
 * Thread-safe; loads providers on each call with the context class loader (so a driver or dialect jar
 * added at run time is seen).
 */
public final class BackendDiscovery {
    private BackendDiscovery() {
    }

    /**
     * Every provider on the class path, sorted by name.
     *
     * @return the providers found by {@link java.util.ServiceLoader}, sorted by name
     */
    public static List<BackendProvider> providers() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        if (cl == null) {
            cl = BackendDiscovery.class.getClassLoader();
        }
        List<BackendProvider> out = new ArrayList<>();
        ServiceLoader.load(BackendProvider.class, cl).forEach(out::add);
        out.sort(Comparator.comparing(BackendProvider::name));
        return out;
    }

    /**
     * The provider the config selects: by {@link QueueConfig#backend()} if set, else the first whose
     * {@link BackendProvider#acceptsUrl} accepts the URL.
     *
     * @param config the config whose backend name or URL selects the provider
     * @return the provider
     * @throws InvalidInputException naming the rule {@code backend.unknown} or {@code backend.url}
     *     when none matches, with the list of known backends
     */
    public static BackendProvider find(QueueConfig config) {
        List<BackendProvider> all = providers();
        String known = all.stream().map(BackendProvider::name).collect(Collectors.joining(", "));
        if (config.backend() != null) {
            return all.stream().filter(p -> p.name().equals(config.backend())).findFirst()
                    .orElseThrow(() -> new InvalidInputException("backend.unknown",
                            "unknown backend '" + config.backend() + "'; known backends: " + known));
        }
        String url = config.url();
        if (url == null || !url.startsWith("jdbc:")) {
            throw new InvalidInputException("backend.url", "'" + url + "' is not a JDBC URL (it must start with jdbc:)");
        }
        return all.stream().filter(p -> p.acceptsUrl(url)).findFirst()
                .orElseThrow(() -> new InvalidInputException("backend.url",
                        "no backend accepts the URL '" + redact(url) + "'; known backends: " + known));
    }

    /**
     * The URL with its password parameters and user-info password masked, for messages ({@link Redaction#url}).
     *
     * @param url a JDBC URL, or null
     * @return the masked URL, or null
     */
    public static String redact(String url) {
        return Redaction.url(url);
    }
}
