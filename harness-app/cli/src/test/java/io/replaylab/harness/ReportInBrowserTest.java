package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;

import io.replaylab.evidence.junit.Prerequisite;
import io.replaylab.harness.subject.BrokenSubjectMain;
import io.replaylab.kafka.broker.LocalKafka;
import io.replaylab.kafka.junit.LocalKafkaTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * report.html of real runs (a PASS, a FAIL, a NOT_RUN) opened in a real browser, headless Chromium driven by Selenium: the
 * verdict by defect class comes first, the sequence diagram (who sent what to whom, A held and its stale commit refused) and the timeline
 * render with a size, long reasons are folded,
 * and the page logs no error. Each page's screenshot is saved under {@code target/report-screenshots/} (CI keeps it).
 */
@LocalKafkaTest
class ReportInBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "report-screenshots");
    private static ChromeDriver browser;

    @TempDir
    Path dir;

    @BeforeAll
    static void openTheBrowser() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(DRIVER)) {
            Prerequisite.missing("no headless Chromium to open report.html in (" + CHROMIUM + ", " + DRIVER + "); install them with: sudo apt-get "
                    + "install -y chromium chromium-driver");
        }
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1300,2000");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        // the driver Debian ships beside its browser: nothing is downloaded
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile()).build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    @AfterAll
    static void closeTheBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    private Path run(LocalKafka kafka, String name, String... args) {
        List<String> all = new java.util.ArrayList<>(List.of("run", "--bootstrap-server", kafka.bootstrapServers(), "--workdir",
                dir.resolve(name).toString(), "--records", "20"));
        all.addAll(List.of(args));
        Console c = Console.run(all.toArray(String[]::new));
        String printed = c.out();
        assertThat(printed).as(c.err()).contains("Outcome:");
        return Path.of(printed.substring(printed.indexOf("Report: ") + "Report: ".length()).split(" ")[0].trim()).resolveSibling("report.html");
    }

    /** Opens the page, checks what every report shows, saves its screenshot; the page for more checks. */
    private void open(Path html, String name, String outcome) throws Exception {
        browser.get(html.toUri().toString());
        assertThat(browser.findElement(By.id("outcome")).getText()).startsWith("Outcome: " + outcome);
        List<WebElement> lanes = browser.findElements(By.cssSelector("svg.lanes"));
        assertThat(lanes).as("a timeline diagram per experiment that recorded events").hasSize((int) browser.findElements(By.cssSelector("table.timeline"))
                .size());
        assertThat(lanes).allSatisfy(svg -> assertThat(svg.getSize().getWidth() * svg.getSize().getHeight()).as("drawn with a size").isPositive());
        assertThat(browser.findElement(By.cssSelector("table.experiments")).getSize().getHeight()).isPositive();
        List<LogEntry> errors = browser.manage().logs().get(LogType.BROWSER).getAll().stream().filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .toList();
        assertThat(errors).as("console errors").isEmpty();
        long height = (Long) browser.executeScript("return document.body.scrollHeight");
        browser.manage().window().setSize(new Dimension(1300, (int) Math.min(12_000, Math.max(800, height + 100))));
        Files.createDirectories(SCREENSHOTS);
        Files.write(SCREENSHOTS.resolve(name + ".png"), browser.getScreenshotAs(OutputType.BYTES));
        browser.manage().window().setSize(new Dimension(1300, 2000));
    }

    @Test
    void aPassAFailAndANotRunReportRenderInChromiumVerdictFirst(LocalKafka kafka) throws Exception {
        open(run(kafka, "pass", "--experiment", "rebuild"), "pass", "PASS");
        assertThat(browser.findElements(By.cssSelector("table.defects"))).as("rebuild judges no defect class: no verdict table").isEmpty();

        open(run(kafka, "fail", "--experiment", "rebalance", "--subject-cmd", BrokenSubjectMain.template("no-inbox")), "fail", "FAIL");
        WebElement verdicts = browser.findElement(By.cssSelector("section.run-section table.defects"));
        assertThat(verdicts.getLocation().getY()).as("the verdict comes before the experiments")
                .isLessThan(browser.findElement(By.cssSelector("table.experiments")).getLocation().getY());
        assertThat(verdicts.findElement(By.cssSelector("td.caught")).getText()).isEqualTo("caught");
        assertThat(verdicts.getText()).contains("applies every delivery").contains("write the message's id into an inbox table");

        assertThat(browser.findElements(By.cssSelector("svg.lanes"))).isNotEmpty();
        WebElement sequence = browser.findElement(By.cssSelector("#exp-rebalance svg.sequence"));
        assertThat(sequence.getSize().getHeight()).as("the sequence diagram is drawn").isPositive();
        assertThat(sequence.findElements(By.cssSelector("g.party"))).extracting(WebElement::getText).as("its parties")
                .contains("rebalance-A", "rebalance-B", "broker");
        assertThat(sequence.findElements(By.cssSelector("g.message"))).as("A's and B's OffsetCommits to the broker, as arrows").isNotEmpty();
        assertThat(sequence.findElements(By.cssSelector("g.mark")).stream().map(WebElement::getText))
                .as("on A's line: held at its commit, then its stale commit refused").anyMatch(t -> t.contains("barrier: barrier offset-commit reached"))
                .anyMatch(t -> t.contains("commit rejected: "));
        assertThat(browser.findElements(By.cssSelector("details.fold"))).as("long texts folded").isNotEmpty();

        open(run(kafka, "not-run", "--experiment", "db-faults"), "not-run", "NOT_RUN");
        assertThat(browser.findElement(By.id("exp-db-faults")).getText()).contains("database faults need a PostgreSQL target");
    }

    @Test
    void aMatrixIsAColouredGridWhoseCellsLinkToTheirParts(LocalKafka kafka) throws Exception {
        open(run(kafka, "grid", "--experiment", "schedules", "--cells", "before-offset-commit:hold,after-db-commit:crash", "--subject-cmd",
                BrokenSubjectMain.template("no-inbox")), "grid", "FAIL");

        WebElement grid = browser.findElement(By.cssSelector("table.matrix"));
        List<WebElement> cells = grid.findElements(By.cssSelector("td a"));
        assertThat(cells).as("a cell per run cell, each a link").hasSize(2);
        for (WebElement a : cells) {
            WebElement td = a.findElement(By.xpath(".."));
            String status = td.getAttribute("class");
            java.util.Map<String, String> colours = java.util.Map.of("PASS", "rgba(46, 125, 50, 1)", "FAIL", "rgba(198, 40, 40, 1)",
                    "NOT_RUN", "rgba(249, 168, 37, 1)");
            assertThat(colours).containsKey(status);
            assertThat(td.getCssValue("background-color")).as("coloured by its outcome, " + status).isEqualTo(colours.get(status));
            String target = a.getAttribute("href").substring(a.getAttribute("href").indexOf('#') + 1);
            assertThat(browser.findElements(By.id(target))).as("its cell's section, " + target).hasSize(1);
            assertThat(td.getAttribute("title")).as("its reason on hover").isNotBlank();
        }
        assertThat(grid.findElements(By.cssSelector("td.FAIL"))).as("the twin without an inbox fails a cell").isNotEmpty();
    }
}
