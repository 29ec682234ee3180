package dev.sqlqueue.compat.spring;

import dev.sqlqueue.spring.SqlQueueHandler;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

/** The application: one handler, and an OpenTelemetry SDK that keeps its spans in memory. */
@SpringBootApplication
public class CompatApplication {
    @Bean
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }

    @Bean
    OpenTelemetry openTelemetry(InMemorySpanExporter spans) {
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
                .build();
    }

    /** Records every message of queue "compat". */
    @Component
    public static class Recorder {
        private final List<String> seen = new CopyOnWriteArrayList<>();

        @SqlQueueHandler(queue = "compat", threads = "1")
        public void handle(String text) {
            seen.add(text);
        }

        public List<String> seen() {
            return List.copyOf(seen);
        }
    }
}
