package io.replaylab.harness.subject;

import java.util.List;

import io.replaylab.evidence.process.ChildProcess;
import io.replaylab.harness.lab.Subject;
import picocli.CommandLine;

/**
 * The reference subject, as a program ({@link #main}: {@code produce}, {@code consume},
 * {@code transform}) and as {@link Subject} values for the lab: {@link #consume()}, the serial inbox
 * consumer, and {@link #transform()}, the consume-transform-produce consumer (KIP-447). Both run in a
 * child JVM on the caller's class path and take the lab's consumer settings from its placeholders.
 *
 * <pre>{@code
 * Lab.run(LabSettings.custom().subject(ReferenceSubject.consume()).transformSubject(ReferenceSubject.transform()).build(), null);
 * }</pre>
 */
public final class ReferenceSubject {
    private static final List<String> LAB_SETTINGS = List.of("--group-protocol", "{group.protocol}", "--max-poll-interval-ms", "{max.poll.interval.ms}",
            "--session-timeout-ms", "{session.timeout.ms}", "--assignment-log", "{logdir}/{instance}.assignments.jsonl",
            "--processing-log", "{logdir}/{instance}.processing.jsonl");

    /**
     * A small heap and a short-lived JVM's options ({@link ChildProcess#shortLived}); each program its own class-data archive
     * (a consumer maps its own classes, not the producer's). {@code program}: produce, consume, share-consume or transform.
     */
    public static List<String> jvm(String program) {
        return ChildProcess.shortLived("-Xmx256m", ChildProcess.program(program));
    }

    private ReferenceSubject() {
    }

    /** The serial inbox consumer: per record one DB transaction (inbox + effect), then commitSync. */
    public static Subject consume() {
        return Subject.javaMain(ReferenceSubject.class.getName(), jvm("consume"), args(List.of("consume", "--bootstrap-server", "{bootstrap}", "--topic", "{topic}",
                "--group", "{group}", "--db", "{db}", "--namespace", "{namespace}", "--instance-id", "{instance}")), "reference (replay-lab subject consume)");
    }

    /**
     * The serial inbox consumer on a share group ({@code consume --group-type share}): per record one DB transaction, then
     * acknowledge(ACCEPT) and commitSync. The consumer-group settings do not apply to it; the share group's own configs
     * ({@code share.auto.offset.reset}: a new group starts at latest; the lock duration) are set by the lab before it starts.
     */
    public static Subject shareConsume() {
        return Subject.javaMain(ReferenceSubject.class.getName(), jvm("share-consume"), List.of("consume", "--group-type", "share", "--bootstrap-server", "{bootstrap}",
                "--topic", "{topic}", "--group", "{group}", "--db", "{db}", "--namespace", "{namespace}", "--instance-id", "{instance}",
                "--processing-log", "{logdir}/{instance}.processing.jsonl"), "reference share consumer (replay-lab subject consume --group-type share)");
    }

    /** The consume-transform-produce consumer: per record one transaction with the output record and the consumed offset. */
    public static Subject transform() {
        return Subject.javaMain(ReferenceSubject.class.getName(), jvm("transform"), args(List.of("transform", "--bootstrap-server", "{bootstrap}", "--topic", "{topic}",
                "--output-topic", "{output}", "--group", "{group}", "--instance-id", "{instance}", "--transaction-timeout-ms", "{transaction.timeout.ms}")),
                "reference transform (replay-lab subject transform)");
    }

    private static List<String> args(List<String> own) {
        return java.util.stream.Stream.concat(own.stream(), LAB_SETTINGS.stream()).toList();
    }

    /** {@code produce|consume|transform}: the same commands as {@code replay-lab subject …}. */
    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new SubjectCommand());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        System.exit(cli.execute(args));
    }
}
