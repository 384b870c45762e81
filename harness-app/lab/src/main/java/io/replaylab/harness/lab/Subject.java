package io.replaylab.harness.lab;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.replaylab.evidence.process.ChildProcess;

/**
 * The program under test, as a value: how to start one consumer instance. Three kinds:
 * <ul>
 *   <li>{@link #command(String)}: any program, as a command template;</li>
 *   <li>{@link #javaMain(Class, String...)}: a main class of the caller's own class path, started as
 *       a child JVM on that class path (so the debugger barrier reaches it);</li>
 *   <li>the reference subject, which the {@code harness-subject} module offers as values
 *       ({@code ReferenceSubject.consume()}, {@code ReferenceSubject.transform()}).</li>
 * </ul>
 * Arguments and templates take the placeholders {@link #PLACEHOLDERS}: {@code {bootstrap}},
 * {@code {topic}}, {@code {group}}, {@code {db}}, {@code {namespace}}, {@code {instance}},
 * {@code {logdir}}, and the lab's consumer settings {@code {group.protocol}},
 * {@code {max.poll.interval.ms}}, {@code {session.timeout.ms}}; a transform subject also
 * {@code {output}} and {@code {transaction.timeout.ms}}.
 */
public final class Subject {
    /** Where a subject finds the target database's password: in its environment, never on a command line the evidence records. */
    public static final String TARGET_PASSWORD_ENV = "REPLAYLAB_TARGET_PASSWORD";

    public static final List<String> PLACEHOLDERS = List.of("{bootstrap}", "{topic}", "{group}", "{db}", "{namespace}", "{instance}", "{logdir}",
            "{group.protocol}", "{max.poll.interval.ms}", "{session.timeout.ms}");

    private final String template;
    private final String description;
    private final String program;
    /** The command's first word: a path, or a name looked up on the PATH. */
    private final String executable;

    private Subject(String template, String description) {
        this.template = template;
        this.description = description;
        List<String> words;
        try {
            words = ChildProcess.commandLine(template, Map.of()); // a template that cannot be split fails before anything starts
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("subject command: " + e.getMessage(), e);
        }
        this.program = words.get(0).substring(words.get(0).lastIndexOf('/') + 1);
        this.executable = words.get(0);
    }

    /**
     * Refuses a program that is not on this machine: a path that is no executable file, or a name
     * on none of the PATH's directories. (A template is a value: it is checked when a run uses it.)
     */
    void checkProgram() {
        if (executable.contains("/")) {
            if (!java.nio.file.Files.isRegularFile(java.nio.file.Path.of(executable)) || !java.nio.file.Files.isExecutable(java.nio.file.Path.of(executable))) {
                throw new IllegalArgumentException("the subject command's program '" + executable + "' is not an executable file");
            }
            return;
        }
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(java.io.File.pathSeparator)) {
            java.nio.file.Path candidate = java.nio.file.Path.of(dir.isEmpty() ? "." : dir, executable);
            if (java.nio.file.Files.isRegularFile(candidate) && java.nio.file.Files.isExecutable(candidate)) {
                return;
            }
        }
        throw new IllegalArgumentException("the subject command's program '" + executable + "' is on none of the PATH's directories (" + path + ")");
    }

    /**
     * Any program: a command line split like a shell would (on spaces, honouring '…' and "…"), with
     * the placeholders filled per instance. It must use at least {@code {group}}.
     */
    public static Subject command(String template) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("the subject command must not be empty");
        }
        if (!template.contains("{group}")) {
            throw new IllegalArgumentException("the subject command must use at least {group} (and usually {bootstrap} {topic} {db} {namespace} {instance})");
        }
        return new Subject(template, template);
    }

    /** A main class of this JVM's class path, in a child JVM with a small heap; {@code args} may hold placeholders. */
    public static Subject javaMain(Class<?> mainClass, String... args) {
        return javaMain(mainClass.getName(), List.of("-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"), List.of(args), mainClass.getSimpleName());
    }

    /**
     * A main class of this JVM's class path, with these JVM options; {@code description} is what the
     * evidence calls it (e.g. "reference (replay-lab subject consume)").
     */
    public static Subject javaMain(String mainClass, List<String> jvmOptions, List<String> args, String description) {
        StringBuilder t = new StringBuilder(javaCommand(Objects.requireNonNull(mainClass, "mainClass"), jvmOptions.toArray(String[]::new)));
        for (String a : args) {
            t.append(' ').append(a.contains(" ") ? quote(a) : a);
        }
        return new Subject(t.toString(), Objects.requireNonNull(description, "description"));
    }

    /** The start of a command template that runs {@code mainClass} on this JVM's Java and class path (both quoted); arguments follow. */
    public static String javaCommand(String mainClass, String... jvmOptions) {
        return quote(ChildProcess.javaExecutable()) + (jvmOptions.length == 0 ? "" : " " + String.join(" ", jvmOptions)) + " -cp "
                + quote(System.getProperty("java.class.path")) + " " + mainClass;
    }

    /** The command line for one instance. */
    public List<String> command(Map<String, String> values) {
        return ChildProcess.commandLine(template, values);
    }

    /** The template with its placeholders. */
    public String template() {
        return template;
    }

    /** The program's file name (the first word of the command, without its directory), e.g. {@code java} or {@code python3}. */
    public String program() {
        return program;
    }

    /** Whether the program is a JVM (the debugger barrier can hold it). */
    public boolean jvm() {
        return program.equals("java");
    }

    /** What the evidence calls it. */
    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return description;
    }

    private static String quote(String s) {
        return "'" + s + "'";
    }
}
