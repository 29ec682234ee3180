package dev.sqlqueue.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 33, part 1: real Spring Boot applications (every auto-configuration on the class path, Flyway's
 * included, as {@code flyway-core} comes with the dialect) start on a fresh database and again on the
 * second start, on H2 and PostgreSQL, whatever the application migrates with (its own Flyway migrations,
 * its own Liquibase changelog, nothing) and whatever creates the queue first (the mounted dashboard, a
 * bean that injects {@link SqlQueueTemplate} before {@link JdbcTemplate}, or after it). Before the fix 14
 * of the 18 failed; the four that passed inject JdbcTemplate first and have Flyway migrations or none. Each start places
 * one order that commits and one that rolls back; the handler reads the committed order from the
 * application's table and only that one is processed.
 *
 * <p>Before the starter ordered itself after the database initializers, sqlqueue created its tables
 * before Spring Boot's {@code flywayInitializer} and Flyway refused the non-empty schema
 * ({@code Found non-empty schema(s) "PUBLIC" but no schema history table}).
 */
class StartupOrderMatrixTest {
    static final List<String> processed = new CopyOnWriteArrayList<>();

    enum Migrations { FLYWAY, LIQUIBASE, NONE }

    enum Variant { DASHBOARD, QUEUE_FIRST, JDBC_FIRST }

    /** The application's service: records an order and enqueues its event in one transaction. */
    interface Orders {
        void place(String id, String item);
    }

    abstract static class AbstractOrders implements Orders {
        final SqlQueueTemplate queue;
        final JdbcTemplate jdbc;
        final TransactionTemplate tx;

        AbstractOrders(SqlQueueTemplate queue, JdbcTemplate jdbc, PlatformTransactionManager tm) {
            this.queue = queue;
            this.jdbc = jdbc;
            this.tx = new TransactionTemplate(tm);
        }

        @Override
        public void place(String id, String item) {
            tx.executeWithoutResult(s -> {
                jdbc.update("insert into nc_orders (id, item) values (?, ?)", id, item);
                queue.enqueue("nc-orders", id);
                if (item.isEmpty()) {
                    s.setRollbackOnly();
                }
            });
        }
    }

    /** Injects the template first: the queue is created before JdbcTemplate (and so before Flyway). */
    static class QueueFirstOrders extends AbstractOrders {
        QueueFirstOrders(SqlQueueTemplate queue, JdbcTemplate jdbc, PlatformTransactionManager tm) {
            super(queue, jdbc, tm);
        }
    }

    /** Injects JdbcTemplate first. */
    static class JdbcFirstOrders extends AbstractOrders {
        JdbcFirstOrders(JdbcTemplate jdbc, SqlQueueTemplate queue, PlatformTransactionManager tm) {
            super(queue, jdbc, tm);
        }
    }

    @SpringBootConfiguration
    static class QueueFirst {
        @Bean
        Orders orders(SqlQueueTemplate queue, JdbcTemplate jdbc, PlatformTransactionManager tm) {
            return new QueueFirstOrders(queue, jdbc, tm);
        }
    }

    @SpringBootConfiguration
    static class JdbcFirst {
        @Bean
        Orders orders(JdbcTemplate jdbc, SqlQueueTemplate queue, PlatformTransactionManager tm) {
            return new JdbcFirstOrders(jdbc, queue, tm);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
        @Bean
        Shipping shipping(ObjectProvider<JdbcTemplate> jdbc) {
            return new Shipping(jdbc);
        }
    }

    static class Shipping {
        private final ObjectProvider<JdbcTemplate> jdbc;

        Shipping(ObjectProvider<JdbcTemplate> jdbc) {
            this.jdbc = jdbc;
        }

        @SqlQueueHandler(queue = "nc-orders")
        public void ship(String id) {
            String item = jdbc.getObject().queryForObject("select item from nc_orders where id = ?", String.class, id);
            processed.add(id + ":" + item);
        }
    }

    static Stream<Arguments> matrix() {
        List<Arguments> all = new ArrayList<>();
        for (String db : List.of("h2", "postgresql")) {
            for (Migrations m : Migrations.values()) {
                for (Variant v : Variant.values()) {
                    all.add(Arguments.of(db, m, v));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("matrix")
    void startsAndProcessesOnAFreshDatabaseAndAgain(String db, Migrations migrations, Variant variant) throws Exception {
        String name = "m33_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36);
        String url;
        if (db.equals("h2")) {
            url = "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        } else {
            try (Connection c = DriverManager.getConnection(PG, "postgres", ""); Statement s = c.createStatement()) {
                s.execute("create schema " + name);
            }
            url = PG + "?currentSchema=" + name;
        }
        try {
            for (int start = 1; start <= 2; start++) {
                processed.clear();
                try (ConfigurableApplicationContext ctx = app(url, migrations, variant).run()) {
                    Orders orders = ctx.getBean(Orders.class);
                    if (migrations == Migrations.NONE) {
                        ctx.getBean(JdbcTemplate.class).execute("create table if not exists nc_orders "
                                + "(id varchar(64) primary key, item varchar(200) not null)");
                    }
                    orders.place("kept-" + start, "item " + start);
                    orders.place("dropped-" + start, "");
                    await(() -> processed.size() >= 1);
                    assertThat(processed).as("start %d", start).containsExactly("kept-" + start + ":item " + start);
                    JdbcTemplate jdbc = ctx.getBean(JdbcTemplate.class);
                    assertThat(jdbc.queryForObject("select count(*) from nc_orders", Integer.class)).isEqualTo(start);
                    switch (migrations) {
                        case FLYWAY -> assertThat(jdbc.queryForObject(
                                "select count(*) from \"flyway_schema_history\" where \"version\" = '1' and \"success\"",
                                Integer.class)).as("the application's V1 ran").isEqualTo(1);
                        case LIQUIBASE -> assertThat(jdbc.queryForObject(
                                "select count(*) from databasechangelog where id = '1'", Integer.class)).isEqualTo(1);
                        case NONE -> { }
                    }
                    if (variant == Variant.DASHBOARD) {
                        int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
                        HttpResponse<String> page = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + port + "/sqlqueue/")).build(), HttpResponse.BodyHandlers.ofString());
                        assertThat(page.statusCode()).isEqualTo(200);
                    }
                }
            }
        } finally {
            if (db.equals("h2")) {
                try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
                    s.execute("shutdown");
                }
            } else {
                try (Connection c = DriverManager.getConnection(PG, "postgres", ""); Statement s = c.createStatement()) {
                    s.execute("drop schema " + name + " cascade");
                }
            }
        }
    }

    private static final String PG = "jdbc:postgresql://127.0.0.1:5432/test";

    private static SpringApplicationBuilder app(String url, Migrations migrations, Variant variant) {
        Class<?> service = variant == Variant.QUEUE_FIRST ? QueueFirst.class : JdbcFirst.class;
        List<String> props = new ArrayList<>(List.of("spring.datasource.url=" + url, "sqlqueue.worker.poll-wait=50ms",
                "spring.jmx.enabled=false", "spring.main.banner-mode=off"));
        if (url.startsWith("jdbc:postgresql:")) {
            props.addAll(List.of("spring.datasource.username=postgres", "spring.datasource.password="));
        }
        switch (migrations) {
            case FLYWAY -> props.addAll(List.of("spring.flyway.locations=classpath:matrix/flyway", "spring.liquibase.enabled=false"));
            case LIQUIBASE -> props.add("spring.liquibase.change-log=classpath:matrix/liquibase/changelog.yaml");
            // neither Flyway (it comes with the dialect) nor Liquibase (on this test class path) is switched off
            case NONE -> props.add("spring.liquibase.enabled=false");
        }
        boolean web = variant == Variant.DASHBOARD;
        if (web) {
            props.addAll(List.of("server.port=0", "sqlqueue.dashboard.enabled=true"));
        }
        // the service first: its bean is registered, and so created, before the auto-configured ones
        return new SpringApplicationBuilder(service, App.class)
                .web(web ? WebApplicationType.SERVLET : WebApplicationType.NONE)
                .properties(props.toArray(String[]::new));
    }

    private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not processed within 60 s: " + processed);
            }
            Thread.sleep(20);
        }
    }
}
