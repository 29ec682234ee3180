package dev.sqlqueue.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The CLI drives the public API only: no dialect, jOOQ, Flyway, pool or JDBC driver classes. */
class CliArchitectureTest {
    private final JavaClasses cli = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sqlqueue.cli");

    @Test
    void noDialectOrDatabaseLibraryClasses() {
        noClasses().that().resideInAPackage("dev.sqlqueue.cli..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.sqlqueue.skiplocked..", "dev.sqlqueue.sqlserver..", "dev.sqlqueue.teradata..",
                        "dev.sqlqueue.internal..", "org.jooq..", "org.flywaydb..", "com.zaxxer..", "org.h2..",
                        "org.postgresql..", "org.mariadb..", "com.microsoft.sqlserver..", "com.teradata..",
                        "java.sql..", "javax.sql..")
                .check(cli);
    }

    @Test
    void onlyTheJdkPicocliAndThePublicApi() {
        classes().that().resideInAPackage("dev.sqlqueue.cli..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "picocli..", "dev.sqlqueue", "dev.sqlqueue.runtime..", "dev.sqlqueue.spi..",
                        "dev.sqlqueue.cli..", "dev.sqlqueue.conformance.kit", "dev.sqlqueue.dashboard", "sun.misc")
                .check(cli);
    }
}
