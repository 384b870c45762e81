package io.replaylab.harness.lab;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.replaylab.evidence.Setting;
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
 * {@code {logdir}}, {@code {command-config}} (a properties file with the run's Kafka client properties: {@link #COMMAND_CONFIG_ENV}),
 * and the lab's consumer settings {@code {group.protocol}},
 * {@code {max.poll.interval.ms}}, {@code {session.timeout.ms}}; on a PostgreSQL target also
 * {@link #PG_PLACEHOLDERS}; a transform subject also
 * {@code {output}} and {@code {transaction.timeout.ms}}.
 */
public final class Subject {
    /** Where a subject finds the target database's password: in its environment, never on a command line the evidence records. */
    public static final String TARGET_PASSWORD_ENV = "REPLAYLAB_TARGET_PASSWORD";
    /**
     * Where a subject finds the Kafka client properties of the run (SASL, TLS: {@code LabSettings.Builder#client}) in its
     * environment: the path of a properties file only the run's user reads, outside the run dir; the same path as
     * {@code {command-config}}. The file is empty when the run has none.
     */
    public static final String COMMAND_CONFIG_ENV = "REPLAYLAB_COMMAND_CONFIG";
    /** A subject's command and environment, as refusals name them. */
    public static final Setting COMMAND = Setting.of("Subject", "command").saidAs("the subject command");
    public static final Setting ENV = Setting.of("Subject", "env");

    public static final List<String> PLACEHOLDERS = List.of("{bootstrap}", "{topic}", "{group}", "{db}", "{namespace}", "{instance}", "{logdir}",
            "{command-config}", "{group.protocol}", "{max.poll.interval.ms}", "{session.timeout.ms}", "{pg-host}", "{pg-port}", "{pg-database}", "{pg-user}",
            "{pg-schema}", "{pg-options}", "{pg-uri}");

    /**
     * A PostgreSQL target's address in the forms a client that is not a JVM reads, all pointing at the run's PostgreSQL proxy:
     * host, port, database, user, the run's schema, {@code -c search_path=<schema>,public} (libpq's {@code options}) and a
     * {@code postgresql://} URI carrying the last and the instance as its {@code application_name}. Every consumer also finds
     * them in libpq's environment (PGHOST, PGPORT, PGDATABASE, PGUSER, PGOPTIONS, PGAPPNAME, and PGPASSWORD), unless its own
     * environment sets one; a SQLite target has none of them.
     */
    public static final List<String> PG_PLACEHOLDERS = List.of("{pg-host}", "{pg-port}", "{pg-database}", "{pg-user}", "{pg-schema}",
            "{pg-options}", "{pg-uri}");

    /** A variable whose name says it holds a secret: its value is never recorded. */
    private static final java.util.regex.Pattern SECRET_NAME = java.util.regex.Pattern.compile("(?i).*(PASS|PWD|SECRET|TOKEN|CREDENTIAL|KEY|AUTH).*");

    private final String template;
    private final String description;
    private final String program;
    /** The command's first word: a path, or a name looked up on the PATH. */
    private final String executable;
    /** Added to the inherited environment, values as templates. */
    private final Map<String, String> env;
    /** Its working directory, or null for the harness's. */
    private final java.nio.file.Path directory;

    private Subject(String template, String description) {
        this(template, description, Map.of(), null);
    }

    private Subject(String template, String description, Map<String, String> env, java.nio.file.Path directory) {
        this.template = template;
        this.description = description;
        this.env = Map.copyOf(env);
        this.directory = directory;
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
        checkProgram("subject", COMMAND);
    }

    /** As {@link #checkProgram()}, the messages naming its role ({@code subject}, {@code producer}) and the setting of its command. */
    void checkProgram(String role, Setting command) {
        if (directory != null && !java.nio.file.Files.isDirectory(directory)) {
            throw new IllegalArgumentException("the " + role + "'s working directory '" + directory + "' is no directory");
        }
        if (executable.contains("/")) {
            java.nio.file.Path exe = resolved();
            if (!java.nio.file.Files.isRegularFile(exe) || !java.nio.file.Files.isExecutable(exe)) {
                throw new io.replaylab.evidence.BadInputException(command + "'s program '" + executable + "' is not an executable file"
                        + (exe.toString().equals(executable) ? "" : " (" + exe + ")"), command);
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
        throw new io.replaylab.evidence.BadInputException(command + "'s program '" + executable + "' is on none of the PATH's directories (" + path
                + ")", command);
    }

    /**
     * Any program: a command line split like a shell would (on spaces, honouring '…' and "…"), with
     * the placeholders filled per instance. The consumer must get {@code {group}} through its command
     * or its environment ({@link #env}): a run checks that.
     */
    public static Subject command(String template) {
        if (template == null || template.isBlank()) {
            throw new io.replaylab.evidence.BadInputException(COMMAND + " must not be empty", COMMAND);
        }
        return new Subject(template, template);
    }

    /**
     * The same program with one more variable in its environment; {@code template} takes the same
     * placeholders as the command (and {@code {target-password}}, the target database's password,
     * which only an environment may carry). The evidence records templates, never rendered values, and
     * masks a variable whose name says it is a secret.
     */
    public Subject env(String name, String template) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("the subject's environment variable name '" + name + "' is not NAME (letters, digits, _)");
        }
        java.util.Map<String, String> more = new java.util.LinkedHashMap<>(env);
        more.put(name, java.util.Objects.requireNonNull(template, "template of " + name));
        return new Subject(template(), description, more, directory);
    }

    /** The same program started in {@code dir}; a relative program path in the command is resolved against it. */
    public Subject directory(java.nio.file.Path dir) {
        return new Subject(template, description, env, java.util.Objects.requireNonNull(dir, "dir").toAbsolutePath());
    }

    /** Its working directory, or null for the harness's own. */
    public java.nio.file.Path directory() {
        return directory;
    }

    /** The environment templates as given. */
    public Map<String, String> envTemplates() {
        return env;
    }

    /** The environment as the evidence may show it: templates, with a secret's value masked. */
    public Map<String, String> envForEvidence() {
        java.util.Map<String, String> shown = new java.util.TreeMap<>();
        env.forEach((k, v) -> shown.put(k, SECRET_NAME.matcher(k).matches() || v.contains("{target-password}") ? "***" : io.replaylab.oracle.TargetSpec.redact(v)));
        return shown;
    }

    /** The environment for one instance: the templates with {@code values} filled in. */
    public Map<String, String> env(Map<String, String> values) {
        java.util.Map<String, String> out = new java.util.LinkedHashMap<>();
        env.forEach((k, v) -> out.put(k, ChildProcess.render(v, values)));
        return out;
    }

    /** Whether {@code placeholder} (e.g. {@code {group}}) reaches the program, by its command or its environment. */
    public boolean uses(String placeholder) {
        return template.contains(placeholder) || env.values().stream().anyMatch(v -> v.contains(placeholder));
    }

    /** The program as it will be run: a relative path resolved against the working directory. */
    private java.nio.file.Path resolved() {
        java.nio.file.Path exe = java.nio.file.Path.of(executable);
        return directory != null && !exe.isAbsolute() ? directory.resolve(exe) : exe;
    }

    /** A main class of this JVM's class path, in a child JVM with a small heap; {@code args} may hold placeholders. */
    public static Subject javaMain(Class<?> mainClass, String... args) {
        return javaMain(mainClass.getName(), ChildProcess.shortLived("-Xmx256m"), List.of(args), mainClass.getSimpleName());
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

    /** The command line for one instance (a relative program path made absolute against the working directory). */
    public List<String> command(Map<String, String> values) {
        List<String> cmd = ChildProcess.commandLine(template, values);
        if (directory != null && executable.contains("/") && !java.nio.file.Path.of(executable).isAbsolute()) {
            List<String> out = new java.util.ArrayList<>(cmd);
            out.set(0, resolved().toString());
            return out;
        }
        return cmd;
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

    /** What the evidence calls it (with its working directory and environment, secrets masked). */
    public String description() {
        return description + (directory == null ? "" : " (in " + directory + ")") + (env.isEmpty() ? "" : " with environment " + envForEvidence());
    }

    @Override
    public String toString() {
        return description();
    }

    private static String quote(String s) {
        return "'" + s + "'";
    }
}
