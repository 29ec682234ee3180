package dev.sqlqueue.micrometer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** The metrics module decorates the public API and the SPI: no dialect, no database library, no internals. */
class MetricsArchitectureTest {
    private final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sqlqueue.micrometer");

    @Test
    void onlyTheJdkMicrometerSlf4jAndThePublicApi() {
        classes().that().resideInAPackage("dev.sqlqueue.micrometer..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "io.micrometer..", "org.slf4j..", "dev.sqlqueue", "dev.sqlqueue.runtime..",
                        "dev.sqlqueue.spi..", "dev.sqlqueue.micrometer..")
                .check(classes);
    }
}
