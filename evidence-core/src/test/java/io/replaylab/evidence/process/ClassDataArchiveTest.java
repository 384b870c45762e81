package io.replaylab.evidence.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Child JVMs start from a class-data archive of their jars: the first launch records its classes,
 * the tenth archives them in the background (not before: a dump costs what about eight launches save), and the launches after that load the jars' classes
 * from the archive (the JVM says so), with the test's class directory still on the class path and
 * the child's stdout its own.
 */
class ClassDataArchiveTest {
    @TempDir
    Path cds;

    @BeforeEach
    void ownDir() {
        System.setProperty("replaylab.cds.dir", cds.toString());
        System.setProperty("replaylab.cds", "on");
    }

    @AfterEach
    void sharedDir() {
        System.clearProperty("replaylab.cds.dir");
        System.clearProperty("replaylab.cds");
    }

    private static String run(List<String> cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private List<Path> files(String suffix) throws Exception {
        try (Stream<Path> s = Files.list(cds)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
        }
    }

    @Test
    void aChildJvmRecordsItsClassesThenALaterOneArchivesThemAndTheNextLoadsItsJarsClassesFromTheArchive() throws Exception {
        List<String> first = ChildProcess.java(List.of("-Xmx64m"), ClassDataChildMain.class.getName());
        assertThat(first).anyMatch(o -> o.startsWith("-XX:DumpLoadedClassList=" + cds));
        assertThat(run(first)).isEqualTo("child says {\"a\":1}\n");
        assertThat(files(".part")).singleElement();

        assertThat(ChildProcess.java(List.of("-Xmx64m"), ClassDataChildMain.class.getName())).as("the list may still grow: nothing yet")
                .noneMatch(o -> o.startsWith("-XX:"));
        Files.setLastModifiedTime(files(".part").get(0), FileTime.from(Instant.now().minusSeconds(10)));
        for (int launch = 3; launch < 10; launch++) {
            assertThat(ChildProcess.java(List.of("-Xmx64m"), ClassDataChildMain.class.getName())).as("launch %d: not yet worth a dump", launch)
                    .noneMatch(o -> o.startsWith("-XX:"));
            assertThat(files(".jsa.tmp")).isEmpty();
        }
        assertThat(ChildProcess.java(List.of("-Xmx64m"), ClassDataChildMain.class.getName())).as("the tenth: archiving in the background")
                .noneMatch(o -> o.startsWith("-XX:"));
        long deadline = System.nanoTime() + 90_000_000_000L;
        while (files(".jsa").isEmpty() && files(".failed").isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(files(".failed")).isEmpty();
        assertThat(files(".jsa")).singleElement();

        List<String> mapped = new ArrayList<>(ChildProcess.java(List.of("-Xmx64m"), ClassDataChildMain.class.getName()));
        assertThat(mapped).contains("-XX:SharedArchiveFile=" + files(".jsa").get(0), "-Xlog:cds*=off");
        String[] cp = mapped.get(mapped.indexOf("-cp") + 1).split(File.pathSeparator);
        assertThat(cp[0]).endsWith(".jar");
        assertThat(cp[cp.length - 1]).doesNotEndWith(".jar"); // the class directories after the archive's jars
        assertThat(run(mapped)).isEqualTo("child says {\"a\":1}\n");
        mapped.add(mapped.indexOf("-cp"), "-Xlog:class+load=info");
        assertThat(run(mapped)).contains("com.fasterxml.jackson.databind.ObjectMapper source: shared objects file")
                .contains("io.replaylab.evidence.process.ClassDataChildMain source: file:");

        // a JVM with a debugger agent never maps an archive, even from a command that names one
        Path out = cds.resolve("debugged.out");
        try (ChildProcess debugged = ChildProcess.of(mapped).name("debugged").output(out, cds.resolve("debugged.err"))
                .debuggerAgent(false, java.time.Duration.ofSeconds(30)).start()) {
            debugged.awaitOutput("child says", java.time.Duration.ofSeconds(30));
        }
        assertThat(Files.readString(out)).contains("com.fasterxml.jackson.databind.ObjectMapper source: ")
                .doesNotContain("ObjectMapper source: shared objects file");
    }

    @Test
    void offMeansTheCommandAsGivenAndACommandThatChoseItsOwnIsLeftAlone() {
        List<String> own = List.of(ChildProcess.javaExecutable(), "-Xshare:off", "-cp", System.getProperty("java.class.path"), "Main");
        assertThat(ChildProcess.withClassData(own)).isEqualTo(own);
        List<String> python = List.of("python3", "-cp", "x.jar", "Main");
        assertThat(ChildProcess.withClassData(python)).isEqualTo(python);
        System.setProperty("replaylab.cds", "off");
        try {
            List<String> plain = List.of(ChildProcess.javaExecutable(), "-cp", System.getProperty("java.class.path"), "Main");
            assertThat(ChildProcess.withClassData(plain)).isEqualTo(plain);
        } finally {
            System.setProperty("replaylab.cds", "on");
        }
    }

    /** Unset means off; the property wins over the environment; anything but on or off is refused with the name of what said it. */
    @Test
    void unsetIsOffThePropertyWinsAndAnythingButOnOrOffIsRefused() {
        assertThat(ClassDataArchive.enabled(null, null)).as("unset").isFalse();
        assertThat(ClassDataArchive.enabled(" ", "on")).as("a blank property: as unset, the environment decides").isTrue();
        assertThat(ClassDataArchive.enabled("off", "on")).as("the property wins").isFalse();
        assertThat(ClassDataArchive.enabled("ON", null)).as("any case").isTrue();
        assertThatThrownBy(() -> ClassDataArchive.enabled("yes", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("-Dreplaylab.cds must be on or off, was 'yes' (class-data archives for child JVMs)");
        assertThatThrownBy(() -> ClassDataArchive.enabled(null, "1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("REPLAYLAB_CDS must be on or off, was '1' (class-data archives for child JVMs)");

        List<String> plain = List.of(ChildProcess.javaExecutable(), "-cp", System.getProperty("java.class.path"), "Main");
        System.setProperty("replaylab.cds", "yes");
        try {
            assertThatThrownBy(() -> ChildProcess.withClassData(plain)).as("a launch with a bad value").isInstanceOf(IllegalArgumentException.class);
        } finally {
            System.setProperty("replaylab.cds", "on");
        }
    }
}
