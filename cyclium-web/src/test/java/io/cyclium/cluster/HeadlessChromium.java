package io.cyclium.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The Debian Chromium and chromedriver, headless, with a fresh profile under {@code profiles}: the
 * flags TOOLCHAIN.md lists (nothing goes online on its own). Quit what this returns.
 */
public final class HeadlessChromium {

    private HeadlessChromium() {
    }

    public static ChromeDriver start(Path profiles, String name) throws IOException {
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=1280,1000",
                "--user-data-dir=" + Files.createTempDirectory(Files.createDirectories(profiles), name).toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new java.io.File("/usr/bin/chromedriver")).build();
        return new ChromeDriver(service, options);
    }
}
