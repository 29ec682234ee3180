package dev.sqlqueue.skiplocked;

import org.flywaydb.core.api.logging.Log;
import org.flywaydb.core.api.logging.LogCreator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps jOOQ's and Flyway's start-up chatter out of the application's log, as the CLI does: jOOQ's logo
 * and "tip of the day" are switched off (system properties {@code org.jooq.no-logo} and
 * {@code org.jooq.no-tips}, set only when the application has not set them: {@code -Dorg.jooq.no-logo=false}
 * brings the logo back), and the schema migration's Flyway messages go to SLF4J at DEBUG (warnings and
 * errors stay WARN and ERROR) under Flyway's own logger names ({@code org.flywaydb...}).
 *
 * <p>Flyway's log factory is JVM-wide and takes the log creator of the Flyway instance built last: an
 * application's own Flyway built afterwards logs as its configuration says again.
 *
 * <p>Public only because Flyway instantiates its {@link LogCreator} by class name; not an API.
 */
public final class QuietLibraryLogs implements LogCreator {
    static final String NO_LOGO = "org.jooq.no-logo";
    static final String NO_TIPS = "org.jooq.no-tips";

    /** Switch jOOQ's logo and tips off unless the application chose; call before jOOQ renders SQL. */
    static void quietJooq() {
        if (System.getProperty(NO_LOGO) == null) {
            System.setProperty(NO_LOGO, "true");
        }
        if (System.getProperty(NO_TIPS) == null) {
            System.setProperty(NO_TIPS, "true");
        }
    }

    @Override
    @SuppressWarnings("deprecation") // Flyway still calls isDebugEnabled() and declares it abstract
    public Log createLogger(Class<?> clazz) {
        Logger log = LoggerFactory.getLogger(clazz);
        return new Log() {
            @Override
            public boolean isDebugEnabled() {
                return log.isDebugEnabled();
            }

            @Override
            public void debug(String message) {
                log.debug(message);
            }

            @Override
            public void info(String message) {
                log.debug(message);
            }

            @Override
            public void warn(String message) {
                log.warn(message);
            }

            @Override
            public void error(String message) {
                log.error(message);
            }

            @Override
            public void error(String message, Exception e) {
                log.error(message, e);
            }

            @Override
            public void notice(String message) {
                log.debug(message);
            }
        };
    }
}
