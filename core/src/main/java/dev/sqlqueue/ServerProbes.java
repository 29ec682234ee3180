package dev.sqlqueue;

import dev.sqlqueue.spi.BackendDiscovery;
import dev.sqlqueue.spi.BackendProvider;
import dev.sqlqueue.spi.Probe;
import dev.sqlqueue.spi.ProbeContext;
import dev.sqlqueue.spi.ProbeResult;
import dev.sqlqueue.spi.Redaction;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

/**
 * Runs a backend's {@link Probe}s (the experiments that settle on a real server what the vendor
 * documentation could not) against the server a {@link QueueConfig} names. The public entry point of
 * {@code sqlqueue probe}. Stateless; thread-safe.
 */
public final class ServerProbes {
    private ServerProbes() {
    }

    /**
     * The probes of the backend {@code config} selects, or only those whose ids {@code only} lists
     * (case-insensitive), in the backend's order.
     *
     * @param config selects the backend (by its backend name or URL)
     * @param only probe ids to keep, or null or empty for all
     * @return the probes, in the backend's order
     * @throws InvalidInputException {@code backend.unknown}/{@code backend.url} when no backend matches,
     *     {@code probe.none} when the backend has no probes, {@code probe.unknown} naming an id the
     *     backend does not have
     */
    public static List<Probe> select(QueueConfig config, Collection<String> only) {
        BackendProvider provider = BackendDiscovery.find(config);
        List<Probe> all = provider.probes();
        if (all.isEmpty()) {
            throw new InvalidInputException("probe.none", "backend '" + provider.name()
                    + "' has no probes: it runs for real in the project's own tests; run 'sqlqueue conformance' instead");
        }
        if (only == null || only.isEmpty()) {
            return all;
        }
        Set<String> wanted = new LinkedHashSet<>();
        for (String id : only) {
            wanted.add(id.trim().toUpperCase(Locale.ROOT));
        }
        Set<String> known = all.stream().map(p -> p.id().toUpperCase(Locale.ROOT)).collect(Collectors.toSet());
        for (String id : wanted) {
            if (!known.contains(id)) {
                throw new InvalidInputException("probe.unknown", "backend '" + provider.name() + "' has no probe '" + id
                        + "'; it has " + all.stream().map(Probe::id).collect(Collectors.joining(", ")));
            }
        }
        List<Probe> out = new ArrayList<>();
        for (Probe p : all) {
            if (wanted.contains(p.id().toUpperCase(Locale.ROOT))) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * A context on {@code config}'s server: connections from its {@link QueueConfig#dataSource()} if it
     * has one, else from {@link DriverManager} with its URL, user and password; a new random prefix
     * {@code sqlqprobe_<4 hex digits>_}.
     *
     * @param config the server to reach and how
     * @return the context; it connects only when {@link ProbeContext#connect()} is called
     */
    public static ProbeContext context(QueueConfig config) {
        byte[] r = new byte[2];
        new SecureRandom().nextBytes(r);
        String prefix = "sqlqprobe_" + HexFormat.of().formatHex(r) + "_";
        return new ProbeContext() {
            @Override
            public Connection connect() throws SQLException {
                if (config.dataSource() != null) {
                    return config.dataSource().getConnection();
                }
                if (config.user() == null) {
                    return DriverManager.getConnection(config.url());
                }
                return DriverManager.getConnection(config.url(), config.user(), config.password());
            }

            @Override
            public String prefix() {
                return prefix;
            }

            @Override
            public QueueConfig config() {
                return config;
            }
        };
    }

    /**
     * Connect once and name the server: product name and version from the driver's metadata.
     *
     * @param context the context whose server to name
     * @return the product name, a space and the product version
     * @throws TransientBackendException when the server cannot be reached or refuses the login
     */
    public static String server(ProbeContext context) {
        try (Connection c = context.connect()) {
            java.sql.DatabaseMetaData md = c.getMetaData();
            return (md.getDatabaseProductName() + " " + md.getDatabaseProductVersion()).replace('\n', ' ');
        } catch (SQLException e) {
            String url = context.config().url();
            String password = context.config().password();
            throw new TransientBackendException("cannot connect to " + BackendDiscovery.redact(url)
                    + ": " + Redaction.text(e.getMessage(), url, password), Redaction.throwable(e, url, password));
        }
    }

    /**
     * Run {@code probes} one after another on {@code context}, handing each result to {@code sink} as
     * soon as it is known. A probe that throws is reported as {@link ProbeResult.Verdict#ERROR} with its
     * exception's class and message; the run goes on.
     *
     * @param probes the probes to run, in order
     * @param context the server they run on
     * @param sink receives each probe with its result as soon as it finishes
     * @return the results in the order run
     */
    public static List<ProbeResult> run(List<Probe> probes, ProbeContext context, BiConsumer<Probe, ProbeResult> sink) {
        List<ProbeResult> out = new ArrayList<>();
        for (Probe p : probes) {
            ProbeResult r;
            try {
                r = p.run(context);
                if (r == null) {
                    r = new ProbeResult(ProbeResult.Verdict.ERROR, "the probe returned no result");
                }
            } catch (Exception e) {
                r = new ProbeResult(ProbeResult.Verdict.ERROR, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            out.add(r);
            sink.accept(p, r);
        }
        return out;
    }
}
