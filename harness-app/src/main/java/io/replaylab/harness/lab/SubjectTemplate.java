package io.replaylab.harness.lab;

import java.util.List;
import java.util.Map;

import io.replaylab.evidence.process.ChildProcess;
import org.apache.kafka.clients.consumer.GroupProtocol;

/**
 * How to start one consumer instance: a command template with the placeholders {@code {bootstrap}},
 * {@code {topic}}, {@code {group}}, {@code {db}}, {@code {namespace}}, {@code {instance}} (and
 * {@code {logdir}}). The reference subject is one such template; any Java consumer can be another.
 */
public record SubjectTemplate(String template, boolean reference) {
    public static final List<String> PLACEHOLDERS = List.of("{bootstrap}", "{topic}", "{group}", "{db}", "{namespace}", "{instance}", "{logdir}");

    public SubjectTemplate {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("--subject-cmd must not be empty");
        }
        if (!reference && !template.contains("{group}")) {
            throw new IllegalArgumentException("--subject-cmd must use at least {group} (and usually {bootstrap} {topic} {db} {namespace} {instance})");
        }
        try {
            ChildProcess.commandLine(template, Map.of()); // a template that cannot be split fails before anything starts
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--subject-cmd: " + e.getMessage(), e);
        }
    }

    /** The reference subject from this JVM's own classpath, with the lab's timeouts. */
    public static SubjectTemplate reference(GroupProtocol groupProtocol, int maxPollIntervalMs, int sessionTimeoutMs) {
        String t = javaCommand("io.replaylab.harness.ReplayLab", "-Xmx256m", "-XX:TieredStopAtLevel=1") + " subject consume --bootstrap-server {bootstrap} --topic {topic} --group {group}"
                + " --db {db} --namespace {namespace} --instance-id {instance} --group-protocol " + groupProtocol.name
                + " --max-poll-interval-ms " + maxPollIntervalMs
                + (groupProtocol == GroupProtocol.CLASSIC ? " --session-timeout-ms " + sessionTimeoutMs : "")
                + " --assignment-log {logdir}/{instance}.assignments.jsonl --processing-log {logdir}/{instance}.processing.jsonl";
        return new SubjectTemplate(t, true);
    }

    /** The reference transform subject (consume-transform-produce, KIP-447) with the lab's timeouts; {@code {output}} is the output topic. */
    public static SubjectTemplate referenceTransform(GroupProtocol groupProtocol, int maxPollIntervalMs, int sessionTimeoutMs, int transactionTimeoutMs) {
        String t = javaCommand("io.replaylab.harness.ReplayLab", "-Xmx256m", "-XX:TieredStopAtLevel=1") + " subject transform"
                + " --bootstrap-server {bootstrap} --topic {topic} --output-topic {output} --group {group} --instance-id {instance}"
                + " --group-protocol " + groupProtocol.name + " --max-poll-interval-ms " + maxPollIntervalMs
                + (groupProtocol == GroupProtocol.CLASSIC ? " --session-timeout-ms " + sessionTimeoutMs : "")
                + " --transaction-timeout-ms " + transactionTimeoutMs
                + " --assignment-log {logdir}/{instance}.assignments.jsonl --processing-log {logdir}/{instance}.processing.jsonl";
        return new SubjectTemplate(t, true);
    }

    /** The start of a template that runs {@code mainClass} on this JVM's Java and class path (both quoted); arguments follow. */
    public static String javaCommand(String mainClass, String... jvmOptions) {
        return quote(ChildProcess.javaExecutable()) + (jvmOptions.length == 0 ? "" : " " + String.join(" ", jvmOptions)) + " -cp "
                + quote(System.getProperty("java.class.path")) + " " + mainClass;
    }

    public static SubjectTemplate custom(String template) {
        return new SubjectTemplate(template, false);
    }

    /** The command line for one instance (split like a shell would on spaces, honouring '…' and "…"). */
    public List<String> command(Map<String, String> values) {
        return ChildProcess.commandLine(template, values);
    }

    private static String quote(String s) {
        return "'" + s + "'";
    }
}
