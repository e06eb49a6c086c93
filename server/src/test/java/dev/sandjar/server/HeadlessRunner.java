package dev.sandjar.server;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The browser runner page in Debian's headless chromium, driven through its chromedriver: {@link
 * #run} hands a body to the page's {@code sandjarRunner.run} and returns its JSON answer. Each
 * instance has a fresh profile directory; closing it quits the browser and its driver.
 */
final class HeadlessRunner implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    /** A run's own bound is far below this; only a broken page waits this long. */
    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(90);

    private final WebDriver driver;

    private HeadlessRunner(WebDriver driver) {
        this.driver = driver;
    }

    /** Starts chromium with a fresh profile in {@code profile} and {@link #navigate}s. */
    static HeadlessRunner open(String base, String token, Path profile) {
        for (Path p : new Path[] {CHROMIUM, CHROMEDRIVER}) {
            if (!Files.isExecutable(p)) {
                fail(
                        p
                                + " is missing: the browser runner's tests need Debian's chromium"
                                + " and chromium-driver (.ci/run installs them; or apt-get install"
                                + " chromium chromium-driver)");
            }
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1100,900",
                "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service =
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
                        .usingAnyFreePort()
                        .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        HeadlessRunner runner = new HeadlessRunner(driver);
        try {
            driver.manage().timeouts().scriptTimeout(SCRIPT_TIMEOUT);
            driver.manage().timeouts().pageLoadTimeout(SCRIPT_TIMEOUT);
            runner.navigate(base, token);
        } catch (RuntimeException | Error e) {
            runner.close();
            throw e;
        }
        return runner;
    }

    /**
     * Loads {@code base}/runner/ with the token in the fragment (never sent to the server) and
     * waits until the page's script has loaded.
     */
    void navigate(String base, String token) {
        driver.get(base + "/runner/" + (token == null ? "" : "#token=" + token));
        long deadline = System.nanoTime() + SCRIPT_TIMEOUT.toNanos();
        while (!"true".equals(script("return document.body.dataset.ready || ''"))) {
            if (System.nanoTime() > deadline) {
                fail("the runner page did not load its script: " + driver.getPageSource());
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    WebDriver driver() {
        return driver;
    }

    Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    /**
     * Runs {@code code} in the page. The answer is the runner's result JSON, or {@code {"refused":
     * name, "message": ...}} when the runner refused the request itself (a bad limit, a bad token).
     */
    JsonNode run(String code, Map<String, ?> options) {
        ObjectNode o = ServerHarness.JSON.valueToTree(options);
        String answer =
                (String)
                        ((JavascriptExecutor) driver)
                                .executeAsyncScript(
                                        "const done = arguments[arguments.length - 1];"
                                                + "const opts = JSON.parse(arguments[1]);"
                                                + "opts.token = opts.token ?? new URLSearchParams("
                                                + "location.hash.substring(1)).get('token');"
                                                + "window.sandjarRunner.run(arguments[0], opts)"
                                                + ".then(r => done(JSON.stringify(r)),"
                                                + " e => done(JSON.stringify({refused: e.name,"
                                                + " message: e.message})));",
                                        code,
                                        o.toString());
        try {
            return ServerHarness.JSON.readTree(answer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    JsonNode run(String code) {
        return run(code, Map.of());
    }

    /** A PNG of the page as it is now, written to {@code file}. */
    void screenshot(Path file) throws IOException {
        byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
        Files.createDirectories(file.getParent());
        Files.write(file, png);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
