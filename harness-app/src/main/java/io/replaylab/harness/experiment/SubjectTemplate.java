package io.replaylab.harness.experiment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    }

    /** The reference subject from this JVM's own classpath, with the lab's timeouts. */
    public static SubjectTemplate reference(GroupProtocol groupProtocol, int maxPollIntervalMs, int sessionTimeoutMs) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String t = quote(java) + " -Xmx256m -XX:TieredStopAtLevel=1 -cp " + quote(System.getProperty("java.class.path"))
                + " io.replaylab.harness.ReplayLab subject consume --bootstrap-server {bootstrap} --topic {topic} --group {group}"
                + " --db {db} --namespace {namespace} --instance-id {instance} --group-protocol " + groupProtocol.name
                + " --max-poll-interval-ms " + maxPollIntervalMs
                + (groupProtocol == GroupProtocol.CLASSIC ? " --session-timeout-ms " + sessionTimeoutMs : "")
                + " --assignment-log {logdir}/{instance}.assignments.jsonl --processing-log {logdir}/{instance}.processing.jsonl";
        return new SubjectTemplate(t, true);
    }

    public static SubjectTemplate custom(String template) {
        return new SubjectTemplate(template, false);
    }

    /** The command line for one instance (split like a shell would on spaces, honouring '…' and "…"). */
    public List<String> command(Map<String, String> values) {
        List<String> out = new ArrayList<>();
        for (String word : split(template)) {
            String w = word;
            for (Map.Entry<String, String> e : values.entrySet()) {
                w = w.replace("{" + e.getKey() + "}", e.getValue());
            }
            out.add(w);
        }
        return out;
    }

    static List<String> split(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        boolean any = false;
        for (char c : s.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    cur.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                any = true;
            } else if (Character.isWhitespace(c)) {
                if (cur.length() > 0 || any) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    any = false;
                }
            } else {
                cur.append(c);
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("--subject-cmd has an unclosed quote: " + s);
        }
        if (cur.length() > 0 || any) {
            out.add(cur.toString());
        }
        return out;
    }

    private static String quote(String s) {
        return "'" + s + "'";
    }
}
