package dev.sqlqueue.dashboard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium driven by Debian's chromedriver (packages {@code chromium}, {@code chromium-driver};
 * {@code .ci/run} installs them). Both paths are given, so Selenium Manager never runs and nothing is
 * downloaded. A machine without them fails the browser tests: they are never skipped.
 */
final class Browser {
    static final Path CHROMIUM = Path.of(System.getProperty("dashboard.chromium", "/usr/bin/chromium"));
    /** The time zone the browser runs in: +09:00 all year, so it differs from UTC. */
    static final String BROWSER_ZONE = "Asia/Tokyo";
    static final Path CHROMEDRIVER = Path.of(System.getProperty("webdriver.chrome.driver", "/usr/bin/chromedriver"));

    private Browser() {
    }

    private static void deleteTree(Path dir) {
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException ignored) {
            // best effort: a file Chromium still held stays behind
        }
    }

    /** A new headless Chromium with a fresh profile, deleted by {@code quit()}; end it with {@code quit()}. */
    static ChromeDriver start() throws IOException {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            throw new IllegalStateException("the browser tests need Debian's Chromium and chromedriver at " + CHROMIUM
                    + " and " + CHROMEDRIVER + ": apt-get install -y chromium chromium-driver (.ci/run does)");
        }
        Path profile = Files.createTempDirectory("sqlqueue-dashboard-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--user-data-dir=" + profile, "--window-size=1400,1000");
        // the browser's own time zone is not UTC, so that the page's choice between UTC and the browser's zone shows
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
                .withEnvironment(java.util.Map.of("TZ", BROWSER_ZONE)).build();
        ChromeDriver driver = new ChromeDriver(service, options) {
            @Override
            public void quit() {
                try {
                    super.quit();
                } finally {
                    deleteTree(profile); // the profile of this browser only: nothing of the run is left in the temp dir
                }
            }
        };
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
        driver.manage().window().setSize(new Dimension(1400, 1000));
        return driver;
    }
}
