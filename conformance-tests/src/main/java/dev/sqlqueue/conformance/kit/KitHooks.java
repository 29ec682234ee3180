package dev.sqlqueue.conformance.kit;

import dev.sqlqueue.QueueConfig;
import dev.sqlqueue.conformance.FaultHooks;

/**
 * How a backend joins the command-line kit with one small class: the fault hooks the kit cannot
 * write generically (a raw-row insert, a precise session kill). Found with {@link java.util.ServiceLoader}
 * on the context class loader (so a jar given with {@code --driver-path} may bring one) through
 * {@code META-INF/services/dev.sqlqueue.conformance.kit.KitHooks}.
 *
 * <p>The kit uses the hooks of the first implementation whose {@link #backend()} equals the provider
 * name of the backend under test. A hook the returned {@link FaultHooks} declares unavailable falls back
 * to the kit's own (session kill by JDBC URL, restart by shell command), or stays skipped with its reason.
 */
public interface KitHooks {
    /**
     * The backend provider name these hooks serve, for example {@code postgresql}.
     *
     * @return the provider name
     */
    String backend();

    /**
     * The hooks for the backend the kit reaches with {@code config} (URL, user, password; the table
     * prefix is the one of the first case and is irrelevant: every hook method receives the case's own
     * config).
     *
     * @param config the config the kit reaches the database with
     * @return the hooks; each one that cannot work says why
     */
    FaultHooks hooks(QueueConfig config);
}
