package dev.sqlqueue.dashboard;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The dashboard drives the public API only: the JDK (its HTTP server included), SLF4J and dev.sqlqueue. */
class DashboardArchitectureTest {
    private final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sqlqueue.dashboard");

    @Test
    void onlyTheJdkSlf4jAndThePublicApi() {
        classes().that().resideInAPackage("dev.sqlqueue.dashboard..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "com.sun.net.httpserver..", "org.slf4j..", "dev.sqlqueue", "dev.sqlqueue.dashboard..")
                .check(classes);
    }
}
