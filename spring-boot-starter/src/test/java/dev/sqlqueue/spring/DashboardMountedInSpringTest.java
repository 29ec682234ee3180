package dev.sqlqueue.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlqueue.ConsumeRequest;
import dev.sqlqueue.Delivery;
import dev.sqlqueue.Message;
import dev.sqlqueue.QueueName;
import dev.sqlqueue.SqlQueue;
import dev.sqlqueue.dashboard.DashboardApp;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.ServletWebServerFactoryAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The dashboard mounted in a Spring Boot application (embedded Tomcat, H2): off unless enabled; under
 * the configured path; the token refuses a request without it (401, nothing changed); an action needs
 * POST and the page's CSRF token; the page works under the path in Debian's Chromium.
 */
class DashboardMountedInSpringTest {
    private static final String TOKEN = "spring-dashboard-token-0123456789";

    @SpringBootConfiguration
    @ImportAutoConfiguration({PropertyPlaceholderAutoConfiguration.class, ServletWebServerFactoryAutoConfiguration.class,
            DataSourceAutoConfiguration.class, SqlQueueAutoConfiguration.class, SqlQueueDashboardAutoConfiguration.class})
    static class WebApp {
    }

    private static String h2() {
        String prefix = "s18_" + Long.toString(ThreadLocalRandom.current().nextLong(1L << 40), 36) + "_";
        return "spring.datasource.url=jdbc:h2:mem:" + prefix + ";DB_CLOSE_DELAY=-1";
    }

    @Test
    void offUnlessEnabled() {
        WebApplicationContextRunner runner = new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, SqlQueueAutoConfiguration.class,
                        SqlQueueDashboardAutoConfiguration.class))
                .withPropertyValues(h2());
        runner.run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean(DashboardApp.class));
        runner.withPropertyValues("sqlqueue.dashboard.enabled=true")
                .run(ctx -> assertThat(ctx).hasNotFailed().hasSingleBean(DashboardApp.class));
    }

    @Test
    void mountedUnderItsPathWithTokenAndCsrf(@org.junit.jupiter.api.io.TempDir Path profile) throws Exception {
        try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(WebApp.class)
                .web(WebApplicationType.SERVLET)
                .properties("server.port=0", h2(), "sqlqueue.history=true", "sqlqueue.dashboard.enabled=true",
                        "sqlqueue.dashboard.path=/ops/queues", "sqlqueue.dashboard.token=" + TOKEN)
                .run()) {
            SqlQueue q = ctx.getBean(SqlQueue.class);
            QueueName jobs = QueueName.of("jobs");
            long id = q.enqueue(jobs, Message.ofText("<b>job</b>"));
            for (Delivery d : q.consume(jobs, ConsumeRequest.of(1))) {
                q.deadLetter(d.receipt(), "failed");
            }
            int port = ((WebServerApplicationContext) ctx).getWebServer().getPort();
            String base = "http://127.0.0.1:" + port + "/ops/queues/";
            HttpClient http = HttpClient.newHttpClient();

            HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create(base)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(anonymous.statusCode()).isEqualTo(401);
            HttpResponse<String> anonymousPost = http.send(HttpRequest.newBuilder(URI.create(base + "api/requeue-all"))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("queue=jobs")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(anonymousPost.statusCode()).isEqualTo(401);
            assertThat(q.stats(jobs).dead()).as("nothing changed").isEqualTo(1);

            HttpResponse<String> login = http.send(HttpRequest.newBuilder(URI.create(base + "?token=" + TOKEN)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(login.statusCode()).isEqualTo(303);
            assertThat(login.headers().firstValue("Location")).hasValue("/ops/queues/");
            assertThat(login.headers().firstValue("Set-Cookie").orElseThrow())
                    .contains(DashboardApp.TOKEN_COOKIE + "=" + TOKEN, "Path=/ops/queues", "HttpOnly", "SameSite=Strict");

            HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base))
                    .header("Cookie", DashboardApp.TOKEN_COOKIE + "=" + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Security-Policy").orElseThrow()).contains("script-src 'self'");
            Matcher csrf = Pattern.compile("name=\"sqlqueue-csrf\" content=\"([^\"]+)\"").matcher(page.body());
            assertThat(csrf.find()).isTrue();
            for (String asset : List.of("static/app.js", "static/uPlot.iife.min.js", "static/uPlot-LICENSE.txt")) {
                assertThat(http.send(HttpRequest.newBuilder(URI.create(base + asset)).header("Authorization", "Bearer " + TOKEN).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode()).as(asset).isEqualTo(200);
            }
            HttpResponse<String> dead = http.send(HttpRequest.newBuilder(URI.create(base + "api/dead?queue=jobs"))
                    .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(dead.body()).contains("\"preview\":\"\\u003cb\\u003ejob\\u003c/b\\u003e\"");

            HttpRequest.Builder requeue = HttpRequest.newBuilder(URI.create(base + "api/requeue"))
                    .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString("queue=jobs&id=" + id));
            assertThat(http.send(requeue.build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                    .as("no CSRF token").isEqualTo(403);
            assertThat(q.stats(jobs).dead()).isEqualTo(1);
            HttpResponse<String> ok = http.send(requeue.header(DashboardApp.CSRF_HEADER, csrf.group(1)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("{\"action\":\"requeued\",\"count\":1,\"message\":\"requeued 1 dead letter(s)\"}");
            assertThat(q.stats(jobs).dead()).isZero();
            assertThat(q.stats(jobs).ready()).isEqualTo(1);

            // the same page in a real browser under the path: log in once, see the queue, requeue through the page
            QueueName mail = QueueName.of("mail");
            long mailId = q.enqueue(mail, Message.ofText("to be requeued"));
            for (Delivery d : q.consume(mail, ConsumeRequest.of(1))) {
                q.deadLetter(d.receipt(), "smtp down");
            }
            ChromeDriver driver = startChromium(profile);
            try {
                WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(15));
                driver.get(base + "?token=" + TOKEN);
                wait.until(d -> !d.findElements(By.cssSelector("#queues tr[data-queue='mail']")).isEmpty());
                assertThat(driver.getCurrentUrl()).as("the token left the address bar").isEqualTo(base);
                assertThat(driver.findElement(By.cssSelector("#queues tr[data-queue='jobs'] td[data-col='ready']")).getText())
                        .isEqualTo(String.valueOf(q.stats(jobs).ready()));
                driver.findElement(By.cssSelector("#queues tr[data-queue='mail']")).click();
                By requeueButton = By.cssSelector("#dead tr[data-id='" + mailId + "'] button.requeue");
                wait.until(d -> !d.findElements(requeueButton).isEmpty());
                driver.findElement(requeueButton).click();
                wait.until(d -> d.findElement(By.id("confirm")).isDisplayed());
                driver.findElement(By.id("confirm-ok")).click();
                wait.until(d -> q.stats(mail).dead() == 0);
                assertThat(q.stats(mail).ready()).isEqualTo(1);
            } finally {
                driver.quit();
            }
        }
    }

    /**
     * Debian's Chromium and chromedriver (installed by .ci/run), with its profile in {@code profile} (the test's
     * temporary directory, deleted after it); missing, the test fails.
     */
    private static ChromeDriver startChromium(Path profile) {
        Path chromium = Path.of("/usr/bin/chromium");
        Path chromedriver = Path.of("/usr/bin/chromedriver");
        assertThat(Files.isExecutable(chromium) && Files.isExecutable(chromedriver))
                .as("apt-get install -y chromium chromium-driver (.ci/run does)").isTrue();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile);
        return new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort().build(), options);
    }
}
