package dev.sqlqueue.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hexagon rules between modules (DEVELOPERS.md), checked here because the CLI module has every
 * module on its class path: dialects never import each other, the CLI or the conformance suite; no
 * module outside core reaches into core's internal package; the suite knows no dialect. (Core's own
 * rules are in core's HexagonArchitectureTest, the CLI's in {@link CliArchitectureTest}.)
 */
class ModuleArchitectureTest {
    private static final String SKIPLOCKED = "dev.sqlqueue.skiplocked..";
    private static final String SQLSERVER = "dev.sqlqueue.sqlserver..";
    private static final String TERADATA = "dev.sqlqueue.teradata..";
    private static final String CLI = "dev.sqlqueue.cli..";
    private static final String CONFORMANCE = "dev.sqlqueue.conformance..";

    private final JavaClasses all = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sqlqueue");

    private void dialectIsolated(String dialect, String... others) {
        noClasses().that().resideInAPackage(dialect)
                .should().dependOnClassesThat().resideInAnyPackage(others)
                .because("dialects never import each other, the CLI or the conformance suite")
                .allowEmptyShould(true)
                .check(all);
    }

    @Test
    void everyModuleIsImported() {
        for (String pkg : List.of("dev.sqlqueue.skiplocked", "dev.sqlqueue.sqlserver", "dev.sqlqueue.teradata",
                "dev.sqlqueue.cli", "dev.sqlqueue.conformance")) {
            assertTrue(all.stream().anyMatch(c -> c.getPackageName().startsWith(pkg)),
                    "no classes of " + pkg + " on the class path: the rules below would check nothing");
        }
    }

    @Test
    void skipLockedIsolated() {
        dialectIsolated(SKIPLOCKED, SQLSERVER, TERADATA, CLI, CONFORMANCE);
    }

    @Test
    void sqlServerIsolated() {
        dialectIsolated(SQLSERVER, SKIPLOCKED, TERADATA, CLI, CONFORMANCE);
    }

    @Test
    void teradataIsolated() {
        dialectIsolated(TERADATA, SKIPLOCKED, SQLSERVER, CLI, CONFORMANCE);
    }

    @Test
    void theSuiteKnowsNoDialectAndNoCli() {
        noClasses().that().resideInAPackage(CONFORMANCE)
                .should().dependOnClassesThat().resideInAnyPackage(SKIPLOCKED, SQLSERVER, TERADATA, CLI)
                .allowEmptyShould(true)
                .check(all);
    }

    @Test
    void onlyCoreUsesItsInternalPackage() {
        noClasses().that().resideInAnyPackage(SKIPLOCKED, SQLSERVER, TERADATA, CLI, CONFORMANCE)
                .should().dependOnClassesThat().resideInAPackage("dev.sqlqueue.internal..")
                .allowEmptyShould(true)
                .check(all);
    }
}
