package io.replaylab.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The CLI is a thin shell: its only public types are its entry point and the login mixin the
 * benches share, and only it knows its flags: no string constant of the library modules' classes
 * names one (their messages speak the API's words, which {@link ReplayLab} translates).
 */
class CliApiTest {
    /** The library modules' packages: what another lab depends on. */
    private static final String[] LIBRARIES = {"io.replaylab.evidence", "io.replaylab.kafka", "io.replaylab.barrier", "io.replaylab.oracle",
        "io.replaylab.harness.lab", "io.replaylab.harness.experiment"};

    /** Classes whose strings are another program's command line, not a message: Kafka's storage tool takes {@code --format}. */
    private static final Set<String> OTHER_PROGRAMS = Set.of("io.replaylab.kafka.broker.BrokerMain", "io.replaylab.kafka.broker.KafkaNode");

    @Test
    void theOnlyPublicTypesAreTheEntryPointAndTheSharedLogin() {
        assertThat(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.replaylab.harness").stream()
                .filter(c -> c.getPackageName().equals("io.replaylab.harness"))
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC)).map(JavaClass::getName))
                .containsExactlyInAnyOrder("io.replaylab.harness.ReplayLab", "io.replaylab.harness.TargetLogin");
    }

    /**
     * Every setting the libraries' refusals name ({@code public static final Setting}) has a flag here, so that a refusal on the
     * console names what to type: the CLI renames exactly the settings a refusal says it names, never by reading its words.
     */
    @Test
    void everySettingTheLibrariesRefusalsNameHasAFlag() throws Exception {
        List<io.replaylab.evidence.Setting> declared = new ArrayList<>();
        for (JavaClass c : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(LIBRARIES)) {
            for (com.tngtech.archunit.core.domain.JavaField f : c.getFields()) {
                if (f.getRawType().isEquivalentTo(io.replaylab.evidence.Setting.class) && f.getModifiers().contains(JavaModifier.STATIC)) {
                    java.lang.reflect.Field field = f.reflect();
                    field.setAccessible(true);
                    declared.add((io.replaylab.evidence.Setting) field.get(null));
                }
            }
        }
        assertThat(declared).as("the libraries' settings were found").hasSizeGreaterThanOrEqualTo(18);
        assertThat(declared.stream().filter(d -> !ReplayLab.FLAGS.containsKey(d)).map(Object::toString))
                .as("settings a refusal may name with no flag on the command line").isEmpty();
        assertThat(ReplayLab.inFlags(new io.replaylab.kafka.ResetRefusedException("g", List.of("no plan directory was given ("
                + io.replaylab.kafka.ExecuteResetOptions.PLAN_DIR + ")"), List.of(io.replaylab.kafka.ExecuteResetOptions.PLAN_DIR))))
                .endsWith("no plan directory was given (--plan-dir D)");
        assertThat(ReplayLab.inFlags(new IllegalArgumentException("LabSettings.allowRemote stays"))).as("a message that names no setting is as it is")
                .isEqualTo("LabSettings.allowRemote stays");
    }

    @Test
    void noStringConstantOfTheLibrariesNamesAFlagOfTheCli() throws IOException {
        Set<String> flags = new TreeSet<>();
        collect(new CommandLine(new ReplayLab()).getCommandSpec(), flags);
        flags.removeAll(Set.of("--help", "--version"));
        assertThat(flags).as("the CLI's flags were read").contains("--records", "--bootstrap-server", "--subject-cmd", "--allow-remote", "--cells");
        Pattern anyFlag = Pattern.compile(flags.stream().map(Pattern::quote).collect(Collectors.joining("|", "(?<![\\w-])(", ")(?![\\w-])")));

        List<String> found = new ArrayList<>();
        int classes = 0;
        for (JavaClass c : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(LIBRARIES)) {
            if (OTHER_PROGRAMS.contains(c.getName()) || c.getPackageName().endsWith(".testing") || c.getPackageName().endsWith(".junit")) {
                continue; // test fixtures (kafka-ops' test-jar) start programs with flags of their own
            }
            classes++;
            try (InputStream in = c.reflect().getClassLoader().getResourceAsStream(c.getName().replace('.', '/') + ".class")) {
                for (String s : utf8Constants(in)) {
                    if (anyFlag.matcher(s).find()) {
                        found.add(c.getName() + ": \"" + s + "\"");
                    }
                }
            }
        }
        assertThat(classes).as("library classes read").isGreaterThan(100);
        assertThat(found).as("library strings that name a CLI flag").isEmpty();
    }

    @Test
    void everyOptionOfEveryCommandSaysWhatItIsInHelp() {
        List<String> bare = new ArrayList<>();
        undescribed(new CommandLine(new ReplayLab()).getCommandSpec(), bare);
        assertThat(bare).as("options with no description in --help").isEmpty();
    }

    /** {@code run --records}: every option of this command tree whose --help line would say nothing. */
    static void undescribed(CommandSpec spec, List<String> out) {
        for (OptionSpec o : spec.options()) {
            if (o.description().length == 0 || String.join("", o.description()).isBlank()) {
                out.add(spec.qualifiedName() + " " + o.longestName());
            }
        }
        spec.subcommands().values().forEach(sub -> undescribed(sub.getCommandSpec(), out));
    }

    private static void collect(CommandSpec spec, Set<String> flags) {
        for (OptionSpec o : spec.options()) {
            flags.addAll(List.of(o.names()));
        }
        spec.subcommands().values().forEach(sub -> collect(sub.getCommandSpec(), flags));
    }

    /** The CONSTANT_Utf8 entries of a class file's constant pool (JVMS 4.4): every string literal the class holds. */
    private static List<String> utf8Constants(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        in.readInt(); // magic
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        List<String> out = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> out.add(in.readUTF());
                case 3, 4 -> in.skipBytes(4);
                case 5, 6 -> {
                    in.skipBytes(8);
                    i++; // a long or double takes two entries
                }
                case 7, 8, 16, 19, 20 -> in.skipBytes(2);
                case 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
                case 15 -> in.skipBytes(3);
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        return out;
    }
}
