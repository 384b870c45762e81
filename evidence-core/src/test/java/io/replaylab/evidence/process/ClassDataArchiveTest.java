package io.replaylab.evidence.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Child JVMs start from a class-data archive of their jars: the first launch dumps one at its exit
 * (alone: a launch meanwhile runs without), the next puts it in place and loads the jars' classes
 * from it (the JVM says so), with the child's stdout its own; a dump cut short is never mapped.
 */
class ClassDataArchiveTest {
    @TempDir
    Path cds;
    @TempDir
    Path jars;

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

    /** The child's main class in a jar of its own, with the Jackson jars it uses: a class path of jars only. */
    private List<String> childOnJars() throws Exception {
        Path jar = jars.resolve("child.jar");
        String entry = ClassDataChildMain.class.getName().replace('.', '/') + ".class";
        try (OutputStream f = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(f)) {
            j.putNextEntry(new JarEntry(entry));
            try (var in = ClassDataChildMain.class.getClassLoader().getResourceAsStream(entry)) {
                in.transferTo(j);
            }
        }
        List<String> cp = new ArrayList<>(List.of(jar.toString()));
        Stream.of(System.getProperty("java.class.path").split(File.pathSeparator)).filter(e -> e.contains("jackson")).forEach(cp::add);
        return List.of(ChildProcess.javaExecutable(), "-Xmx64m", "-cp", String.join(File.pathSeparator, cp), ClassDataChildMain.class.getName());
    }

    @Test
    void theFirstLaunchDumpsAtItsExitAloneAndTheNextLoadsItsJarsClassesFromTheArchive() throws Exception {
        List<String> plain = childOnJars();
        List<String> first = ChildProcess.withClassData(plain);
        assertThat(first).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit=" + cds)).contains("-Xlog:cds*=off");
        assertThat(ChildProcess.withClassData(plain)).as("a launch while the first one's dump is claimed runs as given").isEqualTo(plain);
        assertThat(run(first)).as("stdout stays the program's own").isEqualTo("child says {\"a\":1}\n");
        assertThat(files(".jsa.part")).singleElement();
        assertThat(files(".jsa")).isEmpty();

        List<String> mapped = new ArrayList<>(ChildProcess.withClassData(plain));
        assertThat(files(".jsa")).as("the whole dump put in place").singleElement();
        assertThat(files(".jsa.part")).isEmpty();
        assertThat(files(".dumping")).as("the claim ended").isEmpty();
        assertThat(mapped).contains("-XX:SharedArchiveFile=" + files(".jsa").get(0), "-Xlog:cds*=off").noneMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit"));
        assertThat(run(mapped)).isEqualTo("child says {\"a\":1}\n");
        mapped.add(mapped.indexOf("-cp"), "-Xlog:class+load=info");
        assertThat(run(mapped)).contains("com.fasterxml.jackson.databind.ObjectMapper source: shared objects file")
                .contains("io.replaylab.evidence.process.ClassDataChildMain source: shared objects file");

        // a JVM with a debugger agent maps it too (a debugger sets breakpoints in archived classes as in any other; the
        // lab's rebalance holds KafkaConsumer#commitSync in one)
        Path out = cds.resolve("debugged.out");
        try (ChildProcess debugged = ChildProcess.of(mapped).name("debugged").output(out, cds.resolve("debugged.err"))
                .debuggerAgent(false, Duration.ofSeconds(30)).start()) {
            debugged.awaitOutput("child says", Duration.ofSeconds(30));
        }
        assertThat(Files.readString(out)).contains("com.fasterxml.jackson.databind.ObjectMapper source: shared objects file");
    }

    /** The child's main class in a directory of classes (as a build's target/classes), with the Jackson jars it uses. */
    private List<String> childInDirectory(Path classes) throws Exception {
        String entry = ClassDataChildMain.class.getName().replace('.', '/') + ".class";
        Path file = classes.resolve(entry);
        Files.createDirectories(file.getParent());
        try (var in = ClassDataChildMain.class.getClassLoader().getResourceAsStream(entry)) {
            Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        List<String> cp = new ArrayList<>(List.of(classes.toString()));
        Stream.of(System.getProperty("java.class.path").split(File.pathSeparator)).filter(e -> e.contains("jackson")).forEach(cp::add);
        return List.of(ChildProcess.javaExecutable(), "-Xmx64m", "-cp", String.join(File.pathSeparator, cp), ClassDataChildMain.class.getName());
    }

    private static String classPath(List<String> command) {
        return command.get(command.indexOf("-cp") + 1);
    }

    @Test
    void aDirectoryOnTheClassPathIsGivenAsAJarOfItsContentAndItsClassesComeFromTheArchive() throws Exception {
        Path classes = jars.resolve("target").resolve("classes");
        List<String> plain = childInDirectory(classes);
        List<String> first = ChildProcess.withClassData(plain);
        assertThat(first).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
        String[] entries = classPath(first).split(File.pathSeparator);
        assertThat(entries[0]).as("the directory's jar, named after it").startsWith(cds.resolve("classes").resolve(jars.getFileName() + "-classes-").toString())
                .endsWith(".jar");
        assertThat(classPath(first)).as("the jars after it as they were").endsWith(classPath(plain).substring(classes.toString().length()));
        try (var jar = new java.util.jar.JarFile(entries[0])) {
            assertThat(jar.getEntry(ClassDataChildMain.class.getName().replace('.', '/') + ".class")).isNotNull();
        }
        long packedAt = Files.getLastModifiedTime(Path.of(entries[0])).toMillis();
        assertThat(run(first)).isEqualTo("child says {\"a\":1}\n");

        List<String> mapped = new ArrayList<>(ChildProcess.withClassData(plain));
        assertThat(classPath(mapped)).as("the same content: the same jar").isEqualTo(classPath(first));
        assertThat(Files.getLastModifiedTime(Path.of(entries[0])).toMillis()).as("never rewritten: the archive's key and the JVM's check hold").isEqualTo(packedAt);
        assertThat(mapped).anyMatch(o -> o.startsWith("-XX:SharedArchiveFile="));
        mapped.add(mapped.indexOf("-cp"), "-Xlog:class+load=info");
        assertThat(run(mapped)).contains("io.replaylab.evidence.process.ClassDataChildMain source: shared objects file");

        Files.writeString(classes.resolve("added.properties"), "a=1\n");
        List<String> changed = ChildProcess.withClassData(plain);
        assertThat(classPath(changed)).as("changed content: a new jar").isNotEqualTo(classPath(first));
        assertThat(changed).as("a new jar: a new archive, dumped by this launch").anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
        try (var jar = new java.util.jar.JarFile(classPath(changed).split(File.pathSeparator)[0])) {
            assertThat(jar.getEntry("added.properties")).isNotNull();
        }
    }

    @Test
    void aDumpCutShortIsNeverMappedAndIsRemovedOnceStale() throws Exception {
        List<String> plain = childOnJars();
        List<String> first = ChildProcess.withClassData(plain);
        String part = first.stream().filter(o -> o.startsWith("-XX:ArchiveClassesAtExit=")).findFirst().orElseThrow().substring("-XX:ArchiveClassesAtExit=".length());
        // what SIGKILL in the middle of a dump leaves: the regions begun, the header (written last) still zeros
        Files.write(Path.of(part), new byte[4096]);
        assertThat(ChildProcess.withClassData(plain)).as("claimed and half-written: as given").isEqualTo(plain);
        assertThat(Path.of(part)).as("a dump under way is left alone").exists();

        Instant old = Instant.now().minus(ClassDataArchive.STALE).minusSeconds(60);
        Files.setLastModifiedTime(Path.of(part), FileTime.from(old));
        Files.setLastModifiedTime(files(".dumping").get(0), FileTime.from(old));
        assertThat(ChildProcess.withClassData(plain)).as("a stale claim is given up, not taken by this launch").isEqualTo(plain);
        assertThat(Path.of(part)).as("the stale half-written dump removed").doesNotExist();
        assertThat(files(".jsa")).isEmpty();
        assertThat(ChildProcess.withClassData(plain)).as("the launch after that dumps again").anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
    }

    @Test
    void aDebuggedJvmNeverDumpsAndGivesBackTheDumpItWasGiven() throws Exception {
        List<String> first = ChildProcess.withClassData(childOnJars());
        assertThat(first).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
        Path out = cds.resolve("debugged.out");
        // with the dump option a JVM with a debug agent would not start at all ("CDS dumping does not support native JVMTI agent")
        try (ChildProcess debugged = ChildProcess.of(first).name("debugged").output(out, cds.resolve("debugged.err"))
                .debuggerAgent(false, Duration.ofSeconds(30)).start()) {
            debugged.awaitOutput("child says", Duration.ofSeconds(30));
            debugged.process().waitFor();
            assertThat(debugged.exitCode()).hasValue(0);
        }
        assertThat(files(".dumping")).as("the claim given back").isEmpty();
        assertThat(files(".jsa.part")).isEmpty();
        assertThat(ChildProcess.withClassData(childOnJars())).as("the next launch dumps instead").anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
    }

    @Test
    void offOrAClassPathWithADirectoryOrACommandThatChoseItsOwnIsLeftAlone() throws Exception {
        List<String> own = List.of(ChildProcess.javaExecutable(), "-Xshare:off", "-cp", childOnJars().get(3), "Main");
        assertThat(ChildProcess.withClassData(own)).isEqualTo(own);
        List<String> python = List.of("python3", "-cp", "x.jar", "Main");
        assertThat(ChildProcess.withClassData(python)).isEqualTo(python);
        List<String> wildcard = List.of(ChildProcess.javaExecutable(), "-cp", childOnJars().get(3) + File.pathSeparator + jars + "/*", "Main");
        assertThat(ChildProcess.withClassData(wildcard)).as("the launcher's wildcard: its own business").isEqualTo(wildcard);
        List<String> missing = List.of(ChildProcess.javaExecutable(), "-cp", childOnJars().get(3) + File.pathSeparator + jars.resolve("gone"), "Main");
        assertThat(ChildProcess.withClassData(missing)).isEqualTo(missing);
        System.setProperty("replaylab.cds", "off");
        List<String> plain = childOnJars();
        assertThat(ChildProcess.withClassData(plain)).isEqualTo(plain);
        assertThat(files("")).isEmpty();
    }

    /** A main class with subcommands: each program it names dumps and maps an archive of its own; a name that is not a word is refused. */
    @Test
    void eachProgramOfOneMainClassHasAnArchiveOfItsOwn() throws Exception {
        List<String> plain = childOnJars();
        List<String> consume = new ArrayList<>(plain);
        consume.add(1, ChildProcess.program("consume"));
        List<String> produce = new ArrayList<>(plain);
        produce.add(1, ChildProcess.program("produce"));
        run(ChildProcess.withClassData(consume));
        assertThat(ChildProcess.withClassData(produce)).as("not the consumer's archive: a dump of its own").anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="))
                .noneMatch(o -> o.startsWith("-XX:SharedArchiveFile="));
        assertThat(files(".jsa")).as("the consumer's dump put in place").singleElement().satisfies(f -> assertThat(f.getFileName().toString())
                .startsWith("ClassDataChildMain-consume-"));
        assertThat(ChildProcess.withClassData(consume)).contains("-XX:SharedArchiveFile=" + files(".jsa").get(0));
        assertThat(ChildProcess.withClassData(plain)).as("the main class without a program: another archive").noneMatch(o -> o.startsWith("-XX:SharedArchiveFile="));
        assertThatThrownBy(() -> ChildProcess.program("consume --all")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a program's name is letters, digits, '_' and '-', was 'consume --all'");
    }

    /** Unset means on; the property wins over the environment; anything but on or off is refused with the name of what said it. */
    @Test
    void unsetIsOnThePropertyWinsAndAnythingButOnOrOffIsRefused() throws Exception {
        assertThat(ClassDataArchive.enabled(null, null)).as("unset").isTrue();
        assertThat(ClassDataArchive.enabled(" ", "off")).as("a blank property: as unset, the environment decides").isFalse();
        assertThat(ClassDataArchive.enabled("on", "off")).as("the property wins").isTrue();
        assertThat(ClassDataArchive.enabled("OFF", null)).as("any case").isFalse();
        assertThatThrownBy(() -> ClassDataArchive.enabled("yes", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("-Dreplaylab.cds must be on or off, was 'yes' (class-data archives for child JVMs)");
        assertThatThrownBy(() -> ClassDataArchive.enabled(null, "1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("REPLAYLAB_CDS must be on or off, was '1' (class-data archives for child JVMs)");

        List<String> plain = childOnJars();
        System.setProperty("replaylab.cds", "yes");
        assertThatThrownBy(() -> ChildProcess.withClassData(plain)).as("a launch with a bad value").isInstanceOf(IllegalArgumentException.class);
    }
}
