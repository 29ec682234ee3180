package dev.sqlqueue;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The hexagon rules of DEVELOPERS.md for core: it imports no JDBC driver, jOOQ, Flyway, HikariCP or
 * dialect, and the public API does not reach into the internal package. (The rules between the
 * other modules are checked in the CLI module, which has every module on its class path.)
 */
class HexagonArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sqlqueue");

    @Test
    void coreDependsOnNoDatabaseLibrary() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(
                        "org.jooq..", "org.flywaydb..", "com.zaxxer..", "org.h2..", "org.postgresql..",
                        "org.mariadb..", "com.microsoft.sqlserver..", "com.teradata..", "com.mysql..")
                .because("core knows no database: the hexagon is the law")
                .check(CORE);
    }

    @Test
    void coreDependsOnNoObservabilityOrFrameworkLibrary() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(
                        "io.micrometer..", "io.opentelemetry..", "org.springframework..",
                        "dev.sqlqueue.micrometer..", "dev.sqlqueue.opentelemetry..", "dev.sqlqueue.spring..")
                .because("metrics, tracing and Spring live in their own modules, on top of the public API")
                .check(CORE);
    }

    @Test
    void coreKnowsNoDialect() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage(
                        "dev.sqlqueue.skiplocked..", "dev.sqlqueue.sqlserver..", "dev.sqlqueue.teradata..",
                        "dev.sqlqueue.cli..", "dev.sqlqueue.conformance..")
                .check(CORE);
    }

    @Test
    void spiAndApiDoNotUseInternals() {
        noClasses().that().resideInAnyPackage("dev.sqlqueue.spi..", "dev.sqlqueue.runtime..")
                .should().dependOnClassesThat().resideInAPackage("dev.sqlqueue.internal..")
                .check(CORE);
    }
}
