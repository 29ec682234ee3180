package dev.sqlqueue.conformance.kit;

import java.nio.file.Path;

/**
 * {@code java -cp ... dev.sqlqueue.conformance.kit.KitMain --url URL [options]}: the kit without the
 * {@code sqlqueue} command, same options as {@code sqlqueue conformance}. Exits with
 * {@link KitRunner#run}'s code.
 */
public final class KitMain {
    private KitMain() {
    }

    static final String USAGE = """
            usage: KitMain --url URL [--user U] [--password P] [--backend NAME] [--mode lease|transactional|all]
                           [--cases C01,C07] [--report DIR] [--driver-path JARS] [--allow-kill]
                           [--restart-command CMD --start-command CMD] [--option KEY=VALUE]... [--case-timeout SECONDS]""";

    /**
     * Runs the kit with the options of the usage line and exits with {@link KitRunner#run}'s code.
     *
     * @param args the command line, as in the usage line
     */
    public static void main(String[] args) {
        // the backends' pools and migrations log at INFO; the kit's own lines are what a user reads
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        int rc;
        try {
            rc = KitRunner.run(parse(args));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            rc = KitRunner.SETUP_ERROR;
        }
        System.exit(rc);
    }

    static KitOptions parse(String[] args) {
        KitOptions.Builder b = KitOptions.builder();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--allow-kill")) {
                b.allowKill(true);
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(a + ": needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--url" -> b.url(v);
                case "--user" -> b.user(v);
                case "--password" -> b.password(v);
                case "--backend" -> b.backend(v);
                case "--mode" -> b.modes(v);
                case "--cases" -> b.cases(v);
                case "--report" -> b.reportDir(Path.of(v));
                case "--driver-path" -> b.driverPath(v);
                case "--restart-command" -> b.restartCommand(v);
                case "--start-command" -> b.startCommand(v);
                case "--option" -> b.option(v);
                case "--case-timeout" -> b.caseTimeout(v);
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return b.build();
    }
}
