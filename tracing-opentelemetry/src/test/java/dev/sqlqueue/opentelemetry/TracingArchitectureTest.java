package dev.sqlqueue.opentelemetry;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Tracing decorates the public API and the SPI through the OpenTelemetry API only (never the SDK). */
class TracingArchitectureTest {
    private final JavaClasses classes = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sqlqueue.opentelemetry");

    @Test
    void onlyTheJdkTheOpenTelemetryApiAndThePublicApi() {
        classes().that().resideInAPackage("dev.sqlqueue.opentelemetry..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "java..", "io.opentelemetry.api..", "io.opentelemetry.context..", "dev.sqlqueue",
                        "dev.sqlqueue.runtime..", "dev.sqlqueue.spi..", "dev.sqlqueue.opentelemetry..")
                .check(classes);
    }
}
