package dev.sqlqueue.sqlserver;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The layout of {@code dialect-sqlserver} (issue 29): the queue-table backend ({@code tables}), Service Broker
 * ({@code broker}), their probes ({@code tables.probe}, {@code broker.probe}) apart from the production paths, and
 * the session and error plumbing both share ({@code dev.sqlqueue.sqlserver} itself: {@link PrepareMethods},
 * {@link SqlServerFailures}, {@link NetworkTimeouts}).
 */
class SqlServerLayoutTest {
    private static final String ROOT = "dev.sqlqueue.sqlserver";
    private static final String TABLES = "dev.sqlqueue.sqlserver.tables..";
    private static final String BROKER = "dev.sqlqueue.sqlserver.broker..";

    private final JavaClasses main = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);

    @Test
    void everyPartIsImported() {
        for (String pkg : List.of(ROOT + ".tables", ROOT + ".tables.probe", ROOT + ".broker", ROOT + ".broker.probe")) {
            assertTrue(main.stream().anyMatch(c -> c.getPackageName().equals(pkg)), "no classes in " + pkg);
        }
    }

    @Test
    void theTwoBackendsNeverUseEachOther() {
        noClasses().that().resideInAPackage(TABLES).should().dependOnClassesThat().resideInAPackage(BROKER).check(main);
        noClasses().that().resideInAPackage(BROKER).should().dependOnClassesThat().resideInAPackage(TABLES).check(main);
    }

    @Test
    void theSharedPlumbingUsesNeitherBackend() {
        noClasses().that().resideInAPackage(ROOT).should().dependOnClassesThat().resideInAnyPackage(TABLES, BROKER)
                .check(main);
    }

    /** Production code reaches a probe only through its provider's {@code probes()} (the CLI's probe command). */
    @Test
    void productionPathsDoNotUseTheProbes() {
        noClasses().that().resideInAPackage(ROOT + ".tables").and().doNotHaveSimpleName("SqlServerProvider")
                .should().dependOnClassesThat().resideInAPackage(ROOT + ".tables.probe").check(main);
        noClasses().that().resideInAPackage(ROOT + ".broker").and().doNotHaveSimpleName("ServiceBrokerProvider")
                .should().dependOnClassesThat().resideInAPackage(ROOT + ".broker.probe").check(main);
    }
}
